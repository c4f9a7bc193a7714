"""Diagnosis columns shared by case_skeleton and cases (one definition, two tables)."""

import pandera.polars as pa
import polars as pl

from schemas._types import ICD_ORIGINS, SEXES, SOURCES, SPLITS, STR_LIST

CASE_ID = pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$"), unique=True)

DIAGNOSIS_COLUMNS = {
    "case_id": CASE_ID,
    "source": pa.Column(pl.Utf8, pa.Check.isin(SOURCES)),
    "dataset": pa.Column(pl.Utf8),
    "split": pa.Column(pl.Utf8, pa.Check.isin(SPLITS)),
    "age": pa.Column(pl.Int32, pa.Check.in_range(0, 120), nullable=True),
    "sex": pa.Column(pl.Utf8, pa.Check.isin(SEXES), nullable=True),
    "diagnosis_name": pa.Column(pl.Utf8),
    "acceptable_names": pa.Column(STR_LIST),
    "primary_icd10": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$"), nullable=True),
    "primary_icd10_category": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[A-Z][0-9][0-9A-Z]$"), nullable=True),
    "primary_icd10_block": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[A-Z][0-9][0-9A-Z]-[A-Z][0-9][0-9A-Z]$"), nullable=True),
    "primary_icd10_chapter": pa.Column(pl.Utf8, nullable=True),
    "icd_origin": pa.Column(pl.Utf8, pa.Check.isin(ICD_ORIGINS)),
    "secondary_icd10": pa.Column(STR_LIST),
}
