"""SNOMED CT -> ICD-10-CM for the conditions Synthea emits (package data ``snomed_icd10.csv``).

The table's header says how it was made.  Rules that rest on it:

* ``kind`` ``condition``/``finding``/``history``/``social`` with an ICD-10-CM code may appear in a
  profile; ``death`` rows are death records and ``situation`` rows are administrative or
  "suspected" states: never shown.
* Safe rule for anything without an ICD-10-CM code (including SNOMED codes missing from the
  table, e.g. from a newer Synthea): it is kept in the pool but never shown in a profile, because
  it cannot be checked against the primary diagnosis's ICD-10 category.
"""

from __future__ import annotations

import re
from functools import cache

import polars as pl

from pipelines.datafiles import Record, csv_records, unique

MAP_FILE = "snomed_icd10.csv"
COLUMNS = ("snomed_code", "icd10cm", "kind", "snomed_display")
SHOWN_KINDS = ("condition", "finding", "history", "social")
KINDS = (*SHOWN_KINDS, "death", "situation")
UNMAPPED = "unmapped"
_SNOMED = re.compile(r"[0-9]{6,18}")
_ICD10 = re.compile(r"[A-Z][0-9][0-9A-Z](?:\.[0-9A-Z]{1,4})?")

# SNOMED CT fully specified names end in a semantic tag; a profile shows the plain name.
_SEMANTIC_TAG = r"\s*\((disorder|finding|situation|event|person|morphologic abnormality|procedure)\)$"


def _row(record: Record) -> tuple[str | None, ...]:
    if not _SNOMED.fullmatch(record.text("snomed_code")):
        raise record.error("snomed_code", "is not a SNOMED CT concept id")
    code = record.text("icd10cm", None)
    if code is not None and not _ICD10.fullmatch(code):
        raise record.error("icd10cm", f"{code!r} is not a dotted ICD-10-CM code")
    if record.choice("kind", KINDS) not in SHOWN_KINDS and code is not None:
        raise record.error("icd10cm", "death and situation rows are never shown and take no code")
    return tuple(record.text(c, None) for c in COLUMNS)


@cache
def snomed_map() -> pl.DataFrame:
    """One row per SNOMED code: ``snomed_code``, ``icd10cm`` (null when none), ``kind``, ``snomed_display``."""
    records = csv_records(__package__, MAP_FILE, COLUMNS)
    unique(records, "snomed_code")
    return pl.DataFrame([_row(r) for r in records], schema={c: pl.Utf8 for c in COLUMNS}, orient="row")


def map_conditions(conditions: pl.DataFrame) -> pl.DataFrame:
    """Add ``name``, ``icd10cm``, ``icd10_category`` and ``kind`` to SNOMED-coded conditions."""
    mapping = snomed_map().select("snomed_code", "icd10cm", "kind")
    return conditions.join(mapping, on="snomed_code", how="left").with_columns(
        name=pl.col("display").str.replace(_SEMANTIC_TAG, ""),
        icd10_category=pl.col("icd10cm").str.slice(0, 3),
        kind=pl.col("kind").fill_null(UNMAPPED),
    )
