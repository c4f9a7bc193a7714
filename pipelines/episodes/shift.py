"""The update protocol's distribution shift (MedEvoEval section 5.3), as data (data/shifts.yaml).

A shift is an episode setting (pipelines/episodes/config.py): ``shift`` names one, ``shift_cases``
the cases played under it, so the stream's middle stages can shift while its other stages do not,
and a resumed run shifts the same cases. The shift implemented is ``wording`` (case expression):
the presentation the doctor starts from and every reply of the patient, offline or LLM, are
reworded through a phrase table (:class:`Shift`, :class:`ShiftedPatient`); which facts a reply
holds is unchanged, so the elicited units and the scores that count them stay comparable.
"""

from __future__ import annotations

import re
from functools import cache

from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.episodes.config import NO_SHIFT
from pipelines.episodes.patient import Patient, PatientReply

FILE = "data/shifts.yaml"


class Shift:
    """A phrase table: each phrase (whole words, any case) said another way, longest phrase first."""

    def __init__(self, name: str, description: str, phrases: dict[str, str]):
        self.name, self.description = name, description
        ordered = sorted(phrases, key=lambda p: (-len(p), p))
        self._pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ordered)) + r")(?![\w-])", re.IGNORECASE)
        self._folded = {p.lower(): words for p, words in phrases.items()}

    def reword(self, text: str) -> str:
        """``text`` with every phrase of the table replaced; a capital first letter is kept."""
        def swap(match: re.Match[str]) -> str:
            found, words = match.group(1), self._folded[match.group(1).lower()]
            return words[:1].upper() + words[1:] if found[:1].isupper() else words
        return self._pattern.sub(swap, text)


@cache
def shifts() -> dict[str, Shift]:
    found = {}
    for name, body in yaml_mapping(__package__, FILE).items():
        phrases = body.get("phrases") if isinstance(body, dict) else None
        if name == NO_SHIFT or not isinstance(phrases, dict) or not phrases or set(body) != {"description", "phrases"} \
                or not all(isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip()
                           for k, v in phrases.items()):
            raise DataFileError(FILE, str(name), "", f"a shift (not named {NO_SHIFT}) has a description and a "
                                                     "non-empty phrases mapping of text to text")
        if len({p.lower() for p in phrases}) != len(phrases):
            raise DataFileError(FILE, str(name), "phrases", "a phrase is listed twice (phrases ignore case)")
        found[str(name)] = Shift(str(name), str(body["description"]), {str(k): str(v) for k, v in phrases.items()})
    return found


class ShiftedPatient:
    """A patient (offline or LLM) whose every reply and refusal is reworded by ``shift``."""

    def __init__(self, patient: Patient, shift: Shift):
        self._patient, self._shift = patient, shift

    def reply(self, question: str) -> PatientReply:
        said = self._patient.reply(question)
        return PatientReply(self._shift.reword(said.text), said.unit_ids)

    def refusal(self) -> str:
        return self._shift.reword(self._patient.refusal())
