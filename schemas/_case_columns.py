"""Diagnosis columns shared by case_skeleton and cases (one definition, two tables)."""

import pandera.polars as pa
import polars as pl

from schemas._types import ICD_ORIGINS, SEXES, SOURCES, SPLITS, STR_LIST

CASE_ID = pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$"), unique=True)
ICD10_CODE = r"^[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$"

DIAGNOSIS_COLUMNS = {
    "case_id": CASE_ID,
    "source": pa.Column(pl.Utf8, pa.Check.isin(SOURCES)),
    "dataset": pa.Column(pl.Utf8),
    "split": pa.Column(pl.Utf8, pa.Check.isin(SPLITS)),
    "age": pa.Column(pl.Int32, pa.Check.in_range(0, 120), nullable=True),
    "sex": pa.Column(pl.Utf8, pa.Check.isin(SEXES), nullable=True),
    # When the doctor meets the patient (MIMIC-IV: admittime); null where the source has no clock
    # time (SICdb: offsets only; MedQA).
    "index_time": pa.Column(pl.Datetime("us"), nullable=True),
    "diagnosis_name": pa.Column(pl.Utf8),
    "acceptable_names": pa.Column(STR_LIST),
    "primary_icd10": pa.Column(pl.Utf8, pa.Check.str_matches(ICD10_CODE), nullable=True),
    "primary_icd10_category": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[A-Z][0-9][0-9A-Z]$"), nullable=True),
    "primary_icd10_block": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[A-Z][0-9][0-9A-Z]-[A-Z][0-9][0-9A-Z]$"), nullable=True),
    "primary_icd10_chapter": pa.Column(pl.Utf8, nullable=True),
    # Every ICD-10-CM code that counts as the right answer (all GEM targets of an ICD-9 code).
    "acceptable_icd10": pa.Column(STR_LIST),
    "icd_origin": pa.Column(pl.Utf8, pa.Check.isin(ICD_ORIGINS)),
    "secondary_icd10": pa.Column(STR_LIST),
    # The primary category was already coded at an earlier admission of the patient.
    "known_condition": pa.Column(pl.Boolean),
}

DIAGNOSIS_CHECKS = [
    pa.Check(
        lambda data: data.lazyframe.select(
            pl.when(pl.col("primary_icd10").is_null()).then(pl.col("acceptable_icd10").list.len() == 0)
            .otherwise(pl.col("acceptable_icd10").list.first() == pl.col("primary_icd10"))
        ),
        name="acceptable_icd10_starts_with_the_primary",
    ),
    pa.Check(
        lambda data: data.lazyframe.select(
            pl.col("acceptable_icd10").list.eval(pl.element().str.contains(ICD10_CODE)).list.all()
        ),
        name="acceptable_icd10_are_dotted_codes",
    ),
]
