"""The ED-diagnosis audit finds a diagnosis that reached a patient-visible text from ed_diagnosis,
and lets through what the patient may say (a symptom, a condition known from an earlier stay)."""

import polars as pl

from pipelines.content.ed_audit import ed_diagnosis_leaks, patient_texts

CASE = "c_0000000000000001"
SKELETON = pl.DataFrame({"case_id": [CASE], "primary_icd10_category": ["I61"]})
DIAGNOSES = pl.DataFrame({"case_id": [CASE] * 3, "icd_code": ["431", "7840", "42731"], "icd_version": [9, 9, 9],
                          "icd_title": ["INTRACEREBRAL HEMORRHAGE", "HEADACHE", "ATRIAL FIBRILLATION"]})


def _texts(*rows: tuple[str, str | None]) -> pl.DataFrame:
    units = pl.DataFrame({"case_id": [CASE] * len(rows), "text": [t for t, _ in rows],
                          "source_ref": [r for _, r in rows]}, schema_overrides={"source_ref": pl.Utf8})
    presentations = pl.DataFrame({"case_id": [CASE], "presentation": ["A 70-year-old man presenting with headache."]})
    return patient_texts(units, presentations)


def test_what_the_patient_may_say_passes():
    texts = _texts(("Headache", "ed_triage:chiefcomplaint:0"),
                   ("I have atrial fibrillation", "mimic_diagnoses_icd:prior:icd9:42731"))
    assert ed_diagnosis_leaks(DIAGNOSES, texts, SKELETON).is_empty()


def test_a_unit_from_ed_diagnosis_or_with_the_eds_title_of_the_diagnosis_is_found():
    texts = _texts(("I was told I have an intracerebral hemorrhage", "mimic_notes:1-40"),
                   ("Atrial fibrillation", "ed_diagnosis:seq=3"))
    hits = ed_diagnosis_leaks(DIAGNOSES, texts, SKELETON)
    assert sorted(hits.select("rule", "title").rows(), key=str) == [
        ("source", None), ("title", "intracerebral hemorrhage")]
    profiles = pl.DataFrame({"case_id": [CASE], "profile_conditions": [["Intracerebral hemorrhage"]]})
    no_units = pl.DataFrame(schema={"case_id": pl.Utf8, "text": pl.Utf8, "source_ref": pl.Utf8})
    no_presentations = pl.DataFrame(schema={"case_id": pl.Utf8, "presentation": pl.Utf8})
    in_profile = ed_diagnosis_leaks(DIAGNOSES, patient_texts(no_units, no_presentations, profiles), SKELETON)
    assert in_profile["rule"].to_list() == ["title"]
