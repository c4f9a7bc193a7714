from datetime import datetime

import polars as pl

from pipelines.units import mimic
from pipelines.warehouse import Warehouse

CASE = "c_0000000000000001"
CASES = pl.DataFrame({
    "case_id": [CASE], "split": ["train"], "age": [70], "sex": ["M"], "primary_icd10": ["I61.9"],
    "primary_icd10_category": ["I61"], "primary_icd10_block": ["I60-I69"], "subject_id": [1], "hadm_id": [20],
    "admittime": [datetime(2150, 3, 1, 8)], "dischtime": [datetime(2150, 3, 9)], "admission_type": ["EW EMER."],
    "admission_location": ["EMERGENCY ROOM"], "marital_status": ["MARRIED"], "language": ["ENGLISH"],
})
EARLIER_DISCHARGE = datetime(2149, 6, 10, 14)


def _warehouse(tmp_path, staging_frame, extra_codes=(), extra_titles=None) -> Warehouse:
    wh = Warehouse(tmp_path)
    wh.write("mimic_admissions", staging_frame("mimic_admissions", pl.DataFrame({
        "subject_id": [1, 1], "hadm_id": [10, 20], "admittime": [datetime(2149, 6, 1), CASES["admittime"][0]],
        "dischtime": [EARLIER_DISCHARGE, CASES["dischtime"][0]]})))
    codes = [(10, 1, "I639", "10"), (10, 2, "I10", "10"), (10, 3, "R748", "10"), (10, 4, "Z7901", "10"),
             (20, 1, "I619", "10"), (20, 2, "E119", "10"), (20, 3, "Z9911", "10"), (20, 4, "Z7901", "10"),
             (20, 5, "Z781", "10"), (20, 6, "J189", "10"), (20, 7, "I10", "10"), (20, 8, "Z87891", "10"),
             *extra_codes]
    wh.write("mimic_diagnoses_icd", staging_frame("mimic_diagnoses_icd", pl.DataFrame(
        codes, schema=["hadm_id", "seq_num", "icd_code", "icd_version"], orient="row").with_columns(
        pl.lit(1).alias("subject_id"), pl.col("icd_version").cast(pl.Int32))))
    titles = {"I639": "Cerebral infarction, unspecified", "I10": "Essential (primary) hypertension",
              "R748": "Abnormal levels of other serum enzymes", "Z7901": "Long term (current) use of anticoagulants",
              "I619": "Nontraumatic intracerebral hemorrhage, unspecified",
              "E119": "Type 2 diabetes mellitus without complications",
              "Z9911": "Dependence on respirator [ventilator] status", "Z781": "Physical restraint status",
              "J189": "Pneumonia, unspecified organism", "Z87891": "Personal history of nicotine dependence",
              **(extra_titles or {})}
    wh.write("mimic_d_icd_diagnoses", staging_frame("mimic_d_icd_diagnoses", pl.DataFrame(
        {"icd_code": list(titles), "icd_version": [10] * len(titles), "long_title": list(titles.values())})))
    stop, early = datetime(2149, 6, 10, 18), datetime(2149, 6, 5)
    orders = [("Warfarin", "5", "mg", "PO", "1", stop), ("Heparin", "5000", "UNIT", "SC", "3", stop),
              ("Insulin", "0", "UNIT", "SC", "1", stop), ("Multivitamins", "1", "TAB", "PO/NG", "1", stop),
              ("Ondansetron", "4", "mg", "PO", None, stop), ("Atorvastatin", "40", "mg", "PO", "1", early)]
    wh.write("mimic_prescriptions", staging_frame("mimic_prescriptions", pl.DataFrame(
        orders, schema=["drug", "dose_val_rx", "dose_unit_rx", "route", "doses_per_24_hrs", "stoptime"], orient="row",
    ).with_columns(pl.lit(1).alias("subject_id"), pl.lit(10).alias("hadm_id"), pl.lit("MAIN").alias("drug_type"),
                   pl.lit(datetime(2149, 6, 2)).alias("starttime"))))
    return wh


def test_history_is_what_the_patient_knew_on_arrival_in_their_words(tmp_path, staging_frame):
    units = mimic.structured_units(_warehouse(tmp_path, staging_frame), CASES)
    history = dict(units.filter(pl.col("category").is_in(["pmh", "social", "medication"])
                                & ~pl.col("source_ref").str.starts_with("mimic_admissions"))
                   .select("text", "source_ref").iter_rows())
    assert history == {
        # earlier admission: its codes are history, lab findings are not
        "I had a stroke before": "mimic_diagnoses_icd:prior:icd10:I639",
        "I have high blood pressure": "mimic_diagnoses_icd:prior:icd10:I10",
        "I take a blood thinner": "mimic_diagnoses_icd:prior:icd10:Z7901",
        # this admission: chronic or known by definition; never ventilator dependence, restraints, pneumonia
        "I have type 2 diabetes": "mimic_diagnoses_icd:current:icd10:E119",
        "I used to smoke": "mimic_diagnoses_icd:current:icd10:Z87891",
        # home medication: the earlier discharge's scheduled outpatient orders only
        "I take warfarin 5 mg": "mimic_prescriptions:prior_discharge:Warfarin",
    }


def test_of_two_kinds_of_diabetes_the_latest_coding_is_told_and_the_other_is_a_reject(tmp_path, staging_frame):
    """Type 1 coded at the earlier stay, type 2 (E11.9) at this one, and a diabetes due to an underlying
    condition after it: the patient has one kind of diabetes, this stay's first coded."""
    extra = [(10, 5, "E1010", "10"), (20, 9, "E0842", "10")]
    titles = {"E1010": "Type 1 diabetes mellitus with ketoacidosis without coma",
              "E0842": "Diabetes mellitus due to underlying condition with diabetic polyneuropathy"}
    history = mimic.diagnosis_history(_warehouse(tmp_path, staging_frame, extra, titles), CASES)
    told = history.units.filter(pl.col("concept").str.contains(r"^icd10:E(0[89]|1[0-3])$"))
    assert told.select("text", "source_ref").rows() == [
        ("I have type 2 diabetes", "mimic_diagnoses_icd:current:icd10:E119")]
    rejects = history.rejects.sort("row_key")
    assert rejects["row_key"].to_list() == [f"case_id={CASE},mimic_diagnoses_icd:current:icd10:E0842",
                                            f"case_id={CASE},mimic_diagnoses_icd:prior:icd10:E1010"]
    why = "superseded by the later coding icd10:E11: one kind of diabetes"
    assert all(r.startswith(why) for r in rejects["reason"])
    assert rejects["raw"][1] == "I have type 1 diabetes"
    # the other history is untouched, and structured_units tells what diagnosis_history keeps
    units = mimic.structured_units(_warehouse(tmp_path / "again", staging_frame, extra, titles), CASES, history=history)
    assert "I have type 1 diabetes" not in units["text"].to_list()
    assert "I have high blood pressure" in units["text"].to_list()


def test_an_impossible_outpatient_measurement_is_a_reject_and_the_last_possible_one_is_told(tmp_path, staging_frame):
    wh = _warehouse(tmp_path, staging_frame)
    readings = [(datetime(2150, 2, 1), 1, "BMI (kg/m2)", "4649.4"), (datetime(2149, 12, 1), 1, "BMI (kg/m2)", "27.1"),
                (datetime(2150, 2, 1), 1, "Height (Inches)", "5"), (datetime(2150, 2, 1), 1, "Weight (Lbs)", "180"),
                (datetime(2150, 3, 1), 1, "Weight (Lbs)", "999")]  # the admission day: not before it
    wh.write("mimic_omr", staging_frame("mimic_omr", pl.DataFrame(
        readings, schema=["chartdate", "seq_num", "result_name", "result_value"], orient="row",
    ).with_columns(pl.lit(1).alias("subject_id"), pl.col("chartdate").dt.date())))
    measurements = mimic.prior_measurements(wh, CASES)
    units = mimic.structured_units(wh, CASES, measurements=measurements)
    told = units.filter(pl.col("category") == "measurement")["text"].sort().to_list()
    assert told == ["Last outpatient BMI: 27.1 kg/m2", "Last outpatient weight: 180 lbs"]
    rejects = dict(measurements.rejects.select("raw", "reason").iter_rows())
    assert rejects == {"4649.4": "implausible BMI (kg/m2): 4649.4 kg/m2 (possible 10-100)",
                       "5": "implausible Height (Inches): 5 Inches (possible 47-95)"}
    assert set(measurements.rejects["file"]) == {"hosp/omr.csv.gz"}
