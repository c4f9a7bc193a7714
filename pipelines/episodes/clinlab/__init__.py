"""ClinLab: predicted laboratory results for exams a case did not record (ClinVerse, section 2.2).

:class:`ClinLab` is the results predictor the laboratory physician calls under the ``predict``
policy and for the ``replace_fraction`` validity arm (pipelines/episodes/lab.py); it is trained on
the train split's recorded values and never sees the diagnosis (model.py). :func:`clinlab_eval`
scores it against a population-median baseline on held-out test-split values (evaluation.py).
"""

from pipelines.episodes.clinlab.evaluation import clinlab_eval
from pipelines.episodes.clinlab.model import ClinLab

__all__ = ["ClinLab", "clinlab_eval"]
