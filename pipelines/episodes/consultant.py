"""The offline consultant (CALL_MDT): one reviewer who reads what the doctor has seen so far and
suggests the most likely ICD-10 block, with the nearest training cases' diagnosis in it (or the
diagnostic criterion's, pipelines/episodes/knowledge.py).

It holds the training knowledge and the doctor-visible transcript only, never a case view.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipelines.episodes.criteria import candidates
from pipelines.episodes.doctors import doctor_texts
from pipelines.episodes.knowledge import TrainingKnowledge

ALTERNATIVES = 2


class OfflineConsultant:
    def __init__(self, knowledge: TrainingKnowledge):
        self._knowledge = knowledge

    def advise(self, question: str, transcript: Sequence[str]) -> str:
        texts = doctor_texts()["consultant"]
        evidence = "\n".join([*transcript, question])  # what the doctor heard leads: its counts are reused
        sims, found = self._knowledge.similarities(evidence), candidates(evidence)
        if not sims.any() and not found:
            return texts["no_evidence"]
        p = self._knowledge.prediction(sims, found)
        alternatives = ", ".join(p.alternatives[:ALTERNATIVES]) or texts["no_alternative"]
        return texts["advice"].format(block=p.block, diagnosis=p.diagnosis, code=p.code, alternatives=alternatives)
