"""Which coded diagnoses a patient can report as history, and under which unit category.

Diagnoses are only coded at discharge, so a code of the *current* admission may be shown as
history only if the condition is chronic, i.e. it was almost certainly known before the
admission. A code qualifies when its ICD-10-CM code falls into one of :data:`CHRONIC`
(``chronic_codes.csv`` beside this module, checked on load; first
matching rule wins, matched on the dotted code's prefix so that ``Z91.0`` can differ from
``Z91``) and its title does not call it acute (``Acute on chronic diastolic heart failure`` is
what brought the patient in, ``Chronic diastolic heart failure`` is what they already had).

Codes of *earlier* admissions are all history; they go through the same table for their
category and default to ``pmh``, except :data:`NOT_HISTORY` (``not_history_codes.csv``: external
causes, encounters, screening, aftercare, DNR status, BMI values), which describe a stay rather
than the patient.

The current primary diagnosis's 3-character category (hence the code and every descendant) is
never history: callers drop it before asking.
"""

from __future__ import annotations

import re

import polars as pl

from pipelines.datafiles import Record, csv_records
from schemas.unit_candidates import CATEGORIES

_PREFIX = re.compile(r"[A-Z][0-9][0-9A-Z](?:\.[0-9A-Z]{1,4})?")


def _range(record: Record) -> tuple[str, str]:
    first, last = record.text("first"), record.text("last")
    for field, value in (("first", first), ("last", last)):
        if not _PREFIX.fullmatch(value):
            raise record.error(field, f"{value!r} is not a dotted ICD-10-CM code prefix")
    if first[: len(last)] > last:
        raise record.error("last", f"range {first}-{last} is empty")
    return first, last


def _chronic() -> tuple[tuple[str, str, str, str], ...]:
    records = csv_records(__package__, "chronic_codes.csv", ("first", "last", "category", "why"))
    return tuple((*_range(r), r.choice("category", CATEGORIES), r.text("why")) for r in records)


def _not_history() -> tuple[tuple[str, str], ...]:
    return tuple(_range(r) for r in csv_records(__package__, "not_history_codes.csv", ("first", "last", "why")))


# (first, last, unit category, why): dotted-code prefixes compared on their own length.
CHRONIC: tuple[tuple[str, str, str, str], ...] = _chronic()
# Codes of earlier stays that describe the stay, not the patient: (first, last).
NOT_HISTORY: tuple[tuple[str, str], ...] = _not_history()

_ACUTE = re.compile(r"\bacute\b", re.IGNORECASE)


def _in(code: str, first: str, last: str) -> bool:
    return first <= code[: len(first)] and code[: len(last)] <= last


def chronic_category(code: str | None, title: str | None) -> str | None:
    """Unit category of a current-admission secondary code that counts as known history, else None."""
    if not code or (title and _ACUTE.search(title)):
        return None
    for first, last, category, _ in CHRONIC:
        if _in(code, first, last):
            return category
    return None


def history_category(code: str | None) -> str | None:
    """Unit category of an earlier admission's code (``pmh`` unless the table says otherwise)."""
    if not code or any(_in(code, first, last) for first, last in NOT_HISTORY):
        return None
    for first, last, category, _ in CHRONIC:
        if _in(code, first, last):
            return category
    return "pmh"


def with_categories(df: pl.DataFrame, *, current: bool) -> pl.DataFrame:
    """Add ``category`` to a frame with ``icd10_code`` (dotted) and ``title``; None = not history.

    Each distinct (code, title) pair is decided once.
    """
    pairs = df.select("icd10_code", "title").unique()
    decide = (lambda c, t: chronic_category(c, t)) if current else (lambda c, _t: history_category(c))
    lookup = pairs.with_columns(
        pl.Series("category", [decide(c, t) for c, t in pairs.iter_rows()], dtype=pl.Utf8)
    )
    return df.join(lookup, on=["icd10_code", "title"], how="left", nulls_equal=True, maintain_order="left")
