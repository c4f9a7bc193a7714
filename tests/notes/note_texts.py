"""Hand-written MIMIC-IV-Note style texts shared by the note tests.

The discharge summary has ``___`` inside headers, an upper-case header, sections out of the usual
order (family history before past medical history, hospital course before pertinent results), no
"Major Surgical or Invasive Procedure" and no review of systems, hard-wrapped HPI lines, and no
trailing newline.
"""

from __future__ import annotations

import polars as pl

CASE_ID = "c_0123456789abcdef"
NOTE_ID = "10000032-DS-21"
RAD_NOTE_ID = "10000032-RR-14"

DISCHARGE_NOTE = """ 
Name:  ___                     Unit No:   ___
 
Admission Date:  ___              Discharge Date:   ___
 
Date of Birth:  ___             Sex:   F
 
Service: MEDICINE
 
Allergies: 
Penicillins / Codeine
 
Attending: ___.
 
___ Complaint:
Chest pain, SOB
 
History of Present ___:
Ms. ___ is a ___ year old woman with h/o HTN, HLD who presents with
2 days of substernal chest pain radiating to the left arm. Pt c/o CP and SOB x2
days, denies fever. She reports nausea and diaphoresis. No recent travel.
In the ED, initial vitals were T 98.6 HR 105 BP 160/90. Troponin was 2.3 and she
was started on heparin gtt.
 
Family History:
Father died of heart attack at 55. Mother with breast cancer.
 
PAST MEDICAL HISTORY:
- HTN
- HLD
- Type 2 diabetes mellitus, diet
  controlled
 
Social History:
Lives with her husband. Former smoker, quit ___ years ago.
Illicits: denies.
 
Physical Exam:
ADMISSION PHYSICAL EXAM:
VS: T 101.2 HR 112 BP 90/60 RR 22 O2 93% RA
General: Diaphoretic, in mild distress
HEENT: Sclera anicteric, MMM
CV: Tachycardic, regular rhythm, ___ systolic murmur at apex
Lungs: Crackles at bilateral bases, no wheezes
Abdomen: Soft, non-tender, non-distended
Ext: No edema
Neuro: A&Ox3, CN II-XII intact

DISCHARGE PHYSICAL EXAM:
VS: 98.1 PO 118 / 70 72 16 97 RA
Lungs: clear
Abdomen: tender in RUQ
 
Brief Hospital Course:
Ms. ___ was admitted with an NSTEMI. She underwent cardiac catheterization with a
drug-eluting stent to the LAD.
 
Pertinent Results:
___ 07:35AM BLOOD cTropnT-2.3*
 
Medications on Admission:
The Preadmission Medication list is accurate and complete.
1. Metformin 500 mg PO BID 
2. Lisinopril 10 mg PO DAILY 
 
Discharge Medications:
1. Aspirin 81 mg PO DAILY 
 
Discharge Diagnosis:
Primary: Non-ST elevation myocardial infarction
 
Discharge Condition:
Mental Status: Clear and coherent.
 
Discharge Instructions:
You were admitted for a heart attack.
 
Followup Instructions:
___"""

# Text that only ever appears in sections that must never reach the patient or the exam view.
NEVER_SENTINELS = ("catheterization", "stent", "Aspirin", "Clear and coherent", "admitted for", "heparin",
                   "Troponin", "cTropnT", "RUQ")

RADIOLOGY_NOTE = """EXAMINATION:  CHEST (PA AND LAT)

INDICATION:  ___ year old woman with cough and fever  // eval for pneumonia

TECHNIQUE:  Chest PA and lateral

COMPARISON:  None.

FINDINGS: 

There is a small left pleural effusion. Patchy left lower lobe opacity
consistent with pneumonia. No pneumothorax. Heart size is normal.

IMPRESSION: 

Left lower lobe pneumonia with small effusion.
"""

NORMAL_RADIOLOGY_NOTE = """EXAMINATION:  CT HEAD W/O CONTRAST

INDICATION:  ___ with fall  // eval for bleed

FINDINGS: 

There is no evidence of hemorrhage, edema, mass effect or infarction. The ventricles
and sulci are normal in size. No fracture.

IMPRESSION: 

No acute intracranial process.
"""


def nstemi_cases(note_ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "note_id": note_ids,
            "case_id": [CASE_ID] * len(note_ids),
            "diagnosis_name": ["NSTEMI"] * len(note_ids),
            "acceptable_names": [["Non-ST elevation myocardial infarction"]] * len(note_ids),
            "primary_icd10": ["I21.4"] * len(note_ids),
            "icd10_title": ["Non-ST elevation (NSTEMI) myocardial infarction"] * len(note_ids),
        },
        schema_overrides={"acceptable_names": pl.List(pl.Utf8)},
    )

