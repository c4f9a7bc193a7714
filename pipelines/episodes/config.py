"""Episode budgets and policies, as configuration with named presets (data/presets.yaml)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from functools import cache
from typing import Any

from pipelines.datafiles import yaml_records

LOOKUPS = ("exact", "alias")
UNRECORDED = ("predict", "null", "not_in_case")


@dataclass(frozen=True)
class EpisodeConfig:
    preset: str
    action_budget: int
    test_limit: int
    tests_per_request: int
    lookup: str
    panels: bool
    unrecorded: str
    mdt_min_questions: int
    mdt_min_tests: int
    mdt_calls: int
    self_check: bool
    replace_fraction: float  # share of recorded lab values served as predictions (ClinVerse section K)
    oracle_block: bool = False  # the true ICD-10 block is given in the opening (ClinVerse's oracle-block task)

    def __post_init__(self) -> None:
        if self.lookup not in LOOKUPS:
            raise ValueError(f"lookup must be one of {LOOKUPS}, not {self.lookup!r}")
        if self.unrecorded not in UNRECORDED:
            raise ValueError(f"unrecorded must be one of {UNRECORDED}, not {self.unrecorded!r}")
        if not 0 <= self.replace_fraction < 1:
            raise ValueError(f"replace_fraction must be in [0, 1), not {self.replace_fraction!r}")
        if min(self.action_budget, self.tests_per_request) < 1 or min(self.test_limit, self.mdt_calls) < 0:
            raise ValueError("action_budget and tests_per_request must be >= 1, test_limit and mdt_calls >= 0")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


SETTINGS = frozenset(f.name for f in fields(EpisodeConfig)) - {"preset"}


@cache
def presets() -> dict[str, dict[str, Any]]:
    out = {}
    for record in yaml_records(__package__, "data/presets.yaml", "preset"):
        record.only(SETTINGS)
        out[record.key] = dict(record.data)
    return out


def preset(name: str, **overrides: Any) -> EpisodeConfig:
    """The named preset with ``overrides`` applied; an unknown preset or setting is an error."""
    if name not in presets():
        raise KeyError(f"no episode preset {name!r}; known: {sorted(presets())}")
    unknown = set(overrides) - SETTINGS
    if unknown:
        raise KeyError(f"unknown episode settings {sorted(unknown)}; known: {sorted(SETTINGS)}")
    return replace(EpisodeConfig(preset=name, **presets()[name]), **overrides)
