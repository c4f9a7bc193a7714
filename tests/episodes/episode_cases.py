"""A small hand-made store: five cases (heart failure, pneumonia, appendicitis; train and test)."""

from __future__ import annotations

import json

import polars as pl

STYLE = json.dumps({"verbosity": "moderate", "anxiety": "calm", "cooperativeness": "cooperative", "recall": "fair"})

# case_id suffix, split, presentation, diagnosis, code, category, block, chapter, units, exams
# units: (category, text, negated, importance, disclosed); exams: (name, kind, num, text, unit, low, high, abnormal)
CASES = [
    ("01", "test", "A 70-year-old man presenting with shortness of breath.", "Heart failure, unspecified", "I50.9",
     "I50", "I30-I5A", "09",
     [("chief_complaint", "shortness of breath", False, "key", True),
      ("hpi", "swelling of both legs for a week", False, "key", False),
      ("hpi", "no chest pain", True, "supporting", False),
      ("pmh", "hypertension", False, "supporting", False),
      ("medication", "furosemide 40 mg by mouth daily", False, "supporting", False),
      ("allergy", "allergic to penicillin", False, "background", False),
      ("social", "former smoker", False, "background", False)],
     [("Hemoglobin", "lab", 13.2, "13.2", "g/dL", 12.0, 16.0, False),
      ("NT-proBNP", "lab", 5400.0, "5400", "pg/mL", 0.0, 125.0, True),
      ("Sodium", "lab", 131.0, "131", "mmol/L", 135.0, 145.0, True),
      ("Chest X-ray", "imaging", None, "Bilateral pleural effusions with interstitial edema and cardiomegaly.", None,
       None, None, True)]),
    ("02", "train", "A 65-year-old woman presenting with dyspnea.", "Heart failure, unspecified", "I50.9", "I50",
     "I30-I5A", "09",
     [("chief_complaint", "dyspnea", False, "key", True),
      ("hpi", "leg swelling and orthopnea for two weeks", False, "key", False),
      ("medication", "furosemide 20 mg by mouth daily", False, "supporting", False)],
     [("NT-proBNP", "lab", 3100.0, "3100", "pg/mL", 0.0, 125.0, True),
      ("Chest X-ray", "imaging", None, "Cardiomegaly with pulmonary edema.", None, None, None, True)]),
    ("03", "train", "A 40-year-old man presenting with fever and cough.", "Pneumonia, unspecified organism", "J18.9",
     "J18", "J09-J18", "10",
     [("chief_complaint", "fever and cough", False, "key", True),
      ("hpi", "productive cough with yellow sputum for three days", False, "key", False),
      ("social", "works as a teacher", False, "background", False)],
     [("White blood cell count", "lab", 15.1, "15.1", "K/uL", 4.0, 11.0, True),
      ("Chest X-ray", "imaging", None, "Right lower lobe consolidation.", None, None, None, True)]),
    ("04", "train", "A 30-year-old woman presenting with abdominal pain.", "Unspecified acute appendicitis", "K35.80",
     "K35", "K35-K38", "11",
     [("chief_complaint", "abdominal pain", False, "key", True),
      ("hpi", "pain moved to the right lower quadrant with nausea", False, "key", False)],
     [("White blood cell count", "lab", 13.0, "13.0", "K/uL", 4.0, 11.0, True),
      ("CT abdomen and pelvis", "imaging", None, "Dilated appendix with periappendiceal fat stranding.", None, None,
       None, True)]),
    ("05", "test", "A 35-year-old man presenting with fever.", "Pneumonia, unspecified organism", "J18.9", "J18",
     "J09-J18", "10",
     [("chief_complaint", "fever", False, "key", True),
      ("hpi", "cough with green sputum and chills", False, "key", False),
      ("pmh", "asthma", False, "supporting", False)],
     [("White blood cell count", "lab", 14.0, "14.0", "K/uL", 4.0, 11.0, True),
      ("Chest X-ray", "imaging", None, "Left lower lobe consolidation.", None, None, None, True)]),
]
CATALOG = [
    ("Hemoglobin", "lab", ["Hgb", "Hb"]),
    ("NT-proBNP", "lab", ["proBNP"]),
    ("Sodium", "lab", ["Na"]),
    ("Potassium", "lab", ["K"]),
    ("White blood cell count", "lab", ["WBC", "xyz"]),
    ("Urine white blood cells", "lab", ["WBC", "xyz"]),
    ("Glucose", "lab", []),
    ("Urine glucose", "lab", ["glucose"]),
    ("Chest X-ray", "imaging", ["CXR", "chest radiograph"]),
    ("CT abdomen and pelvis", "imaging", ["CT abdomen"]),
    ("Lipase", "lab", []),
]


def case_id(suffix: str) -> str:
    return f"c_{suffix:0>16}"


def frames() -> dict[str, pl.DataFrame]:
    cases, units, exams, profiles = [], [], [], []
    for suffix, split, presentation, name, code, category, block, chapter, case_units, case_exams in CASES:
        cid = case_id(suffix)
        cases.append({"case_id": cid, "source": "mimic_iv", "dataset": "demo", "split": split, "age": 60, "sex": "M",
                      "presentation": presentation, "diagnosis_name": name, "acceptable_names": [name],
                      "primary_icd10": code, "primary_icd10_category": category, "primary_icd10_block": block,
                      "primary_icd10_chapter": chapter, "icd_origin": "icd10", "secondary_icd10": [],
                      "n_units": len(case_units), "n_exams": len(case_exams), "structured_only": False})
        for i, (cat, text, negated, importance, disclosed) in enumerate(case_units):
            units.append({"case_id": cid, "unit_id": f"u_{suffix}{i:0>14}", "ordinal": i, "category": cat,
                          "text": text, "negated": negated, "importance": importance, "disclosed": disclosed,
                          "source_ref": "test"})
        for exam, kind, num, text, unit, low, high, abnormal in case_exams:
            exams.append({"case_id": cid, "exam_name": exam, "kind": kind, "value_num": num, "value_text": text,
                          "unit": unit, "ref_low": low, "ref_high": high, "abnormal": abnormal, "offset_hours": 1.0,
                          "origin": "recorded", "source_ref": "test"})
        profiles.append({"case_id": cid, "openness": 0.5, "conscientiousness": 0.5, "extraversion": 0.5,
                         "agreeableness": 0.5, "neuroticism": 0.5, "speech_style": STYLE})
    catalog = pl.DataFrame([{"exam_name": n, "kind": k, "aliases": a, "n_cases": 1} for n, k, a in CATALOG],
                           schema={"exam_name": pl.Utf8, "kind": pl.Utf8, "aliases": pl.List(pl.Utf8),
                                   "n_cases": pl.Int32})
    return {"cases": pl.DataFrame(cases), "information_units": pl.DataFrame(units), "exam_results": pl.DataFrame(exams),
            "exam_catalog": catalog, "profiles": pl.DataFrame(profiles)}
