"""Vignette -> presentation, history units and findings (pipelines.medqa.vignette / findings / history)."""

from __future__ import annotations

import pytest

from pipelines.medqa.findings import flag_text, table_row, vitals
from pipelines.medqa.history import categorise, negation_flags
from pipelines.medqa.vignette import patient_age_sex, split_vignette, stem_span

QUESTION = (
    "A 54-year-old man with a history of hypertension comes to the emergency department because of chest pain "
    "for 2 hours. He describes the pain as sharp and worse when lying down. He denies cough and fever. "
    "He takes lisinopril 10 mg daily. He has smoked one pack of cigarettes daily for 30 years. "
    "His father died of a myocardial infarction at 60 years of age. "
    "His temperature is 38.1°C (100.6°F), pulse is 110/min, respirations are 22/min, and blood pressure is "
    "150/95 mm Hg. Oxygen saturation is 97% on room air. On examination, a friction rub is heard at the left sternal "
    "border. The lungs are clear to auscultation. An ECG shows diffuse ST-segment elevations. "
    "Laboratory studies show:\n"
    "Hemoglobin 14 g/dL\n"
    "Leukocyte count 13,500/mm3\n"
    "Serum\n"
    "Bilirubin\n"
    "Total 0.8 mg/dL\n"
    "Direct 0.2 mg/dL\n"
    "C-reactive protein 35 mg/L (N < 8 mg/L)\n"
    "Troponin I negative\n"
    "Which of the following is the most likely diagnosis?"
)


@pytest.fixture(scope="module")
def vignette():
    return split_vignette(QUESTION)


def test_age_sex_from_the_patient_phrase():
    assert patient_age_sex(QUESTION) == (54, "M")
    assert patient_age_sex("A 4-week-old female newborn is brought ...") == (0, "F")
    assert patient_age_sex("A mother brings her 6-year-old son because he limps.") == (6, "M")
    assert patient_age_sex("A 30-year-old G2P1 at 39 weeks' gestation comes ...") == (30, "F")
    assert patient_age_sex("An 11-year-old child complains of leg pain.") == (11, None)


def test_stem_is_removed(vignette):
    start, _ = stem_span(QUESTION)
    assert QUESTION[start:] == "Which of the following is the most likely diagnosis?"
    assert vignette.stem == "Which of the following is the most likely diagnosis?"
    assert all("most likely" not in u.text for u in vignette.history)


def test_presentation_is_age_sex_and_complaint_without_history(vignette):
    assert vignette.presentation == "A 54-year-old man comes to the emergency department because of chest pain for 2 hours."
    assert vignette.demographic.text == "54-year-old man" and vignette.demographic.disclosed
    assert vignette.chief_complaint.text == "chest pain for 2 hours" and vignette.chief_complaint.disclosed
    moved = [u for u in vignette.history if "hypertension" in u.text]
    assert moved and moved[0].category == "pmh" and not moved[0].disclosed


def test_history_units_have_categories_and_negation(vignette):
    by_text = {u.text: u for u in vignette.history}
    assert by_text["He denies cough and fever."].negated
    assert by_text["He denies cough and fever."].category == "ros"
    assert by_text["He takes lisinopril 10 mg daily."].category == "medication"
    assert by_text["He has smoked one pack of cigarettes daily for 30 years."].category == "social"
    assert by_text["His father died of a myocardial infarction at 60 years of age."].category == "family"
    assert by_text["He describes the pain as sharp and worse when lying down."].category == "hpi"
    assert not any("°C" in u.text or "mm Hg" in u.text or "/min" in u.text for u in vignette.history)


def test_vitals_and_labs_become_findings_with_units_and_flags(vignette):
    found = {f.exam_name: f for f in vignette.findings}
    assert (found["Body temperature"].value_num, found["Body temperature"].unit, found["Body temperature"].abnormal) == (38.1, "°C", True)
    assert (found["Heart rate"].value_num, found["Heart rate"].abnormal) == (110, True)
    assert found["Blood pressure"].value_text == "150/95" and found["Blood pressure"].abnormal
    assert found["Oxygen saturation (pulse oximetry)"].value_num == 97 and not found["Oxygen saturation (pulse oximetry)"].abnormal
    assert found["White blood cell count"].value_num == 13500 and found["White blood cell count"].abnormal
    assert found["Hemoglobin"].abnormal is False
    assert found["Total bilirubin"].value_num == 0.8 and found["Direct bilirubin"].value_num == 0.2
    crp = found["C-reactive protein"]
    assert (crp.value_num, crp.ref_high, crp.abnormal) == (35, 8, True)
    assert found["Troponin I"].value_text == "negative" and found["Troponin I"].abnormal is False
    assert found["Electrocardiogram"].kind == "ecg" and found["Electrocardiogram"].abnormal
    assert found["Cardiovascular examination"].abnormal  # friction rub
    assert found["Pulmonary examination"].abnormal is False  # clear to auscultation
    assert len([f for f in vignette.findings if f.exam_name == "Body temperature"]) == 1  # °F is the same reading


def test_mixed_sentence_is_split_into_history_and_finding():
    q = ("A 40-year-old woman comes to the physician because of fatigue. She has had a cough for 3 weeks, and her "
         "temperature is 38.5°C. What is the most likely diagnosis?")
    v = split_vignette(q)
    assert [u.text for u in v.history] == ["She has had a cough for 3 weeks"]
    assert [f.exam_name for f in v.findings] == ["Body temperature"]


def test_sentences_after_the_examination_are_findings_unless_reported():
    q = ("A 33-year-old man comes to the emergency department with confusion. Physical examination shows a rigid "
         "abdomen. He has minimal muscle tone. His wife reports that he drinks heavily. Which of the following is the "
         "most likely diagnosis?")
    v = split_vignette(q)
    assert "He has minimal muscle tone." in " ".join(f.value_text or "" for f in v.findings)
    assert [u.text for u in v.history] == ["His wife reports that he drinks heavily."]


def test_image_references_are_dropped():
    q = ("A 20-year-old man comes because of a rash. A photograph of the rash is shown. "
         "Which of the following is the most likely diagnosis?")
    v = split_vignette(q)
    assert not v.findings and v.dropped


def test_table_rows_and_printed_ranges():
    row = table_row("Thyroid-stimulating hormone (TSH) 0.1 mIU/L N: 0.5–5 mIU/L", 0, None, None, "F", 40)
    assert (row.exam_name, row.value_num, row.unit, row.ref_low, row.ref_high, row.abnormal) == (
        "Thyroid stimulating hormone", 0.1, "mU/L", 0.5, 5.0, True)
    urine = table_row("Protein 2+", 0, "Urine", "urine", "F", 40)
    assert urine.exam_name == "Protein (Urine)" and urine.abnormal
    assert table_row("Blood group A positive", 0, None, None, "F", 40).abnormal is None


def test_vital_flags_are_for_adults_only():
    items, _ = vitals("pulse is 150/min and respirations are 40/min", 0, "M", 1)
    assert [i.abnormal for i in items] == [None, None]
    items, _ = vitals("temperature is 102.2°F (39°C)", 0, "M", 1)
    assert len(items) == 1 and items[0].unit == "°F" and items[0].abnormal


def test_text_flags():
    assert flag_text("Cardiopulmonary examination shows no abnormalities.", True) is False
    assert flag_text("On physical exam there is no costovertebral angle tenderness.", True) is False
    assert flag_text("Examination shows scleral icterus.", True) is True
    assert flag_text("She is at the 50th percentile for length.", True) is False


def test_categories_and_negation():
    assert categorise("She is allergic to penicillin.") == "allergy"
    assert categorise("Her mother has type 2 diabetes mellitus.") == "family"
    assert categorise("The mother has noticed that the stools are pale.") == "hpi"
    assert categorise("She underwent cholecystectomy 5 years ago.") == "psh"
    assert categorise("He has a 2-week history of cough.") == "hpi"
    assert categorise("He has a history of asthma.") == "pmh"
    assert negation_flags(["She denies fever.", "He has had bruises without any trauma either.", "No chest pain."]) == [
        True, False, True]
