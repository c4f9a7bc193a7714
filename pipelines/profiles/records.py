"""The common shape both Synthea readers (FHIR bundles, Java CSV export) produce.

``patients``: one row per generated person (``PATIENT_SCHEMA``); ``conditions``: one row per
recorded condition (``CONDITION_SCHEMA``), SNOMED-coded, with onset and abatement dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

PATIENT_SCHEMA = {
    "pool_patient_id": pl.Utf8,
    "given_name": pl.Utf8,
    "family_name": pl.Utf8,
    "sex": pl.Utf8,
    "birth_date": pl.Date,
    "deceased_date": pl.Date,
    "marital_status": pl.Utf8,
    "race": pl.Utf8,
    "ethnicity": pl.Utf8,
    "language": pl.Utf8,
    "city": pl.Utf8,
    "state": pl.Utf8,
    "occupation_or_income": pl.Utf8,
    "source_file": pl.Utf8,
}
CONDITION_SCHEMA = {
    "pool_patient_id": pl.Utf8,
    "snomed_code": pl.Utf8,
    "display": pl.Utf8,
    "onset": pl.Date,
    "abatement": pl.Date,
}

# HL7 v3 MaritalStatus codes (FHIR Patient.maritalStatus, Java Synthea's MARITAL column).
MARITAL = {
    "A": "Annulled", "D": "Divorced", "I": "Interlocutory", "L": "Legally Separated",
    "M": "Married", "P": "Polygamous", "S": "Never Married", "T": "Domestic partner",
    "U": "Unmarried", "W": "Widowed",
}
SEX = {"female": "F", "male": "M", "f": "F", "m": "M"}

# Java Synthea appends digits to generated names ("Maude482"); a profile shows the plain name.
_NAME_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class PoolRecords:
    patients: pl.DataFrame
    conditions: pl.DataFrame

    @classmethod
    def from_rows(cls, patients: list[dict], conditions: list[dict]) -> "PoolRecords":
        return cls(pl.DataFrame(patients, schema=PATIENT_SCHEMA), pl.DataFrame(conditions, schema=CONDITION_SCHEMA))


def plain_name(name: str | None) -> str | None:
    if not name:
        return None
    cleaned = _NAME_DIGITS.sub("", name).strip()
    return cleaned or None


def plain_name_expr(column: str) -> pl.Expr:
    cleaned = pl.col(column).str.replace_all(r"\d+", "").str.strip_chars()
    return pl.when(cleaned.str.len_chars() > 0).then(cleaned).alias(column)


def capitalised(text: str | None) -> str | None:
    if not text:
        return None
    return text[:1].upper() + text[1:]
