"""Questions -> medqa partitions of unit_candidates / exam_candidates / presentations (pipelines.medqa.convert)."""

from __future__ import annotations

import json

import polars as pl
import pytest

import schemas
from pipelines.leakage import find_mentions
from pipelines.medqa.convert import QUARANTINE_REASON, convert_questions, holds_measurement
from pipelines.medqa.findings import MEASUREMENT

OPTIONS = {"A": "Acute pericarditis", "B": "Pneumonia", "C": "Aortic dissection", "D": "Pulmonary embolism"}
QUESTION = (
    "A 54-year-old man comes to the emergency department because of chest pain for 2 hours. "
    "He had pneumonia last winter and recovered fully. Two weeks ago he had a viral illness, and his wife thinks "
    "this is pericarditis again. He denies cough. His temperature is 38.1°C (100.6°F) and pulse is 110/min. "
    "A friction rub is heard at the left sternal border. An ECG shows diffuse ST-segment elevations. "
    "Which of the following is the most likely diagnosis?"
)


def _questions(*records: tuple[str, str, dict, str, str]) -> pl.DataFrame:
    return pl.DataFrame([
        {"medqa_file": "US_test.jsonl", "medqa_line": i + 1, "medqa_hash": h, "question": q, "answer": a,
         "options": json.dumps(o), "answer_idx": idx, "meta_info": "step2&3"}
        for i, (h, q, o, a, idx) in enumerate(records)
    ])


@pytest.fixture(scope="module")
def views():
    questions = _questions(("a1b2c3d4e5f60718", QUESTION, OPTIONS, "Acute pericarditis", "A"),
                           ("ffff000011112222", "Which of the following is a side effect of lisinopril?",
                            {"A": "Cough"}, "Cough", "A"))
    case_ids = pl.DataFrame({"medqa_hash": ["a1b2c3d4e5f60718"], "case_id": ["c_0123456789abcdef"]})
    return convert_questions(questions, case_ids)


def test_tables_conform_to_their_schemas(views):
    schemas.conform("unit_candidates", views.unit_candidates)
    schemas.conform("exam_candidates", views.exam_candidates)
    schemas.conform("presentations", views.presentations)
    schemas.conform("leakage_removals", views.leakage_removals)
    schemas.conform("medqa_rubric", views.rubric)
    assert views.presentations["case_id"].to_list() == ["c_0123456789abcdef"]  # only questions with a case id


def test_answer_and_other_options_never_reach_a_visible_view(views):
    visible = [*views.unit_candidates["text"], *views.exam_candidates["value_text"].drop_nulls(),
               *views.exam_candidates["raw_name"], *views.presentations["presentation"]]
    terms = [*OPTIONS.values(), "pericarditis", "pneumonia"]
    assert not [t for t in visible if find_mentions(t, terms)]
    removed = views.leakage_removals
    assert {"Pneumonia", "pericarditis"} <= {t.lower() if t.islower() else t for t in removed["term"]}
    assert removed["source_ref"].str.starts_with("medqa:a1b2c3d4e5f60718:").all()


def test_disclosed_units_are_demographics_and_chief_complaint(views):
    units = views.unit_candidates
    disclosed = units.filter(pl.col("disclosed"))
    assert sorted(disclosed["category"]) == ["chief_complaint", "demographic"]
    assert set(disclosed["text"]) == {"54-year-old man", "chest pain for 2 hours"}
    assert units.filter(pl.col("text") == "He denies cough.")["negated"].to_list() == [True]
    assert not any(MEASUREMENT.search(t) for t in units["text"])
    assert units["unit_id"].n_unique() == units.height
    assert views.presentations["presentation"].to_list() == [
        "A 54-year-old man comes to the emergency department because of chest pain for 2 hours."]


def test_exams_and_rubric(views):
    exams = views.exam_candidates
    assert set(exams["exam_name"]) >= {"Body temperature", "Heart rate", "Electrocardiogram", "Cardiovascular examination"}
    assert (exams["origin"] == "recorded").all() and exams["offset_hours"].is_null().all()
    assert exams["exam_name"].n_unique() == exams.height  # one row per proposed name
    rubric = views.rubric
    assert rubric["kind"].to_list()[0] == "history" and rubric["key_point"][0] == "chest pain for 2 hours"
    findings = rubric.filter(pl.col("kind") == "finding")["key_point"].to_list()
    assert findings[0].startswith(("Cardiovascular examination", "Electrocardiogram"))  # signs before vitals
    assert any(k.startswith("Body temperature: 38.1") for k in findings)


def test_a_question_without_presentation_is_a_failure():
    questions = _questions(("0000aaaa1111bbbb", "Which of the following is the most likely diagnosis?",
                            OPTIONS, "Acute pericarditis", "A"))
    out = convert_questions(questions, pl.DataFrame({"medqa_hash": ["0000aaaa1111bbbb"],
                                                     "case_id": ["c_aaaaaaaaaaaaaaaa"]}))
    assert out.presentations.is_empty()
    assert out.conversion_failures["case_id"].to_list() == ["c_aaaaaaaaaaaaaaaa"] * 2


HEAT = ("A 67-year-old man is brought to the emergency department by police after he was found undressing himself "
        "outside in 110°F weather. His wife says he has been confused for 2 days. His temperature is 41.1°C (106°F), "
        "pulse is 130/min, and blood pressure is 90/60 mm Hg. His skin is hot and dry. "
        "Which of the following is the most likely diagnosis?")
HEAT_OPTIONS = {"A": "Heat stroke", "B": "Neuroleptic malignant syndrome", "C": "Meningitis", "D": "Thyroid storm"}


def test_a_history_unit_holding_a_measurement_is_quarantined_not_published():
    questions = _questions(("0123abcd0123abcd", HEAT, HEAT_OPTIONS, "Heat stroke", "A"))
    out = convert_questions(questions, pl.DataFrame({"medqa_hash": ["0123abcd0123abcd"],
                                                     "case_id": ["c_bbbbbbbbbbbbbbbb"]}))
    assert not [t for t in out.unit_candidates["text"] if holds_measurement(t)]
    quarantined = schemas.conform("rejects", out.quarantined)
    assert quarantined.select("source", "table", "file", "row_number", "raw").rows() == [
        ("medqa", "unit_candidates", "US_test.jsonl", 1, "he was found undressing himself outside in 110°F weather")]
    assert quarantined["row_key"][0].startswith("medqa:0123abcd0123abcd:")
    assert quarantined["reason"][0] == QUARANTINE_REASON
    # the rest of the case is converted: its other history, findings and presentation
    assert "His wife says he has been confused for 2 days." in out.unit_candidates["text"].to_list()
    assert {"Body temperature", "Heart rate", "Blood pressure"} <= set(out.exam_candidates["exam_name"])
    assert out.presentations.height == 1


@pytest.mark.parametrize("text, measured", [
    ("outside in 110°F weather", True), ("blood pressure at home was 150/95 mm Hg", True),
    ("Her hemoglobin was 9.1 g/dL", True), ("oxygen saturation at home 88%", True),
    ("She takes 81 mg of aspirin daily", False), ("He ran 5 km", False), (None, False)])
def test_holds_measurement(text, measured):
    assert holds_measurement(text) is measured
