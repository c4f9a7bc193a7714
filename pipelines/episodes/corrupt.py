"""The interface control without an LLM (MedEvoEval Appendix D.1, issue 12 section 3): an offline
doctor whose outputs, in a seeded share, are written the way LLM outputs go wrong, and then read
the way an LLM doctor's are.

An offline doctor emits exact Template B.1 JSON, which the normaliser has nothing to repair. Under
the episode setting ``corrupt_share`` (pipelines/episodes/config.py) the episode's doctor is a
:class:`CorruptedDoctor` around it (pipelines/episodes/settings.py): each output is corrupted or
not by a draw on (episode seed, turn), so the same seed corrupts the same turns whatever the arm,
and a corrupted one is rewritten in one of the ways data/corruptions.yaml lists:

* repairable (code fences, text around the object, a one-element list, trailing commas, Python
  quoting, action and field aliases, test names in another case and spelling, an ICD-10 code
  without its dot), each a repair of pipelines/episodes/llm/normalise.py;
* unrepairable (prose without JSON, an object cut off), a documented share of the corrupted
  outputs that no normaliser recovers.

The text then takes the LLM doctor's path (pipelines/episodes/llm/roles.py, ``LLMDoctor.read``):
with ``corrupt_normalise`` through :func:`~pipelines.episodes.llm.normalise.normalise` with the same
:class:`~pipelines.episodes.llm.normalise.TestNames` over the same orderable names; without it raw.
Either way the strict parser reads what comes out, and an unusable output is an error turn whose
event records the raw text.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.episodes.doctors import Doctor, Opening
from pipelines.episodes.llm.normalise import normalise, test_names
from pipelines.episodes.views import ExamCatalog

FILE = "data/corruptions.yaml"
Body = dict[str, Any]
Writer = Callable[[Body, Mapping[str, Any]], str | None]  # the corrupted text, or None where it does not apply


def _template(body: Body, params: Mapping[str, Any]) -> str:
    return str(params["template"]).replace("{json}", json.dumps(body, ensure_ascii=False))


def _trailing_comma(body: Body, params: Mapping[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)[:-1] + ",}"


def _single_quotes(body: Body, params: Mapping[str, Any]) -> str:
    return repr(body)


def _action_alias(body: Body, params: Mapping[str, Any]) -> str | None:
    alias = params["aliases"].get(body.get("action"))
    return None if alias is None else json.dumps(body | {"action": alias}, ensure_ascii=False)


def _field_alias(body: Body, params: Mapping[str, Any]) -> str | None:
    aliases = params["aliases"]
    if not set(aliases) & set(body):
        return None
    return json.dumps({aliases.get(k, k): v for k, v in body.items()}, ensure_ascii=False)


def _test_name_case(body: Body, params: Mapping[str, Any]) -> str | None:
    names = body.get("test_name")
    if not names:
        return None
    def respell(name: str) -> str:
        return "-".join(name.lower().split())
    names = respell(names) if isinstance(names, str) else [respell(n) for n in names]
    return json.dumps(body | {"test_name": names}, ensure_ascii=False)


def _icd10_format(body: Body, params: Mapping[str, Any]) -> str | None:
    code = body.get("icd10")
    if not isinstance(code, str) or "." not in code:
        return None
    return json.dumps(body | {"icd10": code.lower().replace(".", "")}, ensure_ascii=False)


def _truncated(body: Body, params: Mapping[str, Any]) -> str:
    text = json.dumps(body, ensure_ascii=False)
    return text[: len(text) // 2]


WRITERS: dict[str, Writer] = {
    "fence": _template, "surrounding_text": _template, "unwrapped_list": _template, "prose": _template,
    "trailing_comma": _trailing_comma, "single_quotes": _single_quotes, "action_alias": _action_alias,
    "field_alias": _field_alias, "test_name_case": _test_name_case, "icd10_format": _icd10_format,
    "truncated": _truncated,
}
POOLS = {"repairable": {"fence", "surrounding_text", "unwrapped_list", "trailing_comma", "single_quotes",
                        "action_alias", "field_alias", "test_name_case", "icd10_format"},
         "unrepairable": {"prose", "truncated"}}
EVERY_ACTION = {"fence", "surrounding_text", "unwrapped_list", "trailing_comma", "single_quotes", "prose",
                "truncated"}  # the kinds that apply to any output: a pool needs one
DATA = {"fence": {"template"}, "surrounding_text": {"template"}, "unwrapped_list": {"template"},
        "prose": {"template"}, "action_alias": {"aliases"}, "field_alias": {"aliases"}}


@dataclass(frozen=True)
class Corruption:
    kind: str
    params: Mapping[str, Any]

    def write(self, body: Body) -> str | None:
        return WRITERS[self.kind](body, self.params)


@dataclass(frozen=True)
class Corruptions:
    """The corruptions of data/corruptions.yaml and the share of corrupted outputs beyond repair."""

    beyond_repair: float
    repairable: tuple[Corruption, ...]
    unrepairable: tuple[Corruption, ...]

    def fate(self, seed: int, turn: int, share: float) -> tuple[str | None, float]:
        """Whether the output of ``turn`` (1, 2, ...) is corrupted: None (left clean), ``repairable``
        or ``unrepairable``, and the draw that picks the kind. It depends on (seed, turn) only, so
        it is the same whatever the arm and whatever the doctor wrote."""
        rng = random.Random(f"corrupt:{seed}:{turn}")
        hit, unrepairable, pick = rng.random(), rng.random(), rng.random()
        if hit >= share:
            return None, pick
        return ("unrepairable" if unrepairable < self.beyond_repair else "repairable"), pick

    def draw(self, clean: str, seed: int, turn: int, share: float) -> str:
        """The output of ``turn`` as written: ``clean``, or corrupted in one of its pool's kinds that
        apply to the output's action."""
        pool, pick = self.fate(seed, turn, share)
        if pool is None:
            return clean
        body = json.loads(clean)
        written = [text for c in getattr(self, pool) if (text := c.write(body)) is not None]
        return written[int(pick * len(written))]


@cache
def corruptions() -> Corruptions:
    data = yaml_mapping(__package__, FILE, ("beyond_repair", *POOLS))
    share = data["beyond_repair"]
    if not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise DataFileError(FILE, "", "beyond_repair", "the share of corrupted outputs beyond repair, in [0, 1]")
    pools = {}
    for pool, known in POOLS.items():
        kinds = data[pool]
        if not isinstance(kinds, dict) or not set(kinds) & EVERY_ACTION:
            raise DataFileError(FILE, pool, "", f"a mapping of corruption kinds to their data, with one of "
                                                f"{', '.join(sorted(EVERY_ACTION & known))} (they apply to any output)")
        for kind, params in kinds.items():
            if kind not in known or not isinstance(params, dict) or set(params) != DATA.get(kind, set()):
                raise DataFileError(FILE, pool, str(kind), f"{pool} kinds are {', '.join(sorted(known))}; this one "
                                                           f"takes {sorted(DATA.get(kind, set())) or 'no data'}")
        pools[pool] = tuple(Corruption(str(k), v) for k, v in kinds.items())
    return Corruptions(float(share), pools["repairable"], pools["unrepairable"])


class CorruptedDoctor:
    """``inner`` with ``share`` of its outputs corrupted (module docstring), then normalised or raw."""

    def __init__(self, inner: Doctor, share: float, normalise_outputs: bool, catalog: ExamCatalog | None,
                 seed: int):
        self.privileged = inner.privileged
        self._inner, self._share, self._normalise = inner, share, normalise_outputs
        self._catalog, self._seed = catalog, seed
        self._turn = 0

    def begin(self, opening: Opening) -> None:
        self._inner.begin(opening)
        self._tests = test_names(opening.catalog, self._catalog) if self._normalise else None
        self._turn = 0

    def act(self, observation: str) -> str:
        self._turn += 1
        raw = corruptions().draw(self._inner.act(observation), self._seed, self._turn, self._share)
        if not self._normalise:
            return raw
        repaired = normalise(raw, self._tests)
        return raw if repaired.text is None else repaired.text
