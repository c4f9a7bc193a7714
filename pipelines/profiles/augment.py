"""Profiles for a set of cases from an existing pool: matching plus personality, in batches."""

from __future__ import annotations

import polars as pl

import schemas
from pipelines.content.leakage_guard import case_terms
from pipelines.profiles.match import PATIENT_COLUMNS, match_profiles
from pipelines.profiles.personality import big_five
from pipelines.profiles.record import with_source_demographics, without_denied_conditions

# Matching builds (cases x pool patients of their stratum) pairs; batches bound that frame's size
# on full MIMIC-IV (~430k cases) without changing any result (every choice is per case).
BATCH_CASES = 100_000
# Patient-visible profile text, audited for diagnosis leakage.
TEXT_COLUMNS = ("profile_conditions", *PATIENT_COLUMNS)


def build_profiles(cases: pl.DataFrame, pool: pl.DataFrame, seed: int, batch_cases: int = BATCH_CASES,
                   source: pl.DataFrame | None = None, denied_units: pl.DataFrame | None = None) -> pl.DataFrame:
    """One profile per case (columns of schemas/profiles.py, in case order).

    ``cases`` needs ``case_id, sex, age, diagnosis_name, acceptable_names, primary_icd10,
    primary_icd10_category, secondary_icd10`` (the ``cases`` table has them all). The profile then
    agrees with the record (pipelines/profiles/record.py): ``source`` (record.source_demographics)
    replaces the generated demographics, and conditions that ``denied_units`` (case_id, text of the
    negated information units) deny are dropped.
    """
    columns = list(schemas.get("profiles").columns)
    terms = case_terms(cases)
    parts = []
    for offset in range(0, cases.height, batch_cases):
        batch = cases.slice(offset, batch_cases)
        matched = without_denied_conditions(with_source_demographics(match_profiles(batch, pool, seed, terms), source),
                                            denied_units)
        parts.append(matched.join(big_five(batch.select("case_id", "sex"), seed), on="case_id").select(columns))
    if not parts:
        return schemas.empty("profiles")
    order = cases.select("case_id").with_row_index("_order")
    return pl.concat(parts).join(order, on="case_id").sort("_order").drop("_order")
