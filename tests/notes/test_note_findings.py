"""Examination results from notes (pipelines.notes.findings)."""

from __future__ import annotations

import polars as pl
import pytest
from note_texts import (
    CASE_ID,
    DISCHARGE_NOTE,
    NEVER_SENTINELS,
    NORMAL_RADIOLOGY_NOTE,
    NOTE_ID,
    RAD_NOTE_ID,
    RADIOLOGY_NOTE,
    nstemi_cases,
)

import schemas
from pipelines.notes.findings import (
    ecg_clauses,
    exam_findings_and_removals,
    exam_lines,
    imaging_exam_name,
    note_exam_findings,
    parse_vitals,
)
from pipelines.notes.sections import section_notes

NORMAL_RAD_ID = "10000032-RR-15"


def pneumonia_cases(note_ids: list[str]) -> pl.DataFrame:
    return nstemi_cases(note_ids).with_columns(
        diagnosis_name=pl.lit("Pneumonia"), acceptable_names=pl.lit(["Lobar pneumonia"]),
        primary_icd10=pl.lit("J18.9"), icd10_title=pl.lit("Pneumonia, unspecified organism"),
    )


@pytest.fixture(scope="module")
def discharge_exams(nlp) -> pl.DataFrame:
    sections = section_notes(pl.DataFrame({"note_id": [NOTE_ID], "text": [DISCHARGE_NOTE]}), nlp=nlp)
    return note_exam_findings(sections, nstemi_cases([NOTE_ID]), None)


@pytest.fixture(scope="module")
def radiology(nlp) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    notes = pl.DataFrame({"note_id": [RAD_NOTE_ID, NORMAL_RAD_ID], "text": [RADIOLOGY_NOTE, NORMAL_RADIOLOGY_NOTE]})
    sections = section_notes(notes, nlp=nlp)
    detail = pl.DataFrame({"note_id": [RAD_NOTE_ID, RAD_NOTE_ID], "subject_id": [1, 1],
                           "field_name": ["cpt_code", "exam_name"], "field_value": ["71046", "CHEST (PORTABLE AP)"],
                           "field_ordinal": [1, 1]})
    exams, removals = exam_findings_and_removals(sections, pneumonia_cases([RAD_NOTE_ID, NORMAL_RAD_ID]), detail, nlp)
    return sections, exams, removals


def test_physical_exam_findings_with_abnormal_flags(discharge_exams: pl.DataFrame) -> None:
    pe = discharge_exams.filter(pl.col("kind") == "physical_exam")
    assert pe.select("exam_name", "value_text", "abnormal").rows() == [
        ("General appearance", "Diaphoretic, in mild distress", True),
        ("HEENT exam", "Sclera anicteric, MMM", False),
        ("Cardiac exam", "Tachycardic, regular rhythm, ___ systolic murmur at apex", True),
        ("Lung exam", "Crackles at bilateral bases, no wheezes", True),
        ("Abdominal exam", "Soft, non-tender, non-distended", False),
        ("Extremities", "No edema", False),
        ("Neurologic exam", "A&Ox3, CN II-XII intact", False),
    ]
    assert (pe["origin"] == "recorded").all() and pe["offset_hours"].is_null().all()
    for ref, value in pe.select("source_ref", "value_text").iter_rows():
        start, end = map(int, ref.split(":")[1].split("-"))
        assert DISCHARGE_NOTE[start:end] == value


def test_vitals_from_the_admission_exam(discharge_exams: pl.DataFrame) -> None:
    vitals = discharge_exams.filter(pl.col("kind") == "vital")
    assert vitals.select("exam_name", "value_num", "unit", "abnormal").rows() == [
        ("Temperature", 101.2, "°F", True),
        ("Heart rate", 112.0, "bpm", True),
        ("Systolic blood pressure", 90.0, "mmHg", False),
        ("Diastolic blood pressure", 60.0, "mmHg", False),
        ("Respiratory rate", 22.0, "insp/min", True),
        ("Oxygen saturation (pulse oximetry)", 93.0, "%", True),
    ]
    assert vitals["ref_low"].is_not_null().all() and vitals["ref_high"].is_not_null().all()


def test_discharge_exam_and_never_sections_are_not_exam_results(discharge_exams: pl.DataFrame) -> None:
    text = " ".join(discharge_exams["value_text"])
    for sentinel in NEVER_SENTINELS:
        assert sentinel not in text, sentinel
    assert 118.0 not in discharge_exams["value_num"].to_list()  # discharge vitals
    schemas.conform("exam_results", discharge_exams)


def test_radiology_findings_only_and_scrubbed(radiology) -> None:
    _, exams, removals = radiology
    assert exams.select("exam_name", "kind", "abnormal").rows() == [
        ("Chest X-ray", "imaging", True), ("CT head", "imaging", False)]
    finding = exams["value_text"][0]
    assert finding == "There is a small left pleural effusion. Patchy left lower lobe opacity. No pneumothorax. Heart size is normal."
    assert "pneumonia" not in " ".join(exams["value_text"]).lower()
    assert "IMPRESSION" not in finding and "eval for" not in finding
    assert removals.select("case_id", "term", "action").rows() == [(CASE_ID, "Pneumonia", "removed_clause")]
    schemas.conform("exam_results", exams)
    schemas.conform("leakage_removals", removals)


def test_exam_name_from_examination_line_without_detail(radiology, nlp) -> None:
    sections, _, _ = radiology
    exams = note_exam_findings(sections, pneumonia_cases([RAD_NOTE_ID]), None)
    assert exams["exam_name"].to_list() == ["Chest X-ray"]


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("CHEST (PA AND LAT)", "Chest X-ray"),
        ("CHEST (PORTABLE AP)", "Chest X-ray"),
        ("CT HEAD W/O CONTRAST", "CT head"),
        ("CT ABD & PELVIS WITH CONTRAST", "CT abdomen/pelvis"),
        ("CTA CHEST W&W/O C&RECONS, NON-CORONARY", "CTA chest"),
        ("MR HEAD W & W/O CONTRAST", "MRI brain"),
        ("LIVER OR GALLBLADDER US (SINGLE ORGAN)", "Ultrasound liver/gallbladder"),
        ("BILAT LOWER EXT VEINS", "Ultrasound lower extremity veins"),
        ("RENAL U.S.", "Ultrasound kidneys"),
        ("KNEE (2 VIEWS) LEFT", "X-ray knee"),
        (None, "Imaging"),
    ],
)
def test_imaging_exam_names(raw: str | None, name: str) -> None:
    assert imaging_exam_name(raw) == name


@pytest.mark.parametrize(
    ("line", "values"),
    [
        ("T 101.2 HR 112 BP 90/60 RR 22 O2 93% RA", [101.2, 112, 90, 60, 22, 93]),
        ("98.1 PO 118 / 70 72 16 97 RA", [98.1, 72, 118, 70, 16, 97]),
        ("99.2, 145/70, 108, 21, 96% Ra", [99.2, 108, 145, 70, 21, 96]),
        ("T 37.9 BP 106/66 HR 76 RR 17 SpO2 97%2L NC", [37.9, 76, 106, 66, 17, 97]),
        ("stable", []),
    ],
)
def test_parse_vitals(line: str, values: list[float]) -> None:
    rows = parse_vitals(line, 10, "n")
    assert [r["value_num"] for r in rows] == values
    for r in rows:
        start, end = map(int, r["source_ref"].removeprefix("n:").split("-"))
        assert 10 <= start < end <= 10 + len(line)
    if values and values[0] < 45:
        assert rows[0]["unit"] == "°C"


def test_exam_lines_labels_and_continuations() -> None:
    text = "VS: 98 80 120/80 16 99\nGen: NAD\nLungs: rales at\n  the bases\nAccess: PICC\nNeuro: nonfocal"
    labels = [(label, text[s:e]) for label, s, e in exam_lines(text)]
    assert labels == [("vitals", "98 80 120/80 16 99"), ("General appearance", "NAD"),
                      ("Lung exam", "rales at\n  the bases"), ("Neurologic exam", "nonfocal")]


def _presenting_ecg(nlp, ecg: str, cases: pl.DataFrame) -> tuple[str, pl.DataFrame, pl.DataFrame]:
    """The discharge note with ``ecg`` told in its HPI, and its ECG results and removals."""
    note = DISCHARGE_NOTE.replace("Troponin was 2.3", f"{ecg} Troponin was 2.3")
    sections = section_notes(pl.DataFrame({"note_id": [NOTE_ID], "text": [note]}), nlp=nlp)
    exams, removals = exam_findings_and_removals(sections, cases, None, nlp)
    return note, exams.filter(pl.col("exam_name") == "Electrocardiogram"), removals


@pytest.mark.parametrize("told, value, abnormal", [
    ("EKG with lateral TWI, no STE.", "EKG with lateral TWI, no STE", True),
    ("Orthostatics negative; EKG NSR.", "EKG NSR", False),
    ("ECG with new ST\ndepressions in the lateral leads.", "ECG with new ST depressions in the lateral leads", True),
    ("ECG showed 1.5 mm ST depressions in V4-V6; repeat ECG without ST elevations.",
     "ECG showed 1.5 mm ST depressions in V4-V6; ECG without ST elevations", True),
])
def test_the_presenting_ecg_told_in_the_hpi_is_a_result(nlp, told, value, abnormal) -> None:
    """MIMIC-IV-Note has no ECG reports: a discharge summary tells the presenting ECG in the HPI or
    ED course. Its clauses are one Electrocardiogram result; "no STE" is no abnormal finding."""
    note, ecg, _ = _presenting_ecg(nlp, told, nstemi_cases([NOTE_ID]))
    assert ecg.select("kind", "value_text", "abnormal", "origin").rows() == [("ecg", value, abnormal, "recorded")]
    start, end = map(int, ecg["source_ref"][0].split(":")[1].split("-"))
    span = " ".join(note[start:end].split())  # the note's span of the clauses, on one line
    assert span.startswith(value.split(";")[0]) and span.endswith(value.split(" ")[-1])


def test_a_presenting_ecg_is_scrubbed_of_the_diagnosis(nlp) -> None:
    cases = nstemi_cases([NOTE_ID]).with_columns(
        diagnosis_name=pl.lit("Atrial fibrillation"), acceptable_names=pl.lit(["AFib with RVR"]),
        primary_icd10=pl.lit("I48.91"), icd10_title=pl.lit("Unspecified atrial fibrillation"))
    _, ecg, removals = _presenting_ecg(
        nlp, "ECG in the ED showed atrial fibrillation, irregularly irregular at 140s without P waves.", cases)
    assert "fibrillation" not in ecg["value_text"][0] and "irregularly irregular at 140s" in ecg["value_text"][0]
    assert ecg["abnormal"].to_list() == [True]
    assert "atrial fibrillation" in removals["term"].str.to_lowercase().to_list()


def test_ecg_clauses_run_from_the_mention_to_the_end_of_the_clause() -> None:
    text = "Seen in the ED. An ECG. EKG: sinus tachycardia at 1.5x baseline; no ischemia.\n\nECG"
    assert [text[s:e] for s, e in ecg_clauses(text)] == ["EKG: sinus tachycardia at 1.5x baseline"]
