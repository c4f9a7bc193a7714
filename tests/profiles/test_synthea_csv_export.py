from pathlib import Path

import polars as pl
import pytest

from pipelines.profiles.snomed import map_conditions
from pipelines.profiles.synthea_csv import read_csv_export

SYNTHEA_CSV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "synthea-csv-sample" / "csv"


@pytest.fixture(scope="module")
def sample():
    if not (SYNTHEA_CSV / "patients.csv").exists():
        pytest.skip(f"Java Synthea CSV sample not found at {SYNTHEA_CSV}")
    return read_csv_export(SYNTHEA_CSV)


def test_java_csv_patients(sample):
    patients = sample.patients
    assert patients.height == 59 and patients["pool_patient_id"].n_unique() == 59
    assert set(patients["sex"]) == {"F", "M"}
    assert not patients["given_name"].str.contains(r"\d").any() and not patients["family_name"].str.contains(r"\d").any()
    assert patients["birth_date"].null_count() == 0
    assert set(patients["ethnicity"]) <= {"Hispanic or Latino", "Not Hispanic or Latino"}
    assert patients["city"].null_count() == 0 and patients["state"].unique().to_list() == ["California"]


def test_java_csv_conditions_are_all_mapped(sample):
    conditions = map_conditions(sample.conditions)
    assert conditions.height == 1534
    assert conditions["onset"].null_count() == 0
    assert set(conditions["pool_patient_id"]) <= set(sample.patients["pool_patient_id"])
    assert conditions.filter(pl.col("kind") == "unmapped").is_empty()
    assert conditions.filter(pl.col("snomed_code") == "44054006")["icd10cm"].unique().to_list() == ["E11.9"]
