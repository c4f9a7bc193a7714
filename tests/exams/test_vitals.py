"""Vital signs: one result per sign from a note's vital-sign line, SpO2 as a pulse-oximetry vital, and
the data files that map chart items and bound plausible values."""


import polars as pl
import pytest

from pipelines.datafiles import DataFileError
from pipelines.exams import measurements
from pipelines.exams.catalog import canonical_names
from pipelines.notes.findings import parse_vitals


@pytest.mark.parametrize(("line", "texts"), [
    ("VS: T 98.6 HR 88 BP 120/80 RR 16 O2 98% RA", ["98.6", "88", "120", "80", "16", "98% RA"]),
    ("98.1 PO 118 / 70 72 16 97 RA", ["98.1", "72", "118", "70", "16", "97 RA"]),
])
def test_a_note_vital_line_is_one_result_per_sign(line, texts):
    rows = parse_vitals(line, 100, "n1")
    assert [r["value_text"] for r in rows] == texts
    spans = [tuple(map(int, r["source_ref"].removeprefix("n1:").split("-"))) for r in rows]
    assert [line[s - 100:e - 100].split()[0] for s, e in spans] == [t.split()[0] for t in texts]
    assert len(set(spans)) == len(spans)  # every sign has its own span


def test_pulse_oximetry_is_a_vital_and_a_blood_gas_saturation_a_lab():
    note_spo2 = next(r for r in parse_vitals("T 37 HR 80 SpO2 93%", 0, "n") if r["unit"] == "%")
    proposals = pl.DataFrame({"exam_name": [note_spo2["exam_name"], "O2 saturation pulseoxymetry",
                                            "Oxygen Saturation"], "kind": ["vital", "vital", "lab"]})
    names = {r["exam_name"]: (r["canonical"], r["canonical_kind"]) for r in canonical_names(proposals).iter_rows(named=True)}
    assert names[note_spo2["exam_name"]] == ("Oxygen saturation (pulse oximetry)", "vital")
    assert names["O2 saturation pulseoxymetry"] == ("Oxygen saturation (pulse oximetry)", "vital")
    assert names["Oxygen Saturation"] == ("Oxygen saturation (blood gas)", "lab")  # labevents 50817, a blood gas
    chart = measurements.chart_vitals()
    assert chart.filter(pl.col("itemid") == 220277)["exam_name"].item() == "Oxygen saturation (pulse oximetry)"


def test_omr_measurements_take_their_unit_and_range_from_the_name():
    table = {r["result_name"]: r for r in measurements.omr_measurements(
        ["BMI (kg/m2)", "Weight (Lbs)", "Blood Pressure Sitting", "eGFR"]).iter_rows(named=True)}
    assert (table["BMI (kg/m2)"]["low"], table["BMI (kg/m2)"]["high"]) == (10.0, 100.0)
    assert table["Weight (Lbs)"]["unit"] == "Lbs" and table["Weight (Lbs)"]["high"] == 880.0
    assert table["Blood Pressure Sitting"]["pressure"] and table["Blood Pressure Sitting"]["sys_high"] == 300.0
    assert table["eGFR"]["low"] is None  # no range: kept as recorded


@pytest.fixture
def measurement_files(data_package):
    return data_package(measurements, (measurements.plausible_ranges, measurements.chart_vitals))


def test_measurement_file_errors_name_file_line_and_field(measurement_files):
    ranges = "exam_name,unit,low,high\n"
    chart = "itemid,label,exam_name,unit,ref_low,ref_high\n"
    measurement_files(plausible_ranges=ranges + "Pulse,bpm,20,300\n")
    with pytest.raises(DataFileError, match=r"plausible_ranges\.csv: line 2, field 'exam_name': 'Pulse' is not a canonical"):
        measurements.plausible_ranges()
    measurement_files(plausible_ranges=ranges + "Heart rate,bpm,300,20\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'low': low 300.0 is not below high 20.0"):
        measurements.plausible_ranges()
    measurement_files(plausible_ranges=ranges + "Heart rate,bpm,20,300\n",
                      chart_vitals=chart + "220045,Heart Rate,Heart rate,/min,60,100\n")
    with pytest.raises(DataFileError, match=r"chart_vitals\.csv: line 2, field 'unit': 'Heart rate' in '/min' has no range"):
        measurements.chart_vitals()
