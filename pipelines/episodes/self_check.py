"""The patient's self-check: the second line of the information boundary.

Every question first meets the refusal lexicon (data/boundary_cues.yaml): a request for the
diagnosis, results or records is refused. Every reply then meets the boundary screen
(pipelines/episodes/screen.py): a reply that names the diagnosis or states a result is withheld.
Both give the patient's refusal instead and are recorded ``self_check='blocked'``; a reply that
passes is ``'passed'``. The self-check holds the manager and exam views; the patient does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files

import yaml

from pipelines.episodes.patient import Patient
from pipelines.episodes.screen import BoundaryScreen


@cache
def boundary_cues() -> dict[str, tuple[re.Pattern[str], ...]]:
    data = yaml.safe_load(files(__package__).joinpath("data/boundary_cues.yaml").read_text())
    return {kind: tuple(re.compile(p, re.IGNORECASE) for p in patterns) for kind, patterns in data.items()}


@lru_cache(maxsize=4096)  # doctors repeat their questions across episodes
def boundary_request(question: str) -> str | None:
    """The kind of boundary a question crosses (``diagnosis``, ``results`` ...), or None."""
    for kind, patterns in boundary_cues().items():
        if any(p.search(question) for p in patterns):
            return kind
    return None


@dataclass(frozen=True)
class CheckedReply:
    text: str
    unit_ids: tuple[str, ...]
    self_check: str | None  # passed | blocked | None (no self-check)


class SelfCheck:
    def __init__(self, screen: BoundaryScreen):
        self._screen = screen

    def reply(self, patient: Patient, question: str) -> CheckedReply:
        """The patient's answer, or its refusal when the request or the answer crosses the boundary."""
        if boundary_request(question):
            return CheckedReply(patient.refusal(), (), "blocked")
        reply = patient.reply(question)
        if self._screen.discloses(reply.text):
            return CheckedReply(patient.refusal(), (), "blocked")
        return CheckedReply(reply.text, reply.unit_ids, "passed")


def respond(patient: Patient, question: str, self_check: SelfCheck | None) -> CheckedReply:
    """The patient's reply to one question, through the self-check when there is one."""
    if self_check is None:
        reply = patient.reply(question)
        return CheckedReply(reply.text, reply.unit_ids, None)
    return self_check.reply(patient, question)
