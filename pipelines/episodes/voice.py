"""First-person phrasing of information units in a patient's speech style (data/patient_voice.yaml).

The voice only rewords: every clause of a reply comes from one unit's text, a denial only from a
negated unit, and when nothing matches the patient says a neutral "I don't know". Style words
(hedges, worries, asides) come from the profile's speech style, with a seeded choice among
variants so that a seed gives the same wording.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.views import SpeechStyle


@dataclass(frozen=True)
class Fact:
    """Something the patient may say: a unit (``unit_id``) or, for the single-layer patient, case data."""

    unit_id: str | None
    category: str
    text: str
    negated: bool = False


@cache
def _voice() -> dict[str, Any]:
    data = yaml_mapping(__package__, "data/patient_voice.yaml",
                        ("rewrites", "negation", "categories", "style", "unknown", "refusal"))
    data["rewrites"] = [(re.compile(p, re.IGNORECASE), r) for p, r in data["rewrites"]]
    data["negation"] = re.compile(data["negation"], re.IGNORECASE)
    data["categories"] = {
        cat: [(re.compile(rule["match"], re.IGNORECASE) if "match" in rule else None, rule.get("negated"),
               rule["template"]) for rule in rules]
        for cat, rules in data["categories"].items()
    }
    return data


def _decap(text: str) -> str:
    """"Anemia" -> "anemia", but "COPD" and "I" stay."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[1].islower() else text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=1 << 16)  # a patient says a fact in every episode of its case
def first_person(fact: Fact) -> str:
    """One fact as one first-person sentence."""
    voice = _voice()
    text = fact.text.strip().rstrip(".")
    for pattern, repl in voice["rewrites"]:
        text = pattern.sub(repl, text).strip()
    text = _decap(text) or fact.text
    rest = voice["negation"].sub("", text)
    for pattern, negated, template in voice["categories"].get(fact.category, [(None, None, "{Text}.")]):
        if negated is not None and negated != fact.negated:
            continue
        match = pattern.search(text) if pattern else None
        if pattern is None or match:
            groups = {k: _decap(v.strip()) for k, v in (match.groupdict() if match else {}).items()}
            return template.format(text=text, Text=_cap(text), rest=rest, **groups)
    return f"{_cap(text)}."


class Voice:
    def __init__(self, style: SpeechStyle, seed: int):
        self._style = style
        self._rng = random.Random(seed)

    def _pick(self, options: list[str]) -> str:
        return options[self._rng.randrange(len(options))]

    def _styled(self, trait: str) -> str:
        return self._pick(_voice()["style"][trait][getattr(self._style, trait)])

    def say(self, facts: list[Fact]) -> str:
        if not facts:
            return self.unknown()
        body = " ".join(first_person(f) for f in facts)
        cooperativeness, recall = self._styled("cooperativeness"), self._styled("recall")
        opener = cooperativeness + (_decap(recall) if cooperativeness else recall)
        if opener:
            body = opener + (body if opener.rstrip().endswith((".", "!", "?")) else _decap(body))
        return _cap(body) + self._styled("anxiety") + self._styled("verbosity")

    def unknown(self) -> str:
        return self._pick(_voice()["unknown"])

    def refusal(self) -> str:
        return self._pick(_voice()["refusal"])
