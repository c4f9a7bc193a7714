"""MIMIC-IV-ED medrecon: the reconciled list is the home medications of the admission's ED stay,
supplies left out, and it replaces the prior discharge's prescriptions of that case only."""

from datetime import datetime

import polars as pl

from pipelines.units import mimic
from pipelines.units.ed_medrecon import reconciled_medications
from pipelines.warehouse import Warehouse

ED_CASE, OTHER = "c_00000000000000e1", "c_00000000000000e2"
ADMIT = datetime(2150, 3, 1, 12)
CASES = pl.DataFrame({
    "case_id": [ED_CASE, OTHER], "split": ["train", "train"], "age": [70, 60], "sex": ["M", "F"],
    "primary_icd10": ["I61.9", "I61.9"], "primary_icd10_category": ["I61", "I61"],
    "primary_icd10_block": ["I60-I69", "I60-I69"], "subject_id": [1, 2], "hadm_id": [20, 40],
    "admittime": [ADMIT, ADMIT], "dischtime": [datetime(2150, 3, 9)] * 2, "admission_type": ["EW EMER."] * 2,
    "admission_location": ["EMERGENCY ROOM"] * 2, "marital_status": ["?", "?"], "language": ["?", "?"],
})


def _warehouse(tmp_path, staging_frame) -> Warehouse:
    wh = Warehouse(tmp_path)
    wh.write("ed_edstays", staging_frame("ed_edstays", pl.DataFrame({
        "subject_id": [1, 1, 2], "hadm_id": [20, None, None], "stay_id": [300, 301, 400],
        "intime": [datetime(2150, 3, 1, 6), datetime(2150, 2, 1, 6), datetime(2150, 3, 1, 6)]})))
    t = datetime(2150, 3, 1, 7)
    rows = [(300, "aspirin", None), (300, "aspirin", "Platelet Aggregation Inhibitors"),  # two FDB classes, one drug
            (300, "*iron liquid ", None), (300, "divalproex [Depakote]", "Anticonvulsant"),
            (300, "lancets", "Medical Supplies and DME - Glucose Monitoring Test Supplies"),
            (300, "lancets", "Medical Supply, FDB Superset"), (300, "blood-glucose meter", None),
            (301, "warfarin", None),  # a visit sent home: not this admission's stay
            (400, "metformin", None)]  # a stay of no case's admission
    wh.write("ed_medrecon", staging_frame("ed_medrecon", pl.DataFrame(
        rows, schema=["stay_id", "name", "etcdescription"], orient="row").with_columns(pl.lit(t).alias("charttime"))))
    wh.write("mimic_admissions", staging_frame("mimic_admissions", pl.DataFrame({
        "subject_id": [1, 1, 2, 2], "hadm_id": [10, 20, 30, 40],
        "admittime": [datetime(2149, 6, 1), ADMIT, datetime(2149, 6, 1), ADMIT],
        "dischtime": [datetime(2149, 6, 10, 14), datetime(2150, 3, 9), datetime(2149, 6, 10, 14), datetime(2150, 3, 9)]})))
    wh.write("mimic_diagnoses_icd", staging_frame("mimic_diagnoses_icd", pl.DataFrame(
        {"subject_id": [1, 2], "hadm_id": [20, 40], "seq_num": [1, 1], "icd_code": ["I619", "I619"],
         "icd_version": [10, 10]})))
    wh.write("mimic_d_icd_diagnoses", staging_frame("mimic_d_icd_diagnoses", pl.DataFrame(
        {"icd_code": ["I619"], "icd_version": [10], "long_title": ["Nontraumatic intracerebral hemorrhage, unspecified"]})))
    wh.write("mimic_prescriptions", staging_frame("mimic_prescriptions", pl.DataFrame({
        "subject_id": [1, 2], "hadm_id": [10, 30], "drug": ["Atorvastatin", "Lisinopril"], "dose_val_rx": ["40", "10"],
        "dose_unit_rx": ["mg", "mg"], "route": ["PO", "PO"], "doses_per_24_hrs": ["1", "1"], "drug_type": ["MAIN"] * 2,
        "starttime": [datetime(2149, 6, 2)] * 2, "stoptime": [datetime(2149, 6, 10, 18)] * 2})))
    return wh


def test_the_reconciled_list_is_the_stays_drugs_without_supplies(tmp_path, staging_frame):
    meds = reconciled_medications(_warehouse(tmp_path, staging_frame), CASES)
    assert meds.select("case_id", "drug", "source_ref").rows() == [
        (ED_CASE, "aspirin", "ed_medrecon:aspirin"), (ED_CASE, "divalproex", "ed_medrecon:divalproex"),
        (ED_CASE, "iron liquid", "ed_medrecon:iron liquid")]


def test_it_replaces_the_prior_discharge_of_that_case_only(tmp_path, staging_frame):
    wh = _warehouse(tmp_path, staging_frame)
    units = mimic.structured_units(wh, CASES, home_medications=reconciled_medications(wh, CASES))
    meds = dict(units.filter(pl.col("category") == "medication").group_by("case_id").agg(
        pl.col("text").sort()).iter_rows())
    assert meds == {ED_CASE: ["I take aspirin", "I take divalproex", "I take iron liquid"],
                    OTHER: ["I take lisinopril 10 mg"]}
    without = mimic.structured_units(wh, CASES)  # no ED module: the prior discharge for both
    assert without.filter(pl.col("category") == "medication")["text"].sort().to_list() == [
        "I take atorvastatin 40 mg", "I take lisinopril 10 mg"]
