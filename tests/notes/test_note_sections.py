"""Sectioning of discharge summaries and radiology reports (pipelines.notes.sections)."""

from __future__ import annotations

import polars as pl
import pytest
from note_texts import DISCHARGE_NOTE, NEVER_SENTINELS, NOTE_ID, RAD_NOTE_ID, RADIOLOGY_NOTE

import schemas
from pipelines.notes.section_rules import SECTION_POLICY, classify_header, header_regex
from pipelines.notes.sections import SECTION_VISIBILITY, note_kind, section_notes


def _sections(text: str, note_id: str = NOTE_ID, nlp=None) -> pl.DataFrame:
    return section_notes(pl.DataFrame({"note_id": [note_id], "text": [text]}), nlp=nlp)


@pytest.fixture(scope="module")
def discharge(nlp) -> pl.DataFrame:
    return _sections(DISCHARGE_NOTE, nlp=nlp)


def test_sections_found_in_order_with_deidentified_and_upper_case_headers(discharge: pl.DataFrame) -> None:
    assert discharge["section"].to_list() == [
        "preamble", "service", "allergies", "attending", "chief_complaint", "hpi", "ed_course", "family", "pmh",
        "social", "physical_exam_admission", "physical_exam_discharge", "hospital_course", "pertinent_results",
        "medications_on_admission", "discharge_medications", "discharge_diagnosis", "discharge_condition",
        "discharge_instructions", "followup",
    ]
    headers = dict(zip(discharge["section"], discharge["header"]))
    assert headers["chief_complaint"] == "___ Complaint:"
    assert headers["hpi"] == "History of Present ___:"
    assert headers["pmh"] == "PAST MEDICAL HISTORY:"
    assert headers["ed_course"] == "In the ED"
    assert headers["preamble"] is None


def test_offsets_index_the_note_and_bodies_are_right(discharge: pl.DataFrame) -> None:
    for start, end, text in discharge.select("start", "end", "text").iter_rows():
        assert DISCHARGE_NOTE[start:end] == text
    body = dict(zip(discharge["section"], discharge["text"]))
    assert body["chief_complaint"] == "Chest pain, SOB"
    assert body["hpi"].startswith("Ms. ___ is a") and body["hpi"].endswith("No recent travel.")
    assert body["physical_exam_admission"].startswith("VS: T 101.2")
    assert "tender in RUQ" in body["physical_exam_discharge"]
    assert body["followup"] == "___"  # last section, no trailing newline


def test_visibility_policy(discharge: pl.DataFrame) -> None:
    for section, visibility, reason in discharge.select("section", "visibility", "reason").iter_rows():
        assert (visibility, reason) == SECTION_POLICY[section]
    assert set(SECTION_VISIBILITY.values()) == {"patient", "exam", "never"}
    for name in ("chief_complaint", "hpi", "pmh", "social", "family", "allergies", "medications_on_admission", "ros"):
        assert SECTION_VISIBILITY[name] == "patient"
    for name in ("physical_exam_admission", "findings"):
        assert SECTION_VISIBILITY[name] == "exam"
    for name in ("hospital_course", "discharge_diagnosis", "discharge_condition", "discharge_medications",
                 "discharge_instructions", "pertinent_results", "impression", "followup", "ed_course",
                 "physical_exam_discharge", "other", "preamble", "indication"):
        assert SECTION_VISIBILITY[name] == "never"


def test_post_admission_text_only_in_never_sections(discharge: pl.DataFrame) -> None:
    visible = " ".join(discharge.filter(pl.col("visibility") != "never")["text"])
    for sentinel in NEVER_SENTINELS:
        assert sentinel not in visible, sentinel


def test_schema_accepts_output(discharge: pl.DataFrame) -> None:
    schemas.conform("note_sections", discharge)
    with pytest.raises(schemas.ContractError):
        schemas.conform("note_sections", discharge.with_columns(pl.col("end") + 1))


def test_windows_and_old_mac_line_ends_keep_offsets(nlp, discharge: pl.DataFrame) -> None:
    for newline in ("\r\n", "\r"):
        note = DISCHARGE_NOTE.replace("\n", newline)
        df = _sections(note, nlp=nlp)
        assert df["section"].to_list() == discharge["section"].to_list()
        for start, end, text in df.select("start", "end", "text").iter_rows():
            assert note[start:end] == text
        assert [t.replace("\r\n", "\n").replace("\r", "\n") for t in df["text"]] == discharge["text"].to_list()


def test_empty_missing_and_headerless_notes(nlp) -> None:
    notes = pl.DataFrame({"note_id": ["a", "b", "c", "d"], "text": ["", None, "   \n ", "Patient doing well."]})
    df = section_notes(notes, nlp=nlp)
    assert df.select("note_id", "section", "visibility").rows() == [("d", "preamble", "never")]
    empty = section_notes(pl.DataFrame({"note_id": [], "text": []}, schema={"note_id": pl.Utf8, "text": pl.Utf8}))
    assert empty.is_empty() and empty.columns == schemas.empty("note_sections").columns


def test_unknown_header_fails_closed(nlp) -> None:
    note = "Chief Complaint:\nfever\n\nHospital Events Summary:\nintubated for sepsis\n\nSocial History:\nlives alone\n"
    df = _sections(note, nlp=nlp)
    rows = dict(zip(df["section"], zip(df["text"], df["visibility"])))
    assert rows["other"] == ("intubated for sepsis", "never")
    assert rows["social"] == ("lives alone", "patient")


def test_bare_admission_sub_header_only_inside_the_exam(nlp) -> None:
    note = ("Physical Exam:\nOn admission:\nLungs: rales\nOn discharge:\nLungs: clear\n\n"
            "Pertinent Results:\nAdmission:\n___ WBC-12\n")
    df = _sections(note, nlp=nlp)
    rows = list(zip(df["section"], df["text"]))
    assert rows == [("physical_exam_admission", "Lungs: rales"), ("physical_exam_discharge", "Lungs: clear"),
                    ("pertinent_results", "Admission:\n___ WBC-12")]


def test_radiology_report_sections(nlp) -> None:
    df = _sections(RADIOLOGY_NOTE, note_id=RAD_NOTE_ID, nlp=nlp)
    rows = dict(zip(df["section"], df["visibility"]))
    assert rows == {"examination": "never", "indication": "never", "technique": "never", "comparison": "never",
                    "findings": "exam", "impression": "never"}
    findings = df.filter(pl.col("section") == "findings")["text"].item()
    assert findings.startswith("There is a small left pleural effusion") and "IMPRESSION" not in findings


@pytest.mark.parametrize(
    ("note_id", "text", "note_type", "kind"),
    [
        ("x", "FINDINGS: clear", "RR", "radiology"),
        ("x", "FINDINGS: clear", "DS", "discharge"),
        ("1-RR-2", "anything", None, "radiology"),
        ("1-DS-2", "FINDINGS: clear", None, "discharge"),
        ("x", "EXAMINATION: CHEST\nFINDINGS: clear\nIMPRESSION: none", None, "radiology"),
        ("x", "Chief Complaint:\nfever\nPertinent Results:\nFINDINGS: clear", None, "discharge"),
    ],
)
def test_note_kind(note_id: str, text: str, note_type: str | None, kind: str) -> None:
    assert note_kind(note_id, text, note_type) == kind


def test_header_variants() -> None:
    import re

    pattern = re.compile(header_regex("History of Present Illness"), re.IGNORECASE)
    for header in ("History of Present Illness", "HISTORY OF PRESENT ILLNESS", "History of Present ___",
                   "___ of Present Illness", "History  of present\tillness"):
        assert pattern.fullmatch(header), header
    assert not pattern.fullmatch("___ of ___ Illness")  # at most one word de-identified
    assert classify_header("Follow-up Instructions:", "discharge") == "followup"
    assert classify_header("Followup Instructions:", "discharge") == "followup"
    assert classify_header("DISCHARGE PHYSICAL EXAM", "discharge") == "physical_exam_discharge"
    assert classify_header("Discharge Medications:", "discharge") == "discharge_medications"
    assert classify_header("IMPRESSION:", "radiology") == "impression"
