"""Offline doctors: deterministic backends that play the doctor through the same protocol as a
model would, emitting Template B.1 JSON each turn.

* ``full_info``: the reference ceiling; it is handed the patient and exam views (every unit and
  result, nothing of the manager view), finds the nearest training cases to a clinician's summary
  of them (key units and abnormal results), weighs the diagnostic criteria all of it meets
  (pipelines/episodes/knowledge.py) and finalises at once, citing the key history and then the
  most deranged results.
* ``retrieval``: asks category-driven questions (categories in the order of the important hidden
  history the train split holds in them), orders the tests whose abnormal results are most
  typical of the training cases nearest to what it has heard, calls the consultant once, and
  finalises as ``full_info`` does over the evidence it gathered. With
  experience memory it reads the cards it is shown and follows those that fit what it has heard
  (pipelines/episodes/experience.py): a success card's diagnosis and tests, a correction's
  diagnosis and tests to avoid, a rule's early tests and how many questions suffice.
* ``random``: the floor; seeded random questions and tests, then a random train-split code.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import numpy as np

from pipelines import icd
from pipelines.datafiles import yaml_mapping
from pipelines.episodes.actions import Action, Ask, CallMdt, Finalize, RequestTest, to_json
from pipelines.episodes.config import EpisodeConfig
from pipelines.episodes.experience import Experience
from pipelines.episodes.criteria import candidates
from pipelines.episodes.knowledge import Prediction, TrainingKnowledge, evidence_text, salient_text
from pipelines.episodes.messages import say
from pipelines.episodes.lab import render
from pipelines.episodes.views import ExamResult, ExamView, PatientView, require_view

EVIDENCE_ITEMS = 5
TESTS, MDT = "tests", "mdt"  # plan steps decided when they come up


@cache
def doctor_texts() -> dict[str, Any]:
    return yaml_mapping(__package__, "data/doctor.yaml",
                        ("questions", "plan", "follow_up", "mdt_question", "consultant", "memory"))


@dataclass(frozen=True)
class Opening:
    """What a doctor starts from: the opening observation (the presentation, then the rules and
    the orderable names), the presentation on its own, and ``full_case`` (the patient and exam
    views) only for a privileged reference doctor."""

    text: str
    presentation: str
    catalog: tuple[str, ...]
    config: EpisodeConfig
    full_case: tuple[PatientView, ExamView] | None = None


class Doctor(Protocol):
    privileged: bool

    def begin(self, opening: Opening) -> None: ...

    def act(self, observation: str) -> str: ...


def _final(diagnosis: str, code: str, evidence: list[str]) -> Finalize:
    texts = doctor_texts()
    return Finalize(diagnosis, code, tuple(evidence[:EVIDENCE_ITEMS]),
                    tuple(p.format(diagnosis=diagnosis) for p in texts["plan"]), tuple(texts["follow_up"]))


def _salient(observations: list[str]) -> list[str]:
    """Evidence items to cite: abnormal results first, then what the patient said."""
    lines = [line.strip() for o in observations for line in o.splitlines() if line.strip()]
    abnormal = [line for line in lines if line.endswith(say("lab.flag_abnormal"))]
    said = [line for line in lines if "don't know" not in line and "|" not in line and not line.endswith(":")]
    return abnormal + said


def _derangement(result: ExamResult) -> float:
    """How far a result lies outside its reference range, in range widths (0 when unknown)."""
    value, low, high = result.value_num, result.ref_low, result.ref_high
    if value is None or low is None or high is None or high <= low:
        return 0.0
    return max(low - value, value - high, 0.0) / (high - low)


class FullInfoDoctor:
    privileged = True

    def __init__(self, knowledge: TrainingKnowledge, seed: int):
        self._knowledge = knowledge

    def begin(self, opening: Opening) -> None:
        if opening.full_case is None:
            raise ValueError("the full_info doctor needs the case's patient and exam views")
        patient, exams = opening.full_case
        units = require_view(patient, PatientView, "FullInfoDoctor").units
        results = require_view(exams, ExamView, "FullInfoDoctor").results
        self._evidence = salient_text(units, results)
        self._found = candidates("\n".join([opening.presentation, evidence_text(units, results)]))
        # What it cites: the key history, then the most deranged results (as a clinician's summary).
        abnormal = sorted((r for r in results if r.abnormal), key=lambda r: -_derangement(r))
        self._cited = [u.text for u in units if u.importance == "key"] + [render(r) for r in abnormal]

    def act(self, observation: str) -> str:
        prediction = self._knowledge.prediction(self._knowledge.similarities(self._evidence), self._found)
        return to_json(_final(prediction.diagnosis, prediction.code, self._cited or _salient([self._evidence])))


class RetrievalDoctor:
    privileged = False

    def __init__(self, knowledge: TrainingKnowledge, seed: int):
        self._knowledge = knowledge

    def begin(self, opening: Opening) -> None:
        config = opening.config
        self._config = config
        self._catalog = opening.catalog
        self._heard = [opening.presentation]
        self._ordered: set[str] = set()
        self._finding_next = False  # the first observation is the opening
        bank = doctor_texts()["questions"]
        order = sorted(bank, key=lambda c: (-self._knowledge.category_weight.get(c, 0.0), c))
        questions = [q for category in order for q in bank[category]]
        # Budget: the last attempt finalises; the rest goes to tests, one consultation and questions.
        test_turns = math.ceil(config.test_limit / config.tests_per_request)
        mdt_turns = 1 if config.mdt_calls else 0
        ask_turns = max(0, min(math.ceil(len(questions) / 2), config.action_budget - 1 - mdt_turns - test_turns))
        test_turns = max(0, min(test_turns, config.action_budget - 1 - mdt_turns - ask_turns))
        self._plan: list[Action | str] = [Ask(tuple(questions[i : i + 2])) for i in range(0, 2 * ask_turns, 2)]
        self._plan += [TESTS] * test_turns + [MDT] * mdt_turns
        memory = doctor_texts()["memory"]
        self._experience = Experience(memory["match"], memory["min_words"], memory["unspecific"])
        self._questions = 0

    def act(self, observation: str) -> str:
        observation = self._experience.see(observation)
        if self._finding_next:  # the opening's rules and the consultant's advice are no findings
            self._heard.append(observation)
        self._finding_next = True
        heard = "\n".join(self._heard)
        while self._plan:
            step = self._plan.pop(0)
            if step == TESTS:
                names = self._next_tests(heard)
                if names:
                    self._ordered.update(names)
                    return to_json(RequestTest(tuple(names)))
            elif step == MDT:
                if not self._may_consult():  # fewer questions or tests than a consultation needs
                    continue
                self._finding_next = False
                return to_json(CallMdt(doctor_texts()["mdt_question"]))
            elif not self._asked_enough(heard):
                self._questions += len(step.questions)
                return to_json(step)
        return to_json(self._finalize(heard))

    def _may_consult(self) -> bool:
        config = self._config
        return self._questions >= config.mdt_min_questions or len(self._ordered) >= config.mdt_min_tests

    def _asked_enough(self, heard: str) -> bool:
        cap = self._experience.question_cap(heard) if self._experience else None
        return cap is not None and self._questions >= cap

    def _next_tests(self, heard: str) -> list[str]:
        if not self._experience:
            tests = self._knowledge.informative_tests(heard, self._catalog, self._ordered)
            return tests[: self._config.tests_per_request]
        first, skipped, only_first = self._experience.tests(heard, self._blocks(self._knowledge.predict(heard)))
        first = [t for t in first if t in self._catalog and t not in self._ordered]
        rest = [] if only_first else self._knowledge.informative_tests(heard, self._catalog, self._ordered | skipped)
        return list(dict.fromkeys(first + rest))[: self._config.tests_per_request]

    @staticmethod
    def _blocks(prediction: Prediction) -> set[str]:
        """The blocks the nearest training cases vote for: where a success card may be believed."""
        return {prediction.block, *prediction.alternatives}

    def _finalize(self, heard: str) -> Finalize:
        evidence = _salient(self._heard)
        sims, found = self._knowledge.similarities(heard), candidates(heard)
        prediction = self._knowledge.prediction(sims, found)
        if not self._experience:
            return _final(prediction.diagnosis, prediction.code, evidence)
        recalled = self._experience.successes(heard, self._blocks(prediction))
        if recalled:
            return _final(recalled[0].diagnosis, recalled[0].code, evidence)
        avoided = self._experience.avoided(heard)
        if prediction.code in avoided:  # the nearest training cases and criteria, avoided codes left out
            kept = np.where(np.isin(self._knowledge.codes, sorted(avoided)), 0.0, sims)
            found = [c for c in found if c.criterion.code not in avoided]
            prediction = self._knowledge.prediction(kept, found) if kept.any() or found else prediction
        return _final(prediction.diagnosis, prediction.code, evidence)


class RandomDoctor:
    privileged = False

    def __init__(self, knowledge: TrainingKnowledge, seed: int):
        self._rng = random.Random(seed)
        self._codes = sorted(set(knowledge.codes))

    def begin(self, opening: Opening) -> None:
        self._catalog = opening.catalog
        self._turns_left = self._rng.randrange(opening.config.action_budget)
        self._questions = [q for qs in doctor_texts()["questions"].values() for q in qs]

    def act(self, observation: str) -> str:
        if self._turns_left > 0:
            self._turns_left -= 1
            if self._rng.random() < 0.5:
                return to_json(Ask((self._rng.choice(self._questions),)))
            return to_json(RequestTest((self._rng.choice(self._catalog),)))
        code = self._rng.choice(self._codes)
        title = icd.icd10cm_info(code).title or code
        return to_json(Finalize(title, code, (), (), ()))


DOCTORS: dict[str, type[FullInfoDoctor] | type[RetrievalDoctor] | type[RandomDoctor]] = {
    "full_info": FullInfoDoctor,
    "retrieval": RetrievalDoctor,
    "random": RandomDoctor,
}


def make_doctor(name: str, knowledge: TrainingKnowledge, seed: int) -> Doctor:
    if name not in DOCTORS:
        raise KeyError(f"no offline doctor {name!r}; known: {sorted(DOCTORS)}")
    return DOCTORS[name](knowledge, seed)
