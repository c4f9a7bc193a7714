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

from functools import cache
from pathlib import Path

import polars as pl

MAP_PATH = Path(__file__).with_name("snomed_icd10.csv")
SHOWN_KINDS = ("condition", "finding", "history", "social")
UNMAPPED = "unmapped"

# SNOMED CT fully specified names end in a semantic tag; a profile shows the plain name.
_SEMANTIC_TAG = r"\s*\((disorder|finding|situation|event|person|morphologic abnormality|procedure)\)$"


@cache
def snomed_map() -> pl.DataFrame:
    return pl.read_csv(MAP_PATH, comment_prefix="#", schema_overrides={"snomed_code": pl.Utf8, "icd10cm": pl.Utf8})


def map_conditions(conditions: pl.DataFrame) -> pl.DataFrame:
    """Add ``name``, ``icd10cm``, ``icd10_category`` and ``kind`` to SNOMED-coded conditions."""
    mapping = snomed_map().select("snomed_code", "icd10cm", "kind")
    return conditions.join(mapping, on="snomed_code", how="left").with_columns(
        name=pl.col("display").str.replace(_SEMANTIC_TAG, ""),
        icd10_category=pl.col("icd10cm").str.slice(0, 3),
        kind=pl.col("kind").fill_null(UNMAPPED),
    )
