"""Patient simulators: the observable patient the doctor talks to, and the stress test's
single-layer patient that sees the whole case.

:class:`ObservablePatient` is built from the patient view alone: it says the hidden units that
best match a question (pipelines/episodes/retrieval.py), in the first person and the profile's
speech style (pipelines/episodes/voice.py), and reports which unit ids each reply revealed.
:class:`SingleLayerPatient` holds the whole case, diagnosis and results included, as a patient
simulator prompted with the full record would; it exists to measure what the dual-layer design
and the self-check prevent (pipelines/episodes/stress.py), never to run episodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from pipelines.episodes.lab import render
from pipelines.episodes.retrieval import FACT_SETS_CACHED, Retriever, Vocabulary
from pipelines.episodes.store import EpisodeCase
from pipelines.episodes.views import PatientView, require_view
from pipelines.episodes.voice import Fact, Voice

IMAGING_KINDS = frozenset({"imaging", "ecg"})
RECORD_RESULTS = 5  # results quoted in the single-layer patient's "discharge summary"


@dataclass(frozen=True)
class PatientReply:
    text: str
    unit_ids: tuple[str, ...]


class Patient(Protocol):
    def reply(self, question: str) -> PatientReply: ...

    def refusal(self) -> str: ...


class _Speaker:
    def __init__(self, retriever: Retriever, voice: Voice):
        self._retriever = retriever
        self._voice = voice
        self._said: set[str] = set()

    def reply(self, question: str) -> PatientReply:
        facts = self._retriever.match(question, frozenset(self._said))
        unit_ids = tuple(f.unit_id for f in facts if f.unit_id)
        self._said.update(unit_ids)
        return PatientReply(self._voice.say(facts), unit_ids)

    def refusal(self) -> str:
        return self._voice.refusal()


class ObservablePatient(_Speaker):
    def __init__(self, view: PatientView, vocabulary: Vocabulary, seed: int):
        view = require_view(view, PatientView, "ObservablePatient")
        super().__init__(_retriever(view, vocabulary), Voice(view.profile.speech_style, seed))


@lru_cache(maxsize=FACT_SETS_CACHED)  # every episode of a case has the same patient (a retriever holds no state)
def _retriever(view: PatientView, vocabulary: Vocabulary) -> Retriever:
    return Retriever(vocabulary, [Fact(u.unit_id, u.category, u.text, u.negated) for u in view.hidden])


class SingleLayerPatient(_Speaker):
    def __init__(self, case: EpisodeCase, vocabulary: Vocabulary, seed: int):
        case = require_view(case, EpisodeCase, "SingleLayerPatient")
        super().__init__(_whole_case_retriever(case, vocabulary), Voice(case.patient.profile.speech_style, seed))


@lru_cache(maxsize=FACT_SETS_CACHED)  # the stress test asks a case's single-layer patient with and without the self-check
def _whole_case_retriever(case: EpisodeCase, vocabulary: Vocabulary) -> Retriever:
    manager = case.manager
    facts = [Fact(u.unit_id, u.category, u.text, u.negated) for u in case.patient.units]
    results = [render(r) for r in case.exams.results]
    facts += [Fact(None, "imaging" if r.kind in IMAGING_KINDS else "lab", text)
              for r, text in zip(case.exams.results, results)]
    code = " ".join(filter(None, [manager.primary_icd10, manager.icd10_title]))
    facts.append(Fact(None, "diagnosis", manager.diagnosis_name))
    if code:
        facts.append(Fact(None, "code", code))
    record = [manager.diagnosis_name, code, *results[:RECORD_RESULTS]]
    facts.append(Fact(None, "record", "; ".join(filter(None, record))))
    return Retriever(vocabulary, facts)
