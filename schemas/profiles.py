"""profiles: one generated person per case (data-contract.md)."""

import pandera.polars as pa
import polars as pl

from schemas._types import STR_LIST

TRAIT = pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0))

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, unique=True),
        "generator": pa.Column(pl.Utf8),
        "generator_patient_id": pa.Column(pl.Utf8),
        "given_name": pa.Column(pl.Utf8, nullable=True),
        "family_name": pa.Column(pl.Utf8, nullable=True),
        "marital_status": pa.Column(pl.Utf8, nullable=True),
        "race": pa.Column(pl.Utf8, nullable=True),
        "ethnicity": pa.Column(pl.Utf8, nullable=True),
        "language": pa.Column(pl.Utf8, nullable=True),
        "city": pa.Column(pl.Utf8, nullable=True),
        "state": pa.Column(pl.Utf8, nullable=True),
        "occupation_or_income": pa.Column(pl.Utf8, nullable=True),
        "profile_conditions": pa.Column(STR_LIST),
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
