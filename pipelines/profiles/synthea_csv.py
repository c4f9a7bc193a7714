"""Java Synthea's CSV export (``exporter.csv.export = true``) -> pool patient records.

Layout (see ../shared/data/synthea-csv-sample/csv): ``patients.csv`` with ``Id, BIRTHDATE,
DEATHDATE, ..., FIRST, LAST, MARITAL, RACE, ETHNICITY, GENDER, ..., CITY, STATE, ...`` (newer
releases add ``INCOME``), and ``conditions.csv`` with ``START, STOP, PATIENT, ENCOUNTER, CODE,
DESCRIPTION`` (newer releases add ``SYSTEM``).  The CSV export has no language column.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.profiles.records import CONDITION_SCHEMA, MARITAL, PATIENT_SCHEMA, PoolRecords, plain_name_expr

# Java Synthea's race/ethnicity words -> the OMB category names US Core FHIR uses.
RACE = {
    "white": "White", "black": "Black or African American", "asian": "Asian",
    "native": "American Indian or Alaska Native", "hawaiian": "Native Hawaiian or Other Pacific Islander",
    "other": "Other Race",
}
ETHNICITY = {"hispanic": "Hispanic or Latino", "nonhispanic": "Not Hispanic or Latino"}


def _day(column: str) -> pl.Expr:
    return pl.col(column).str.slice(0, 10).str.to_date("%Y-%m-%d", strict=False)


def read_csv_export(csv_dir: Path, relative_to: Path | None = None) -> PoolRecords:
    patients_path = csv_dir / "patients.csv"
    source = str(patients_path.relative_to(relative_to) if relative_to else patients_path.name)
    raw = pl.read_csv(patients_path, infer_schema=False)
    income = (
        pl.when(pl.col("INCOME").is_not_null()).then(pl.format("household income {} USD/year", pl.col("INCOME")))
        if "INCOME" in raw.columns else pl.lit(None, dtype=pl.Utf8)
    )
    patients = raw.select(
        pl.col("Id").alias("pool_patient_id"),
        plain_name_expr("FIRST").alias("given_name"),
        plain_name_expr("LAST").alias("family_name"),
        pl.col("GENDER").str.to_uppercase().alias("sex"),
        _day("BIRTHDATE").alias("birth_date"),
        _day("DEATHDATE").alias("deceased_date"),
        pl.col("MARITAL").replace_strict(MARITAL, default=None, return_dtype=pl.Utf8).alias("marital_status"),
        pl.col("RACE").replace_strict(RACE, default=pl.col("RACE"), return_dtype=pl.Utf8).alias("race"),
        pl.col("ETHNICITY").replace_strict(ETHNICITY, default=pl.col("ETHNICITY"), return_dtype=pl.Utf8)
        .alias("ethnicity"),
        pl.lit(None, dtype=pl.Utf8).alias("language"),
        pl.col("CITY").alias("city"),
        pl.col("STATE").alias("state"),
        income.alias("occupation_or_income"),
        pl.lit(source).alias("source_file"),
    ).cast(PATIENT_SCHEMA)
    conditions = pl.read_csv(csv_dir / "conditions.csv", infer_schema=False)
    if "SYSTEM" in conditions.columns:  # newer exports mix SNOMED with other systems
        conditions = conditions.filter(pl.col("SYSTEM").is_null() | pl.col("SYSTEM").str.contains("(?i)snomed"))
    conditions = conditions.select(
        pl.col("PATIENT").alias("pool_patient_id"),
        pl.col("CODE").alias("snomed_code"),
        pl.col("DESCRIPTION").alias("display"),
        _day("START").alias("onset"),
        _day("STOP").alias("abatement"),
    ).filter(pl.col("onset").is_not_null()).cast(CONDITION_SCHEMA)
    return PoolRecords(patients, conditions)
