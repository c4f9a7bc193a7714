"""Who may see what: the role names and the latent patient that holds the whole case.

The observable patient answers the doctor from the patient view (pipelines/episodes/patient.py).
The latent patient holds the full case state and answers only authorised roles: the laboratory
physician gets the clinical state a predictor may condition on (age, sex, patient and exam views,
never the diagnosis), the judge gets the whole case. Anyone else is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pipelines.episodes.store import EpisodeCase
from pipelines.episodes.views import ExamView, PatientView, require_view


class Role(StrEnum):
    DOCTOR = "doctor"
    PATIENT = "patient"
    LAB = "lab"
    CONSULTANT = "consultant"
    CONTROLLER = "controller"
    JUDGE = "judge"


@dataclass(frozen=True)
class ClinicalState:
    """What a results predictor may condition on: everything but the diagnosis."""

    age: int | None
    sex: str | None
    patient: PatientView
    exams: ExamView


class LatentPatient:
    def __init__(self, case: EpisodeCase):
        self._case = require_view(case, EpisodeCase, "LatentPatient")

    def answer(self, caller: Role) -> ClinicalState | EpisodeCase:
        if caller is Role.LAB:
            c = self._case
            return ClinicalState(c.age, c.sex, c.patient, c.exams)
        if caller is Role.JUDGE:
            return self._case
        raise PermissionError(f"the latent patient answers only the laboratory physician and the judge, not {caller}")
