"""Which MedQA questions become diagnosis cases (pipelines.medqa.select)."""

from __future__ import annotations

import pytest

from pipelines.medqa.select import classify_question, question_stem

VIGNETTE = ("A 34-year-old woman comes to the emergency department because of chest pain. "
            "Her temperature is 38.2°C (100.8°F). ")
OPTIONS = {"A": "Acute pericarditis", "B": "Aortic dissection", "C": "Pulmonary embolism"}


def test_stem_is_the_last_question_sentence():
    q = VIGNETTE + "Laboratory studies show:\nHemoglobin 12 g/dL\nWhich of the following is the most likely diagnosis?"
    assert question_stem(q) == "Which of the following is the most likely diagnosis?"
    assert question_stem("A man has a cough. Further evaluation would most likely reveal:") == \
        "Further evaluation would most likely reveal:"


@pytest.mark.parametrize("stem", [
    "Which of the following is the most likely diagnosis?",
    "What is the most likely diagnosis in this patient?",
    "What is the patient's most likely diagnosis?",
    "This patient is most likely suffering from which of the following?",
    "Which of the following conditions does this patient most likely have?",
])
def test_direct_diagnosis_stems_are_cases(stem):
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Acute pericarditis")
    assert ok and why.startswith("diagnosis question")


@pytest.mark.parametrize(("stem", "asks"), [
    ("Which of the following is the most appropriate next step in management?", "next step"),
    ("Which of the following is the most appropriate pharmacotherapy?", "treatment or drug"),
    ("Which of the following underlies the patient's most likely diagnosis?", None),
    ("Which of the following is most likely to confirm the diagnosis?", "test or finding"),
    ("Which of the following best describes the mechanism of action of the drug?", "mechanism"),
])
def test_other_stems_are_excluded_with_what_they_ask(stem, asks):
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Acute pericarditis")
    assert not ok
    if asks:
        assert f"asks for {asks}" in why


def test_cause_stems_need_a_disease_answer():
    stem = "Which of the following is the most likely cause of this patient's condition?"
    assert classify_question(VIGNETTE + stem, OPTIONS, "Acute pericarditis")[0]
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Impaired migration of GnRH neurons")
    assert not ok and "mechanism" in why
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Salmonella typhi")
    assert not ok and "organism" in why
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Anterior horn cell degeneration")
    assert not ok and "mechanism" in why
    ok, why = classify_question(VIGNETTE + stem, {"A": "Aspirin", "B": "Heparin"}, "Increase in capillary pressure")
    assert not ok and "not a recognisable disease" in why


def test_cause_stems_about_something_else_are_excluded():
    stem = "Which of the following is the most likely causal organism?"
    ok, why = classify_question(VIGNETTE + stem, OPTIONS, "Streptococcus pneumoniae")
    assert not ok and "organism" in why


def test_a_rare_disease_answer_among_disease_options_is_a_case():
    stem = "Which of the following is the most likely cause of this patient's symptoms?"
    options = {"A": "Parinaud syndrome", "B": "Multiple sclerosis", "C": "Myasthenia gravis", "D": "Bell palsy"}
    ok, why = classify_question(VIGNETTE + stem, options, "Parinaud syndrome")
    assert ok and "other options are diseases" in why
    drugs = {"A": "Anti-B antibodies", "B": "Aspirin", "C": "Heparin", "D": "Warfarin"}
    assert not classify_question(VIGNETTE + stem, drugs, "Anti-B antibodies")[0]
