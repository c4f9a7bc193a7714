"""MIMIC-IV-ED vital signs: triage charted at ED registration, the first possible value per exam in
the case's exam window, under the chart vitals' names; impossible values and unscored pain to rejects."""

from datetime import datetime, timedelta

import polars as pl

from pipelines.exams import ed, measurements
from pipelines.exams.window import ExamWindow
from pipelines.warehouse import Warehouse

ADMIT = datetime(2150, 1, 1, 8, 0)
INTIME = ADMIT - timedelta(hours=4)
CASES = pl.DataFrame({"case_id": ["c_0000000000000001"], "subject_id": [1], "hadm_id": [10],
                      "admittime": [ADMIT], "dischtime": [datetime(2150, 1, 5)]})
SIGNS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "pain")


def _row(stay_id, charttime, *values):
    return {"subject_id": 1, "stay_id": stay_id, "charttime": charttime, **dict(zip(SIGNS, values))}


def _warehouse(tmp_path, staging_frame, triage: list[dict], vitals: list[dict], edregtime=INTIME) -> Warehouse:
    wh = Warehouse(tmp_path)
    wh.write("mimic_admissions", staging_frame("mimic_admissions", pl.DataFrame({
        "subject_id": [1], "hadm_id": [10], "admittime": [ADMIT], "dischtime": [datetime(2150, 1, 5)],
        "edregtime": [edregtime]}, schema_overrides={"edregtime": pl.Datetime})))
    wh.write("ed_edstays", staging_frame("ed_edstays", pl.DataFrame({
        "subject_id": [1, 1], "hadm_id": [10, None], "stay_id": [30, 31],
        "intime": [INTIME, INTIME - timedelta(days=20)]})))
    wh.write("ed_triage", staging_frame("ed_triage", pl.DataFrame(
        [{k: v for k, v in r.items() if k != "charttime"} for r in triage])))
    wh.write("ed_vitalsign", staging_frame("ed_vitalsign", pl.DataFrame(vitals)))
    return wh


def test_triage_charts_at_registration_and_wins_over_later_ed_vitals(tmp_path, staging_frame):
    wh = _warehouse(tmp_path, staging_frame,
                    [_row(30, None, 37.2, 112.0, 22.0, 91.0, 150.0, 879.0, "8/10"),
                     _row(31, None, 99.0, 70.0, 16.0, 99.0, 120.0, 80.0, "0")],  # a visit sent home
                    [_row(30, INTIME + timedelta(hours=1), 101.2, 100.0, None, 95.0, 140.0, 85.0, "unable"),
                     _row(30, INTIME + timedelta(hours=2), None, None, None, None, None, None, "7-8"),
                     _row(30, ADMIT + timedelta(hours=30), 98.0, 60.0, 12.0, 99.0, 110.0, 70.0, "0")])  # after the window
    assert ed.write_vitals(wh, CASES).rows == 7
    rows = {r["exam_name"]: r for r in wh.read_partition("exam_candidates", ed.PARTITION).iter_rows(named=True)}
    assert rows["Heart rate"]["value_num"] == 112.0 and rows["Heart rate"]["abnormal"] is True
    assert rows["Heart rate"]["offset_hours"] == -4.0 and rows["Heart rate"]["source_ref"] == "ed_triage:heartrate"
    assert (rows["Body temperature"]["value_num"], rows["Body temperature"]["unit"]) == (37.2, "°C")  # a Celsius slip
    assert rows["Pain score"]["value_num"] == 8.0 and rows["Pain score"]["abnormal"] is True
    # the impossible triage diastolic leaves the first possible one, charted an hour later
    assert rows["Diastolic blood pressure"]["value_num"] == 85.0
    assert rows["Diastolic blood pressure"]["source_ref"] == "ed_vitalsign:dbp"
    assert set(rows) <= set(measurements.chart_vitals()["exam_name"]) | {"Pain score"}
    rejects = wh.read_partition("rejects", ed.REJECTS_PARTITION)
    assert sorted(rejects["reason"].to_list()) == [
        "implausible Diastolic blood pressure: 879 mmHg (possible 10-200)", "pain is no score from 0 to 10: unable"]
    assert set(rejects["source"]) == {"mimic_ed"}


def test_ed_rows_outside_the_exam_window_are_no_result(tmp_path, staging_frame):
    triage = [_row(30, None, 98.0, 80.0, 16.0, 98.0, 120.0, 80.0, "0")]
    # The admission does not record the ED registration: the window opens 2 h before admission, after triage.
    wh = _warehouse(tmp_path / "a", staging_frame, triage, [], edregtime=None)
    assert ed.write_vitals(wh, CASES, ExamWindow(lookback_hours=2)).rows == 0
    wh = _warehouse(tmp_path / "b", staging_frame, triage, [])
    assert ed.write_vitals(wh, CASES).rows == 7
    pain = wh.read_partition("exam_candidates", ed.PARTITION).filter(pl.col("exam_name") == "Pain score")
    assert pain["abnormal"].to_list() == [False]
