"""The regex section split (pipelines.notes.sections.split_sections): a radiology report's FINDINGS
without the NLP pipeline, and on every note the sections medspaCy's tokenized Sectionizer gives."""

from __future__ import annotations

import polars as pl
import pytest
from note_texts import DISCHARGE_NOTE, NORMAL_RADIOLOGY_NOTE, RADIOLOGY_NOTE
from reference_sections import COLUMNS, medspacy_sections

from pipelines.notes.sections import HEADER_RULES, section_notes, split_sections

RAD_ID = "10000032-RR-14"


def _radiology(text: str) -> dict[str, str]:
    df = section_notes(pl.DataFrame({"note_id": [RAD_ID], "note_type": ["RR"], "text": [text]}))
    return dict(zip(df["section"], df["text"]))


def _no_tokenizer(text: str):
    raise AssertionError(f"the split tokenized {text!r}")


def test_findings_and_impression_apart() -> None:
    sections = _radiology(RADIOLOGY_NOTE)
    assert sections["findings"] == ("There is a small left pleural effusion. Patchy left lower lobe opacity\n"
                                    "consistent with pneumonia. No pneumothorax. Heart size is normal.")
    assert sections["impression"] == "Left lower lobe pneumonia with small effusion."
    assert sections["examination"] == "CHEST (PA AND LAT)"


def test_standard_report_is_split_without_the_pipeline() -> None:
    found = split_sections(RADIOLOGY_NOTE, HEADER_RULES["radiology"], _no_tokenizer)
    assert [s.rule.metadata["section"] for s in found if s.rule] == [None] * 6  # the header text names it
    assert [RADIOLOGY_NOTE[s.title_start:s.title_end] for s in found if s.rule] == [
        "EXAMINATION:", "INDICATION:", "TECHNIQUE:", "COMPARISON:", "FINDINGS:", "IMPRESSION:"]


@pytest.mark.parametrize("text", [
    "FINDINGS:\nLungs are clear.\nIMPRESSION:\nNormal.",
    "Findings:  Lungs are clear.\nImpression: Normal.",  # body on the header's line, title case
    "  findings :\tLungs are clear.\n\tIMPRESSION :\nNormal.\n\n",  # indented, space before the colon
    "FINDING:\nLungs are clear.\nIMPRESSIONS:\nNormal.",
    "REPORT:\nLungs are clear.\nCONCLUSION:\nNormal.",
    "FINDINGS:Lungs are clear.\nIMPRESSION:Normal.",  # no space after the colon: the tokenizer splits ':'
    "FINDINGS:\r\nLungs are clear.\r\nIMPRESSION:\r\nNormal.\r\n",
    "FINDINGS:\rLungs are clear.\rIMPRESSION:\rNormal.",
])
def test_header_variants(text: str) -> None:
    sections = _radiology(text)
    assert (sections["findings"], sections["impression"]) == ("Lungs are clear.", "Normal.")


def test_report_without_findings() -> None:
    sections = _radiology("EXAMINATION:  CHEST (PORTABLE AP)\nINDICATION:  cough\n\nIMPRESSION: \n\n"
                          "No acute process.\n")
    assert sections == {"examination": "CHEST (PORTABLE AP)", "indication": "cough", "impression": "No acute process."}


@pytest.mark.parametrize("text", [
    "IMPRESSION: No acute cardiopulmonary process.",
    "FINDINGS AND IMPRESSION:\nNo acute cardiopulmonary process.",  # a combined section names diagnoses
    "Findings/Impression: No acute cardiopulmonary process.",
])
def test_impression_only_reports_give_no_findings(text: str) -> None:
    assert _radiology(text) == {"impression": "No acute cardiopulmonary process."}


def test_headers_only_at_line_start_and_organ_labels_stay_in_findings() -> None:
    text = ("INDICATION: compare findings: prior\nFINDINGS:\nLIVER: Normal. Impression: none on the liver.\n"
            "KIDNEYS: Normal.\nIMPRESSION:\nNormal.")
    sections = _radiology(text)
    assert sections["indication"] == "compare findings: prior"
    assert sections["findings"] == "LIVER: Normal. Impression: none on the liver.\nKIDNEYS: Normal."


def test_empty_findings_give_no_row() -> None:
    assert _radiology("FINDINGS:\n \nIMPRESSION:\nNormal.") == {"impression": "Normal."}


# Notes the split must section exactly as medspaCy does: header quirks, parent rules, and (SNAPPED,
# OVERLAPPING) notes where medspaCy's tokens decide, which go to the tokenized Sectionizer.
SNAPPED = "Allergies:(penicillin)\nChief Complaint:\nfever\n"  # ':(' is one token: medspaCy widens the header
OVERLAPPING = "Chief Complaint:\nfever\nHPI:\nFever.\nIn the\nED Course:\nfluids given\n"  # "In the\nED" / "ED Course:"
CONTAINED = "History of Present Illness:\nfever\nInitial vitals:\nT 98.6\n"  # "Initial vitals" inside the header
FAST = [
    ("discharge", DISCHARGE_NOTE),
    ("discharge", DISCHARGE_NOTE.replace("\n", "\r\n")),
    ("discharge", "History of Present Illness:\nFever. In the ED, given fluids.  At the OSH: CT.\n"
                  "Social History: none"),
    ("discharge", "Physical Exam:\nOn admission:\nGen: ok\nAt admission:\nLungs: rales\nDischarge:\nLungs: clear\n"
                  "Pertinent Results:\nAdmission:\nWBC 12\n"),
    ("discharge", "Admission:\nbare sub-header first: no parent\nChief Complaint:\ncough"),
    ("discharge", "  \n Service:MEDICINE\nAllergies: \nNKDA\nHospital Events Summary:\nintubated\n"),
    ("radiology", RADIOLOGY_NOTE),
    ("radiology", NORMAL_RADIOLOGY_NOTE),
    ("radiology", "FINDINGS:\u00a0Lungs are clear.\nIMPRESSION:  \u00a0\nNormal."),
    ("radiology", "No headers in this addendum at all."),
    ("radiology", "FINDINGS:Lungs clear.\nIMPRESSION:Normal."),
]
TOKENIZED = [("discharge", SNAPPED), ("discharge", OVERLAPPING), ("discharge", CONTAINED)]


@pytest.mark.parametrize(("kind", "text"), FAST + TOKENIZED)
def test_same_sections_as_medspacy(nlp, kind: str, text: str) -> None:
    note_id = "1-RR-1" if kind == "radiology" else "1-DS-1"
    split = section_notes(pl.DataFrame({"note_id": [note_id], "text": [text]}), nlp=nlp).select(COLUMNS)
    reference = medspacy_sections(nlp, [(note_id, text, kind)])
    assert split.rows() == reference.rows()


@pytest.mark.parametrize(("kind", "text", "tokenized"), [(*note, False) for note in FAST]
                         + [(*note, True) for note in TOKENIZED])
def test_tokenized_sectionizer_only_where_tokens_decide(nlp, kind: str, text: str, tokenized: bool) -> None:
    found = split_sections(text.replace("\r", "\n"), HEADER_RULES[kind], nlp.tokenizer)
    assert (found is None) == tokenized
