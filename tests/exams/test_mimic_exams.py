from datetime import datetime, timedelta

import polars as pl
import pytest

from pipelines.exams import mimic
from pipelines.exams.window import ExamWindow
from pipelines.warehouse import Warehouse

ADMIT = datetime(2150, 1, 1, 8, 0)
CASES = pl.DataFrame({"case_id": ["c_0000000000000001"], "subject_id": [1], "hadm_id": [10],
                      "admittime": [ADMIT], "dischtime": [datetime(2150, 1, 5)]})


def h(hours: float) -> datetime:
    return ADMIT + timedelta(hours=hours)


def _lab(labevent_id, itemid, charttime, storetime, value, valuenum, flag=None, hadm_id=10, low=None, high=None,
         comments=None):
    return {"labevent_id": labevent_id, "subject_id": 1, "hadm_id": hadm_id, "itemid": itemid, "charttime": charttime,
            "storetime": storetime, "value": value, "valuenum": valuenum, "valueuom": "g/dL",
            "ref_range_lower": low, "ref_range_upper": high, "flag": flag, "comments": comments}


LABELS = {51222: ("Hemoglobin", "Blood"), 50912: ("Creatinine", "Blood"), 51300: ("Red Top Hold", "Blood"),
          51003: ("Troponin T", "Blood"), 51464: ("Bilirubin", "Urine"), 51516: ("WBC", "Urine"),
          50920: ("Estimated GFR (MDRD equation)", "Blood"), 51214: ("Fibrinogen, Functional", "Blood"),
          51266: ("Platelet Smear", "Blood"), 50931: ("Glucose", "Blood"),
          51059: ("Total Protein, Pleural", "Pleural"), 51060: ("Polys", "Pleural"), 51487: ("Nitrite", "Urine"),
          51486: ("Leukocytes", "Urine"), 51508: ("Urine Color", "Urine"), 51484: ("Ketone", "Urine"),
          50889: ("C-Reactive Protein", "Blood"), 51613: ("CD34", "Bone Marrow"), 51275: ("PTT", "Blood")}


def _warehouse(tmp_path, staging_frame, labs, edregtime=None) -> Warehouse:
    warehouse = Warehouse(tmp_path)
    warehouse.write("mimic_admissions", staging_frame("mimic_admissions", pl.DataFrame({
        "subject_id": [1], "hadm_id": [10], "admittime": [ADMIT], "dischtime": [datetime(2150, 1, 5)],
        "edregtime": [edregtime]}, schema_overrides={"edregtime": pl.Datetime})))
    warehouse.write("mimic_labevents", staging_frame("mimic_labevents", pl.DataFrame(labs)))
    warehouse.write("mimic_d_labitems", staging_frame("mimic_d_labitems", pl.DataFrame({
        "itemid": list(LABELS), "label": [v[0] for v in LABELS.values()], "fluid": [v[1] for v in LABELS.values()],
        "category": ["Chemistry"] * len(LABELS)})))
    return warehouse


def _labs(warehouse: Warehouse, window: ExamWindow = ExamWindow()) -> dict[str, dict]:
    mimic.write_labs(warehouse, CASES, window)
    return {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}


def test_first_result_per_item_is_the_first_known_by_storetime(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 51222, h(0), h(5), "9.0", 9.0, "abnormal", low=13.0, high=17.0),  # drawn first, known late
        _lab(2, 51222, h(1), h(2), "10.5", 10.5, low=13.0, high=17.0),  # drawn later, known first: wins
        _lab(3, 50912, h(0), None, "1.0", 1.0),  # never released
        _lab(4, 50912, h(3), h(4), "___", None),  # de-identified
        _lab(5, 50912, h(3), h(4), "2.5", 2.5, low=0.5, high=1.2),  # outside range, unflagged
        _lab(6, 50912, h(3), h(4), "0.9", 0.9),  # same storetime: the lower labevent_id won
        _lab(7, 51222, h(0), h(1), "8.0", 8.0, hadm_id=99),  # another admission
        _lab(8, 51300, h(0), h(1), "x", None),  # a tube hold
    ])
    written, monitored = mimic.write_labs(warehouse, CASES)
    assert (written.rows, monitored) == (2, 0)
    rows = {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}
    assert rows["Hemoglobin"]["value_num"] == 10.5 and rows["Hemoglobin"]["abnormal"] is True
    assert rows["Hemoglobin"]["offset_hours"] == 2.0
    assert rows["Creatinine"]["value_num"] == 2.5 and rows["Creatinine"]["abnormal"] is True
    assert rows["Creatinine"]["source_ref"] == "mimic_labevents:itemid=50912"


def test_results_are_charted_in_the_window_and_stored_before_it_closes(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 51222, h(23), h(25), "9.0", 9.0),  # charted in the window, stored after it closed
        _lab(2, 51222, h(30), h(31), "9.5", 9.5),  # charted after the window
        _lab(3, 50912, h(-3), h(-2), "1.4", 1.4, hadm_id=None),  # ED lab without hadm_id, within the lookback
        _lab(4, 50912, h(-1), h(-0.5), "1.1", 1.1, hadm_id=None),
        _lab(5, 50931, h(-8), h(-7), "99", 99.0, hadm_id=None),  # before the lookback: an earlier visit
        _lab(6, 51003, h(2), h(3), "0.02", 0.02, hadm_id=77),  # another admission in the same hours
    ])
    rows = _labs(warehouse)
    assert set(rows) == {"Creatinine"}
    assert rows["Creatinine"]["value_num"] == 1.4 and rows["Creatinine"]["offset_hours"] == -2.0
    assert set(_labs(warehouse, ExamWindow(hours=30))) == {"Creatinine", "Hemoglobin"}
    assert "Glucose" in _labs(warehouse, ExamWindow(lookback_hours=9))


def test_the_ed_registration_opens_the_window(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 50931, h(-8), h(-7), "99", 99.0, hadm_id=None),  # after ED registration: the same encounter
        _lab(2, 50912, h(-11), h(-10), "1.0", 1.0, hadm_id=None),  # before it
    ], edregtime=h(-9))
    assert set(_labs(warehouse)) == {"Glucose"}


def test_the_window_closes_at_discharge_when_the_stay_is_shorter():
    cases = CASES.with_columns(pl.lit(h(10)).alias("dischtime"))
    bounds = ExamWindow().bounds(cases, pl.DataFrame({"hadm_id": [10], "edregtime": [None]},
                                                     schema_overrides={"edregtime": pl.Datetime}))
    assert bounds.row(0, named=True)["window_end"] == h(10)
    assert bounds.row(0, named=True)["window_start"] == h(-6)
    indexed = ExamWindow(hours=12).bounds(CASES.with_columns(pl.lit(h(3)).alias("index_time")),
                                          pl.DataFrame({"hadm_id": [10], "edregtime": [h(-2)]}))
    assert indexed.select("index_time", "window_start", "window_end").row(0) == (h(3), h(-2), h(15))


def test_values_written_as_placeholder_or_only_in_comments_are_results(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 50931, h(1), h(2), "___", 126.0, comments="If fasting, 70-100 normal."),  # number behind '___'
        _lab(2, 51003, h(1), h(2), None, None, low=0.0, high=0.01,
             comments="<0.01.  CTROPNT > 0.10 NG/ML SUGGESTS ACUTE MI."),
        _lab(3, 51464, h(1), h(2), None, None, comments="NEG."),
        _lab(4, 51516, h(1), h(2), None, None, comments=">182*."),  # '*': MIMIC's abnormal mark
        _lab(5, 50912, h(1), h(2), None, None, comments="___"),  # a de-identified comment is no result
        _lab(6, 51214, h(1), h(2), None, None, comments="UNABLE TO REPORT.  SPECIMEN CLOTTED."),
        _lab(7, 50920, h(1), h(2), None, None, comments="Using this patient's age, gender, and serum creatinine "
                                                        "value of 0.7, .  Estimated GFR = >75 if non African-American"),
        _lab(8, 51266, h(1), h(2), None, None, comments="AVAILABLE AT THE ___ LAB."),
    ])
    rows = _labs(warehouse)
    assert set(rows) == {"Glucose", "Troponin T", "Bilirubin (Urine)", "WBC (Urine)"}
    assert (rows["Glucose"]["value_num"], rows["Glucose"]["value_text"]) == (126.0, "126")
    assert rows["Troponin T"]["value_text"] == "<0.01" and rows["Troponin T"]["abnormal"] is False
    assert rows["Bilirubin (Urine)"]["value_text"] == "NEG"
    assert rows["WBC (Urine)"]["value_text"] == ">182" and rows["WBC (Urine)"]["abnormal"] is True


def test_an_unflagged_result_is_normal_only_when_its_range_or_its_text_says_so(tmp_path, staging_frame):
    """MIMIC leaves most positive drug screens, urine nitrites and large urine blood unflagged (on
    the real demo 22 of 23 "POS" values): unflagged is no normal. A value the range cannot judge and
    qualitative_values.csv cannot read stays unknown; a placeholder "DONE" is no result."""
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 51487, h(1), h(2), "POS", None),
        _lab(2, 51486, h(1), h(2), "LG", None),
        _lab(3, 51508, h(1), h(2), "Straw", None),
        _lab(4, 51484, h(1), h(2), "FEW", None),  # no reading: unknown
        _lab(5, 50889, h(1), h(2), "12.5", 12.5),  # a number without a range: unknown
        _lab(6, 51222, h(1), h(2), "<5", None, low=12.0, high=16.0),  # the bound settles it: low
        _lab(7, 50912, h(1), h(2), "GREATER THAN 9", None, low=0.5, high=1.2),
        _lab(8, 51214, h(1), h(2), "<150", None, low=180.0, high=400.0),
        _lab(9, 50931, h(1), h(2), ">90", None, low=70.0, high=100.0),  # could be either: unknown
        _lab(10, 51613, h(1), h(2), "DONE", None),  # the result is in the pathology report
    ])
    abnormal = {name: row["abnormal"] for name, row in _labs(warehouse).items()}
    assert abnormal == {"Nitrite (Urine)": True, "Leukocytes (Urine)": True, "Urine Color": False,
                        "Ketone (Urine)": None, "C-Reactive Protein": None, "Hemoglobin": True, "Creatinine": True,
                        "Fibrinogen, Functional": True, "Glucose": None}


def test_procedure_specimens_are_named_after_their_procedure(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 51059, h(5), h(6), "4.0", 4.0),
        _lab(2, 51060, h(5), h(6), "70", 70.0),
    ])
    rows = _labs(warehouse)
    assert set(rows) == {"Pleural fluid: Total Protein", "Pleural fluid: Polys"}
    # the source name (a catalog alias) keeps the specimen: a bare "Polys" never reaches it
    assert rows["Pleural fluid: Polys"]["raw_name"] == "Polys (Pleural)"


def test_lab_names_are_qualified_by_fluid():
    items = mimic.lab_items(pl.DataFrame({
        "itemid": [1, 2, 3, 4, 5], "label": ["Glucose", "Glucose", "Sodium, Urine", "Glucose, CSF", "Influenza A by PCR"],
        "fluid": ["Blood", "Urine", "Urine", "Cerebrospinal Fluid", "Other Body Fluid"], "category": ["Chemistry"] * 5}))
    assert items["exam_name"].to_list() == ["Glucose", "Glucose (Urine)", "Sodium, Urine", "CSF: Glucose",
                                            "Influenza A by PCR (Other Body Fluid)"]


def _micro(warehouse: Warehouse, staging_frame, rows: list[dict]) -> dict[str, dict]:
    base = {"subject_id": 1, "hadm_id": 10, "chartdate": datetime(2150, 1, 1), "org_name": None, "comments": None}
    warehouse.write("mimic_microbiologyevents", staging_frame("mimic_microbiologyevents", pl.DataFrame(
        [{"microevent_id": i, **base, **r} for i, r in enumerate(rows)])))
    mimic.write_microbiology(warehouse, CASES)
    return {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}


def test_microbiology_reports_organisms_of_the_first_specimen_stored_in_the_window(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [])
    culture = {"spec_type_desc": "URINE", "test_name": "URINE CULTURE", "storetime": h(20)}
    rows = _micro(warehouse, staging_frame, [
        {**culture, "charttime": h(1), "org_name": "ESCHERICHIA COLI", "ab_name": "AMPICILLIN"},
        {**culture, "charttime": h(1), "org_name": "ESCHERICHIA COLI", "ab_name": "CIPROFLOXACIN"},
        {**culture, "charttime": h(25), "org_name": "KLEBSIELLA"},
        {"spec_type_desc": "SPUTUM", "test_name": "GRAM STAIN", "charttime": h(1), "storetime": h(3),
         "comments": "NO MICROORGANISMS SEEN.  "},
        {"spec_type_desc": "BLOOD CULTURE", "test_name": "Blood Culture, Routine", "charttime": h(1),
         "storetime": h(72), "comments": "NO GROWTH."},  # finalised days later: not a result
        {"spec_type_desc": "PLEURAL FLUID", "test_name": "GRAM STAIN", "charttime": h(4), "storetime": h(6),
         "comments": "NO MICROORGANISMS SEEN."},
        {"spec_type_desc": "SPUTUM", "test_name": "ACID FAST SMEAR", "charttime": h(1), "storetime": h(5),
         "comments": "Test cancelled by laboratory.  PATIENT CREDITED."},  # no result
    ])
    assert set(rows) == {"URINE CULTURE", "GRAM STAIN (SPUTUM)", "Pleural fluid: GRAM STAIN"}
    assert rows["URINE CULTURE"]["value_text"] == "ESCHERICHIA COLI" and rows["URINE CULTURE"]["abnormal"]
    assert rows["URINE CULTURE"]["offset_hours"] == 20.0
    assert rows["GRAM STAIN (SPUTUM)"]["value_text"] == "NO MICROORGANISMS SEEN."
    assert not rows["GRAM STAIN (SPUTUM)"]["abnormal"]
    assert rows["Pleural fluid: GRAM STAIN"]["raw_name"] == "GRAM STAIN (PLEURAL FLUID)"


def test_vitals_without_chartevents_or_omr_leave_empty_partitions(tmp_path):
    warehouse = Warehouse(tmp_path)
    written = mimic.write_vitals(warehouse, CASES)
    assert written.rows == 0 and "omr" in written.skipped
    assert warehouse.read("exam_candidates").is_empty()
    assert warehouse.read_partition("rejects", mimic.REJECTS_PARTITION).is_empty()


@pytest.fixture
def vitals(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [])

    def chart(itemid, hours, value, store=0.25):
        return {"subject_id": 1, "hadm_id": 10, "stay_id": 5, "charttime": h(hours), "storetime": h(hours + store),
                "itemid": itemid, "value": str(value), "valuenum": float(value), "valueuom": ""}

    warehouse.write("mimic_chartevents", staging_frame("mimic_chartevents", pl.DataFrame([
        chart(220045, 1, 0), chart(220045, 2, 112),  # HR 0: a lead off; the first possible value counts
        chart(220277, 1, 91),  # SpO2 by pulse oximetry
        chart(220179, 1, 85), chart(220180, 1, 50), chart(220181, 1, 62),
        chart(223761, 1, 101.3), chart(220210, 26, 30),  # RR charted after the window
        chart(220050, 3, 140, store=30),  # stored after the window closed
        chart(220739, 1, 4),  # GCS: not a vital item
    ])))
    day = datetime(2150, 1, 1).date()
    warehouse.write("mimic_omr", staging_frame("mimic_omr", pl.DataFrame({
        "subject_id": [1] * 6, "chartdate": [day, day, day, day, day + timedelta(days=1), day - timedelta(days=3)],
        "seq_num": [1, 1, 1, 2, 1, 1],
        "result_name": ["BMI (kg/m2)", "Height (Inches)", "Blood Pressure", "Blood Pressure", "Weight (Lbs)",
                        "Weight (Lbs)"],
        "result_value": ["4649.4", "5", "320/20", "128/82", "180", "175"]})))
    mimic.write_vitals(warehouse, CASES)
    return warehouse


def test_chart_vitals_come_from_the_itemid_map_within_the_window(vitals):
    rows = {r["exam_name"]: r for r in vitals.read("exam_candidates").iter_rows(named=True)}
    assert {n: r["value_num"] for n, r in rows.items() if r["source_ref"].startswith("mimic_chartevents")} == {
        "Heart rate": 112.0, "Oxygen saturation (pulse oximetry)": 91.0, "Systolic blood pressure": 85.0,
        "Diastolic blood pressure": 50.0, "Mean arterial pressure": 62.0, "Body temperature": 101.3}
    assert rows["Heart rate"]["abnormal"] and rows["Oxygen saturation (pulse oximetry)"]["kind"] == "vital"
    assert rows["Heart rate"]["offset_hours"] == 2.25


def test_impossible_measurements_are_rejected_with_a_reason(vitals):
    rows = {r["exam_name"]: r for r in vitals.read("exam_candidates").iter_rows(named=True)}
    # omr: dated in the window (the day of admission; the next day ends after the window closed)
    assert {n: r["value_text"] for n, r in rows.items() if r["source_ref"].startswith("mimic_omr")} == {
        "Blood Pressure": "128/82"}
    rejects = vitals.read_partition("rejects", mimic.REJECTS_PARTITION)
    reasons = dict(zip(rejects["raw"], rejects["reason"]))
    assert reasons.keys() == {"0", "4649.4", "5", "320/20"}
    assert reasons["4649.4"] == "implausible BMI (kg/m2): 4649.4 kg/m2 (possible 10-100)"
    assert reasons["0"].startswith("implausible Heart rate: 0 bpm")
    assert reasons["320/20"].startswith("implausible systolic Blood Pressure: 320 mmHg")
    assert set(rejects["table"]) == {"mimic_chartevents", "mimic_omr"}


def test_a_ptt_drawn_after_an_intravenous_heparin_order_is_no_result_of_the_case(tmp_path, staging_frame):
    warehouse = _warehouse(tmp_path, staging_frame, [
        _lab(1, 51275, h(1), h(2), "150", 150.0, "abnormal", low=25.0, high=36.5),  # drawn on the drip
        _lab(2, 51222, h(1), h(2), "13.5", 13.5, low=13.0, high=17.0),  # not monitoring: kept
    ])
    orders = {"subject_id": [1, 1], "hadm_id": [10, 10], "drug": ["Heparin Flush (10 units/ml)", "Heparin Sodium"],
              "route": ["IV", "IV"], "starttime": [h(0), h(0.5)]}
    warehouse.write("mimic_prescriptions", staging_frame("mimic_prescriptions", pl.DataFrame(orders)))
    written, monitored = mimic.write_labs(warehouse, CASES)
    assert (written.rows, monitored) == (1, 1)
    assert warehouse.read("exam_candidates")["exam_name"].to_list() == ["Hemoglobin"]
    warehouse.write("mimic_labevents", staging_frame("mimic_labevents", pl.DataFrame([
        _lab(3, 51275, h(0.25), h(1), "30", 30.0, low=25.0, high=36.5),  # before the drip: the patient's own
        _lab(1, 51275, h(1), h(2), "150", 150.0, "abnormal", low=25.0, high=36.5)])))
    written, monitored = mimic.write_labs(warehouse, CASES)
    assert (written.rows, monitored) == (1, 1)
    assert warehouse.read("exam_candidates")["value_num"].to_list() == [30.0]
