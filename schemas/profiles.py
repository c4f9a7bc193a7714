"""profiles: one generated person per case (data-contract.md).

Added to the contract's columns: ``pool_stratum`` (the synthea_pool partition that
``generator_patient_id`` lives in), ``profile_conditions_icd10`` (the ICD-10-CM code of each entry
of ``profile_conditions``, same order, so checks can prove none is in the primary's category) and
``match_overlap`` (how many of the case's secondary-diagnosis categories the pool patient shares).
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID
from schemas._person_columns import DEMOGRAPHIC_COLUMNS, GENERATOR, NAME_COLUMNS, STRATUM
from schemas._types import STR_LIST

TRAIT = pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0))

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": CASE_ID,
        "generator": GENERATOR,
        "generator_patient_id": pa.Column(pl.Utf8),
        "pool_stratum": STRATUM,
        **NAME_COLUMNS,
        **DEMOGRAPHIC_COLUMNS,
        "profile_conditions": pa.Column(STR_LIST),
        "profile_conditions_icd10": pa.Column(STR_LIST),
        "match_overlap": pa.Column(pl.Int32, pa.Check.ge(0)),
        "openness": TRAIT,
        "conscientiousness": TRAIT,
        "extraversion": TRAIT,
        "agreeableness": TRAIT,
        "neuroticism": TRAIT,
        "speech_style": pa.Column(pl.Utf8),
    },
    name="profiles",
    strict=True,
    coerce=True,
)
