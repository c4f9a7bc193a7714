"""The three role views of a case (MedEvoEval's patient / exam / manager views).

Each role is constructed from its view only, so what a role can say is bounded by what its view
holds: the patient view has no exam value and no diagnosis, the exam view has no diagnosis, and
only the manager view (judge, self-check) names the answer. :func:`require_view` is the type
check every role runs at construction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from pipelines.exams.catalog import name_key


def require_view[V](view: object, kind: type[V], role: str) -> V:
    """``view`` if it is a ``kind``; a role handed another view is a programming error."""
    if not isinstance(view, kind):
        raise TypeError(f"{role} takes a {kind.__name__}, not a {type(view).__name__}")
    return view


# ------------------------------------------------------------------------------------ patient


@dataclass(frozen=True, slots=True)  # slots: a cohort-wide step holds every case's units and results
class Unit:
    unit_id: str
    ordinal: int
    category: str
    text: str
    negated: bool
    importance: str
    disclosed: bool


@dataclass(frozen=True)
class SpeechStyle:
    verbosity: str  # terse | moderate | talkative
    anxiety: str  # calm | uneasy | anxious
    cooperativeness: str  # guarded | cooperative | eager
    recall: str  # vague | fair | precise

    @classmethod
    def from_json(cls, text: str | None) -> SpeechStyle:
        levels = json.loads(text) if text else {}
        return cls(levels.get("verbosity", "moderate"), levels.get("anxiety", "calm"),
                   levels.get("cooperativeness", "cooperative"), levels.get("recall", "fair"))


@dataclass(frozen=True)
class Profile:
    openness: float
    conscientiousness: float
    extraversion: float
    agreeableness: float
    neuroticism: float
    speech_style: SpeechStyle


@dataclass(frozen=True)
class PatientView:
    case_id: str
    units: tuple[Unit, ...]
    profile: Profile

    def __hash__(self) -> int:  # views are cache keys (the patient's retriever); hashed once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.case_id, self.units, self.profile))

    @cached_property
    def hidden(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if not u.disclosed)


# --------------------------------------------------------------------------------------- exam


@dataclass(frozen=True, slots=True)
class ExamResult:
    exam_name: str
    kind: str
    value_num: float | None
    value_text: str | None
    unit: str | None
    ref_low: float | None
    ref_high: float | None
    abnormal: bool | None
    origin: str = "recorded"


@dataclass(frozen=True)
class CatalogEntry:
    exam_name: str
    kind: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class ExamCatalog:
    """The orderable examinations (``exam_catalog``), shared by every case of a store."""

    entries: tuple[CatalogEntry, ...]

    def __hash__(self) -> int:  # views are cache keys (the boundary screen's); hashed once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(self.entries)

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(e.exam_name for e in self.entries)

    @cached_property
    def by_key(self) -> dict[str, str]:
        """``name_key`` of a canonical name -> the name."""
        return {name_key(e.exam_name): e.exam_name for e in self.entries}

    @cached_property
    def alias_keys(self) -> dict[str, tuple[str, ...]]:
        """``name_key`` of an alias -> every canonical name carrying it (sorted; several = ambiguous)."""
        found: dict[str, set[str]] = {}
        for e in self.entries:
            for alias in e.aliases:
                found.setdefault(name_key(alias), set()).add(e.exam_name)
        return {k: tuple(sorted(v)) for k, v in found.items() if k}


@dataclass(frozen=True)
class ExamView:
    case_id: str
    results: tuple[ExamResult, ...]
    catalog: ExamCatalog

    def __hash__(self) -> int:  # views are cache keys (the boundary screen's); hashed once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.case_id, self.results, self.catalog))

    @cached_property
    def by_name(self) -> dict[str, ExamResult]:
        """Each exam's first result (the store orders repeated measurements earliest first)."""
        found: dict[str, ExamResult] = {}
        for r in self.results:
            found.setdefault(r.exam_name, r)
        return found


# ------------------------------------------------------------------------------------ manager


@dataclass(frozen=True)
class ManagerView:
    case_id: str
    diagnosis_name: str
    acceptable_names: tuple[str, ...]
    primary_icd10: str | None
    primary_icd10_category: str | None
    primary_icd10_block: str | None
    primary_icd10_chapter: str | None
    icd10_title: str | None
    acceptable_icd10: tuple[str, ...]  # every code that counts as right; the primary among them
    secondary_icd10: tuple[str, ...]
