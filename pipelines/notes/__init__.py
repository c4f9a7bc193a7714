"""Clinical-note NLP: sections, patient-reportable units and examination findings from MIMIC-IV-Note.

* :mod:`pipelines.notes.sections`      :func:`section_notes` (regex header split), the pipeline (:func:`build_nlp`)
* :mod:`pipelines.notes.section_rules` header rules and the visibility policy of every section
* :mod:`pipelines.notes.units`         :func:`note_units`: atomic facts from patient-visible sections
* :mod:`pipelines.notes.findings`      :func:`note_exam_findings`: admission exam, vitals, radiology FINDINGS
* :mod:`pipelines.notes.lexicon`       abbreviations, exam body systems, finding vocabulary

Diagnosis leakage (terms, matching, scrubbing, audits) lives in :mod:`pipelines.leakage`.
Importing this package loads nothing heavy; spaCy/medspaCy load with the submodules.
"""
