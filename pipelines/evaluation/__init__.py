"""Evaluation of recorded episodes, Dagster-free: what the judge scores against and how.

* :mod:`~pipelines.evaluation.exam_targets`: the exams that matter per case (``case_exam_targets``);
* :mod:`~pipelines.evaluation.rubrics`: evidence and management key points (``case_rubrics``);
* :mod:`~pipelines.evaluation.reference`, :mod:`~pipelines.evaluation.trace`: a case's manager-side
  reference and an episode's recorded trace, all the scores read;
* :mod:`~pipelines.evaluation.judges` (offline) and :mod:`~pipelines.evaluation.llm_judge`: S_diag,
  key points matched and unsupported items; :mod:`~pipelines.evaluation.agreement`: ``alt_judge``;
* :mod:`~pipelines.evaluation.scores`: ``episode_scores`` rows (ICR, TOC, ATC, DCA, DSA, exam
  precision / recall / F1, S, U and their components); :mod:`~pipelines.evaluation.runs`: a run's
  partition, and re-scoring exported JSON lines;
* :mod:`~pipelines.evaluation.memory`: experience memory, the cards the manager writes after each
  scored episode and shows before later doctor decisions (``memory_cards``).
"""
