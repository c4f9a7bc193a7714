"""Which coded diagnoses a patient can report as history, and under which unit category.

Diagnoses are coded at discharge, so a code is history only if the patient knew the condition on
arrival. Each code is decided once, with the rule that decided it (``history_rule``):

* any admission: never the codes of ``not_history_codes.csv`` with scope ``any`` (external causes,
  encounters, BMI values, restraint status, foreign bodies, lab-derived findings such as R74
  abnormal serum enzymes): ``not_history``.
* an EARLIER admission (discharged before this one began): every other code, ``earlier_admission``;
  the patient was told at that stay. This is also the evidence that a condition coded again at the
  current stay pre-dates it: the earlier unit carries it (same concept), so the current code adds
  nothing.
* the CURRENT admission: never the statuses and events the stay may create (scope ``same_stay``:
  Z79 long-term drug therapy, Z99.1 ventilator dependence, Z98 postprocedural states, myocardial
  infarction, stroke, injuries): ``same_stay``. A code that states a fact from before the stay by
  its meaning (history-of, family history, allergy status, tobacco use; ``history_categories.csv``
  ``known_on_arrival``) is ``known_on_arrival``. Otherwise a code is history only when HCUP's
  Chronic Condition Indicator calls it chronic (``chronic_codes.csv``) and its title does not
  name an event of the stay ("Acute on chronic diastolic heart failure", "... ulcer with
  hemorrhage"): ``chronic``, else ``acute_title`` or ``not_chronic``.

The unit category comes from ``history_categories.csv`` (``pmh`` when no row holds the code). The
current primary diagnosis's 3-character category (hence the code and every descendant) is never
history: callers drop it before asking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from pipelines.datafiles import csv_records
from pipelines.units.code_ranges import CodeRanges
from schemas.unit_candidates import CATEGORIES

HISTORY_CATEGORIES = ("allergy", "family", "social", "medication", "pmh", "psh")


@dataclass(frozen=True)
class Kind:
    category: str
    known_on_arrival: bool


def _load(name: str, columns: tuple[str, ...]):
    return csv_records(__package__, name, columns)


CHRONIC: CodeRanges[str] = CodeRanges.of(_load("chronic_codes.csv", ("first", "last", "why")), lambda r: r.text("why"))
_CATEGORIES = [c for c in CATEGORIES if c in HISTORY_CATEGORIES]
KINDS: CodeRanges[Kind] = CodeRanges.of(
    _load("history_categories.csv", ("first", "last", "category", "known_on_arrival", "why")),
    lambda r: Kind(r.choice("category", _CATEGORIES), r.flag("known_on_arrival")),
)
_SCOPED = [(r, r.choice("scope", ("any", "same_stay")))
           for r in _load("not_history_codes.csv", ("first", "last", "scope", "why"))]
NEVER: CodeRanges[str] = CodeRanges.of([r for r, scope in _SCOPED if scope == "any"], lambda r: r.text("why"))
SAME_STAY: CodeRanges[str] = CodeRanges.of([r for r, scope in _SCOPED if scope == "same_stay"],
                                           lambda r: r.text("why"))

# A title naming an event of the stay, so its condition may have been found there.
_EVENT_TITLE = re.compile(r"\bacute\b|\bwith (?:\w+ )?(?:hemorrhage|bleeding|perforation)\b", re.IGNORECASE)
DEFAULT = Kind("pmh", False)


def decide(code: str | None, title: str | None, *, current: bool) -> tuple[str | None, str]:
    """(unit category or None, history_rule) of a dotted ICD-10-CM code (see the module docstring)."""
    if not code:
        return None, "unmapped"
    if code in NEVER:
        return None, "not_history"
    kind = KINDS.find(code) or DEFAULT
    if not current:
        return kind.category, "earlier_admission"
    if code in SAME_STAY:
        return None, "same_stay"
    if kind.known_on_arrival:
        return kind.category, "known_on_arrival"
    if title and _EVENT_TITLE.search(title):
        return None, "acute_title"
    if code in CHRONIC:
        return kind.category, "chronic"
    return None, "not_chronic"


def known_before(code: str | None) -> bool:
    """The condition is one a patient lives with (chronic, not a stay event) or states a fact from
    before any stay; otherwise a code of an earlier stay records an episode of that stay."""
    return bool(code) and ((KINDS.find(code) or DEFAULT).known_on_arrival
                           or (code in CHRONIC and code not in SAME_STAY))


def with_categories(df: pl.DataFrame, *, current: bool) -> pl.DataFrame:
    """Add ``category`` (None = not history), ``history_rule`` and ``known`` (:func:`known_before`)
    to a frame with ``icd10_code`` (dotted) and ``title``; each distinct (code, title) pair is decided once."""
    pairs = df.select("icd10_code", "title").unique()
    decided = [decide(c, t, current=current) for c, t in pairs.iter_rows()]
    lookup = pairs.with_columns(
        pl.Series("category", [d[0] for d in decided], dtype=pl.Utf8),
        pl.Series("history_rule", [d[1] for d in decided], dtype=pl.Utf8),
        pl.Series("known", [known_before(c) for c, _ in pairs.iter_rows()], dtype=pl.Boolean),
    )
    return df.join(lookup, on=["icd10_code", "title"], how="left", nulls_equal=True, maintain_order="left")
