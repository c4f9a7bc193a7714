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

from pipelines.datafiles import Record, yaml_mapping
from pipelines.episodes.patient import Patient
from pipelines.episodes.screen import BoundaryScreen


@cache
def boundary_cues() -> dict[str, tuple[re.Pattern[str], ...]]:
    name = "data/boundary_cues.yaml"
    out = {}
    for kind, patterns in yaml_mapping(__package__, name).items():
        record = Record(str(files(__package__) / name), f"boundary {kind!r}", {"patterns": patterns})
        if not isinstance(patterns, list) or not patterns:
            raise record.error("patterns", "expected a list of regular expressions")
        out[kind] = tuple(record.regex("patterns", re.IGNORECASE, source=str(p)) for p in patterns)
    return out


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
