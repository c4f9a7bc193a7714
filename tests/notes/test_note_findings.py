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
