"""MedQA (USMLE) questions -> ClinPatient cases without an LLM.

* :mod:`~pipelines.medqa.select`      which questions are diagnosis cases (``classify_question``);
* :mod:`~pipelines.medqa.answer_icd`  answer -> name, acceptable names, ICD-10-CM (``map_answer``);
* :mod:`~pipelines.medqa.vignette`    vignette -> presentation, history, findings (``split_vignette``);
* :mod:`~pipelines.medqa.findings`    vitals, labs and text findings as exam results;
* :mod:`~pipelines.medqa.lexicon`     how vignettes name labs, vitals and studies (CSV tables);
* :mod:`~pipelines.medqa.history`     category and negation of history clauses;
* :mod:`~pipelines.medqa.convert`     the patient, examination and manager views (``convert_questions``).
"""
