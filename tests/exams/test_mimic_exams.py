from datetime import datetime

import polars as pl

from pipelines.exams import mimic
from pipelines.warehouse import Warehouse

ADMIT = datetime(2150, 1, 1, 8, 0)
CASES = pl.DataFrame({"case_id": ["c_0000000000000001"], "subject_id": [1], "hadm_id": [10],
                      "admittime": [ADMIT], "dischtime": [datetime(2150, 1, 5)]})


def _lab(labevent_id, itemid, charttime, storetime, value, valuenum, flag=None, hadm_id=10, low=None, high=None):
    return {"labevent_id": labevent_id, "subject_id": 1, "hadm_id": hadm_id, "itemid": itemid, "charttime": charttime,
            "storetime": storetime, "value": value, "valuenum": valuenum, "valueuom": "g/dL",
            "ref_range_lower": low, "ref_range_upper": high, "flag": flag}


def test_first_result_per_item_is_the_first_known_by_storetime(tmp_path, staging_frame):
    warehouse = Warehouse(tmp_path)
    h = lambda hours: datetime(2150, 1, 1, 8 + hours)  # noqa: E731
    warehouse.write("mimic_labevents", staging_frame("mimic_labevents", pl.DataFrame([
        _lab(1, 51222, h(0), h(5), "9.0", 9.0, "abnormal", low=13.0, high=17.0),  # drawn first, known late
        _lab(2, 51222, h(1), h(2), "10.5", 10.5, low=13.0, high=17.0),  # drawn later, known first: wins
        _lab(3, 50912, h(0), None, "1.0", 1.0),  # never released
        _lab(4, 50912, h(3), h(4), "___", None),  # de-identified
        _lab(5, 50912, h(3), h(4), "2.5", 2.5, low=0.5, high=1.2),  # outside range, unflagged
        _lab(6, 50912, h(3), h(4), "0.9", 0.9),  # same storetime: the lower labevent_id won
        _lab(7, 51222, h(0), h(1), "8.0", 8.0, hadm_id=99),  # another admission
        _lab(8, 51300, h(0), h(1), "x", None),  # a tube hold
    ])))
    warehouse.write("mimic_d_labitems", staging_frame("mimic_d_labitems", pl.DataFrame({
        "itemid": [51222, 50912, 51300], "label": ["Hemoglobin", "Creatinine", "Red Top Hold"],
        "fluid": ["Blood", "Blood", "Blood"], "category": ["Hematology", "Chemistry", "Chemistry"]})))
    assert mimic.write_labs(warehouse, CASES).rows == 2
    rows = {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}
    assert rows["Hemoglobin"]["value_num"] == 10.5 and rows["Hemoglobin"]["abnormal"] is True
    assert rows["Hemoglobin"]["offset_hours"] == 2.0
    assert rows["Creatinine"]["value_num"] == 2.5 and rows["Creatinine"]["abnormal"] is True
    assert rows["Creatinine"]["source_ref"] == "mimic_labevents:itemid=50912"


def test_lab_names_are_qualified_by_fluid():
    items = mimic.lab_items(pl.DataFrame({
        "itemid": [1, 2, 3], "label": ["Glucose", "Glucose", "Sodium, Urine"], "fluid": ["Blood", "Urine", "Urine"],
        "category": ["Chemistry"] * 3}))
    assert items["exam_name"].to_list() == ["Glucose", "Glucose (Urine)", "Sodium, Urine"]


def test_microbiology_reports_organisms_of_the_first_specimen(tmp_path, staging_frame):
    warehouse = Warehouse(tmp_path)
    warehouse.write("mimic_microbiologyevents", staging_frame("mimic_microbiologyevents", pl.DataFrame({
        "microevent_id": [1, 2, 3, 4], "subject_id": [1] * 4, "hadm_id": [10] * 4,
        "chartdate": [datetime(2150, 1, 1)] * 4,
        "charttime": [datetime(2150, 1, 1, 9), datetime(2150, 1, 1, 9), datetime(2150, 1, 2, 9), datetime(2150, 1, 1, 9)],
        "spec_type_desc": ["URINE", "URINE", "URINE", "SPUTUM"], "storetime": [datetime(2150, 1, 3, 8)] * 4,
        "test_name": ["URINE CULTURE", "URINE CULTURE", "URINE CULTURE", "GRAM STAIN"],
        "org_name": ["ESCHERICHIA COLI", "ESCHERICHIA COLI", "KLEBSIELLA", None],
        "ab_name": ["AMPICILLIN", "CIPROFLOXACIN", None, None], "interpretation": ["R", "S", None, None],
        "comments": [None, None, None, "NO MICROORGANISMS SEEN.  "]})))
    mimic.write_microbiology(warehouse, CASES)
    rows = {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}
    assert rows["URINE CULTURE"]["value_text"] == "ESCHERICHIA COLI" and rows["URINE CULTURE"]["abnormal"]
    assert rows["GRAM STAIN (SPUTUM)"]["value_text"] == "NO MICROORGANISMS SEEN." and not rows["GRAM STAIN (SPUTUM)"]["abnormal"]
    assert rows["URINE CULTURE"]["offset_hours"] == 48.0


def test_vitals_without_chartevents_or_omr_leave_an_empty_partition(tmp_path):
    warehouse = Warehouse(tmp_path)
    written = mimic.write_vitals(warehouse, CASES)
    assert written.rows == 0 and "omr" in written.skipped
    assert warehouse.read("exam_candidates").is_empty()
