"""Episode budgets and policies, as configuration with named presets (data/presets.yaml).

Besides the budgets and the laboratory's policies, four settings shape the evaluation conditions
(pipelines/evaluation/protocols.py); each is recorded in ``runs.config`` with the rest, so a
resumed run plays its remaining cases under the same conditions:

* ``vignette``: the static full-vignette condition (MedEvoEval Appendix D.2, issue 12 section 1):
  the opening holds the whole case (pipelines/episodes/vignette.py) and the one action allowed is
  the FINALIZE (``action_budget`` 1);
* ``shift`` and ``shift_cases``: the update protocol's shift (pipelines/episodes/shift.py) and the
  cases played under it (the stream's middle stages);
* ``corrupt_share`` and ``corrupt_normalise``: the share of an offline doctor's outputs written the
  way LLMs write them (pipelines/episodes/corrupt.py), and whether they pass through the LLM
  normaliser (the interface control's N1) or meet the parser raw (N0). An LLM doctor's normaliser
  is its LLM configuration's.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from functools import cache
from typing import Any

from pipelines.datafiles import yaml_records

DEFAULT_PRESET = "clinverse"
DEFAULT_SEED = 7  # MedEvoEval's runtime seed
LOOKUPS = ("exact", "alias")
UNRECORDED = ("predict", "null", "not_in_case")
NO_SHIFT = "none"


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
    vignette: bool = False  # the whole case in the opening, one FINALIZE (module docstring)
    shift: str = NO_SHIFT  # a shift of data/shifts.yaml, played on ``shift_cases``
    shift_cases: tuple[str, ...] = ()
    corrupt_share: float = 0.0  # share of an offline doctor's outputs corrupted as LLMs write them
    corrupt_normalise: bool = True  # those outputs go through the LLM normaliser (False: read raw)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shift_cases", tuple(self.shift_cases))  # a list from YAML or JSON
        if self.lookup not in LOOKUPS:
            raise ValueError(f"lookup must be one of {LOOKUPS}, not {self.lookup!r}")
        if self.unrecorded not in UNRECORDED:
            raise ValueError(f"unrecorded must be one of {UNRECORDED}, not {self.unrecorded!r}")
        if not 0 <= self.replace_fraction < 1:
            raise ValueError(f"replace_fraction must be in [0, 1), not {self.replace_fraction!r}")
        if min(self.action_budget, self.tests_per_request) < 1 or min(self.test_limit, self.mdt_calls) < 0:
            raise ValueError("action_budget and tests_per_request must be >= 1, test_limit and mdt_calls >= 0")
        if self.vignette and self.action_budget != 1:
            raise ValueError("a vignette episode has one action, its FINALIZE: set action_budget 1")
        if self.shift != NO_SHIFT:
            from pipelines.episodes.shift import shifts  # it reads patients, whose laboratory reads this module

            if self.shift not in shifts():
                raise ValueError(f"shift must be {NO_SHIFT} or one of {sorted(shifts())}, not {self.shift!r}")
        if self.shift_cases and self.shift == NO_SHIFT:
            raise ValueError("shift_cases are played under a shift: name it (shift)")
        if not 0 <= self.corrupt_share <= 1:
            raise ValueError(f"corrupt_share must be in [0, 1], not {self.corrupt_share!r}")

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
    return replace(_preset(name), **overrides) if overrides else _preset(name)


@cache  # every episode reset asks for its preset
def _preset(name: str) -> EpisodeConfig:
    return EpisodeConfig(preset=name, **presets()[name])
