import polars as pl

from pipelines.units import sicdb
from pipelines.warehouse import Warehouse

CASES = pl.DataFrame({
    "case_id": ["c_0000000000000001", "c_0000000000000002"], "split": ["train", "train"], "age": [65, 70],
    "sex": ["F", "M"], "primary_icd10": ["I21.4", "J18.9"], "primary_icd10_category": ["I21", "J18"],
    "primary_icd10_block": ["I20-I25", "J09-J18"], "sicdb_case_id": [11, 21], "sicdb_patient_id": [1, 2],
    "weight_g": [72000.0, 0.0], "height_cm": [168.0, 0.0], "offset_after_first_admission": [900_000, 0],
    "surgical_site": ["Herzchirurgie", None], "referring_unit": [None, None],
})


def test_sicdb_units_are_demographics_measurements_and_earlier_stays(tmp_path, staging_frame):
    warehouse = Warehouse(tmp_path)
    warehouse.write("sicdb_cases", staging_frame("sicdb_cases", pl.DataFrame({
        "CaseID": [10, 11, 12, 21], "PatientID": [1, 1, 1, 2], "ICD10Main": ["E11.9", "I21.4", "I21.0", "J18.9"],
        "ICD10MainText": ["Diabetes mellitus, Typ 2", "Herzinfarkt", "Herzinfarkt", "Pneumonie"],
        "TimeOfStay": [3600, 3600, 3600, 3600], "OffsetAfterFirstAdmission": [0, 900_000, 2_000_000, 0],
    })))
    units = sicdb.structured_units(warehouse, CASES)
    first = units.filter(pl.col("case_id") == "c_0000000000000001")
    assert first.filter(pl.col("disclosed"))["text"].to_list() == ["Age: 65 years", "Sex: female"]
    hidden = dict(first.filter(~pl.col("disclosed")).select("text", "category").iter_rows())
    assert hidden == {"I have type 2 diabetes": "pmh",
                      "Treated in intensive care once before": "pmh",
                      "Weight: 72.0 kg": "measurement", "Height: 168 cm": "measurement",
                      "Operation before this ICU stay (surgical site): Herzchirurgie": "hpi"}
    # weight and height 0 mean missing; a later stay is not history
    second = units.filter(pl.col("case_id") == "c_0000000000000002")
    assert second.filter(~pl.col("disclosed")).is_empty()
