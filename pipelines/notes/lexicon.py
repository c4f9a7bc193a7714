"""Word lists for the note path: abbreviation expansions, exam body systems, finding vocabulary.

All lists are data: extending them changes no code.
"""

from __future__ import annotations

import re

# Clinical shorthand -> readable text, applied to unit and finding text (whole words, case as written:
# upper-case abbreviations only expand when written in upper case, so "CAP" the pneumonia is not "cap").
ABBREVIATIONS: dict[str, str] = {
    "CP": "chest pain", "SOB": "shortness of breath", "DOE": "dyspnea on exertion",
    "PND": "paroxysmal nocturnal dyspnea", "N/V/D": "nausea, vomiting and diarrhea", "N/V": "nausea and vomiting",
    "HA": "headache", "LOC": "loss of consciousness", "BRBPR": "bright red blood per rectum", "LE": "lower extremity",
    "BLE": "bilateral lower extremity", "LLE": "left lower extremity", "RLE": "right lower extremity",
    "LUE": "left upper extremity", "RUE": "right upper extremity", "RUQ": "right upper quadrant",
    "LUQ": "left upper quadrant", "RLQ": "right lower quadrant", "LLQ": "left lower quadrant",
    "abd": "abdominal", "Abd": "abdominal", "h/o": "history of", "H/O": "history of", "c/o": "complains of",
    "s/p": "status post", "S/P": "status post", "p/w": "presenting with", "w/": "with", "w/o": "without",
    "pt": "patient", "Pt": "patient",
    "y/o": "year-old", "yo": "year-old", "y.o.": "year-old", "AMS": "altered mental status",
    "NH": "nursing home", "PMH": "past medical history", "PCP": "primary care physician", "HTN": "hypertension",
    "HLD": "hyperlipidemia",
    "DM2": "type 2 diabetes mellitus", "T2DM": "type 2 diabetes mellitus", "DMII": "type 2 diabetes mellitus",
    "T1DM": "type 1 diabetes mellitus", "DM": "diabetes mellitus", "CAD": "coronary artery disease",
    "CKD": "chronic kidney disease", "ESRD": "end-stage renal disease", "COPD": "chronic obstructive pulmonary disease",
    "CHF": "congestive heart failure", "AFib": "atrial fibrillation", "afib": "atrial fibrillation",
    "OSA": "obstructive sleep apnea", "GERD": "gastroesophageal reflux disease", "BPH": "benign prostatic hyperplasia",
    "MI": "myocardial infarction", "CVA": "stroke", "TIA": "transient ischemic attack", "DVT": "deep vein thrombosis",
    "CABG": "coronary artery bypass graft", "PCI": "percutaneous coronary intervention", "EtOH": "alcohol",
    "ETOH": "alcohol", "etoh": "alcohol", "tob": "tobacco", "NKDA": "no known drug allergies",
    "NKA": "no known allergies", "PO intake": "oral intake", "PO": "by mouth", "BID": "twice daily", "TID": "three times daily",
    "QID": "four times daily", "QHS": "at bedtime", "qhs": "at bedtime", "PRN": "as needed", "prn": "as needed",
    "DAILY": "daily", "QAM": "every morning", "QPM": "every evening", "SL": "sublingual", "SC": "subcutaneous",
    "SQ": "subcutaneous", "IH": "inhaled", "ASA": "aspirin", "HCTZ": "hydrochlorothiazide", "NTG": "nitroglycerin",
    "LBP": "low back pain", "URI": "upper respiratory infection", "BM": "bowel movement", "BMs": "bowel movements",
    "f/c": "fevers or chills", "OTC": "over-the-counter", "hx": "history", "Hx": "history",
}
_ABBREV_RE = re.compile(
    r"(?<![\w/])(" + "|".join(re.escape(k) for k in sorted(ABBREVIATIONS, key=len, reverse=True)) + r")(?![\w/])"
)
_DURATION_RE = re.compile(r"(?<!\w)[xX] ?(\d+(?:\.\d+)?) ?(days?|d|weeks?|wks?|months?|mos?|hours?|hrs?|years?|yrs?)\b")
_DURATION_UNITS = {"d": "days", "wk": "weeks", "wks": "weeks", "mo": "months", "mos": "months", "hr": "hours",
                   "hrs": "hours", "yr": "years", "yrs": "years"}
_HONORIFIC_RE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx)\.? +_{2,}")


def expand(text: str) -> str:
    """Readable text: shorthand expanded, "x2 days" -> "for 2 days", "Mr. ___" -> "the patient"."""
    text = _HONORIFIC_RE.sub("the patient", text)
    text = _DURATION_RE.sub(lambda m: f"for {m.group(1)} {_DURATION_UNITS.get(m.group(2).lower(), m.group(2))}", text)
    return _ABBREV_RE.sub(lambda m: ABBREVIATIONS[m.group(1)], text)


# Physical exam line label (lower case, without the colon) -> exam_name of the body system.
EXAM_SYSTEMS: dict[str, str] = {}
for _name, _labels in {
    "General appearance": ["general", "gen", "constitutional", "appearance", "ga", "general appearance"],
    "HEENT exam": ["heent", "head", "eyes", "ears", "ent", "nose", "throat", "mouth", "oropharynx", "eye",
                   "heent/neck", "face", "op", "pupils", "eyes/ent", "ent/eyes"],
    "Neck exam": ["neck", "thyroid"],
    "Cardiac exam": ["cv", "cardiac", "cardiovascular", "heart", "cor", "cvs", "card", "cardio", "cardiopulmonary"],
    "Lung exam": ["lungs", "lung", "resp", "respiratory", "pulm", "pulmonary", "chest", "pul"],
    "Abdominal exam": ["abd", "abdomen", "abdominal", "gi", "abdo"],
    "Genitourinary exam": ["gu", "genitourinary", "rectal", "pelvic", "genitalia", "gyn"],
    "Back exam": ["back", "spine", "cva tenderness"],
    "Extremities": ["ext", "extremities", "extremity", "extr", "exts"],
    "Musculoskeletal exam": ["msk", "musculoskeletal", "joints", "joint"],
    "Pulses": ["pulses", "vascular", "pulse exam"],
    "Neurologic exam": ["neuro", "neurologic", "neurological", "ns", "neuro exam", "cn", "motor", "sensory",
                        "reflexes", "coordination", "gait", "strength", "mental status", "ms", "cranial nerves"],
    "Skin": ["skin", "integument", "derm", "dermatologic", "integumentary"],
    "Psychiatric exam": ["psych", "psychiatric", "mood", "affect"],
    "Lymph nodes": ["lymph", "lymphatics", "lymph nodes", "lymphatic", "nodes", "lad"],
    "Breast exam": ["breast", "breasts"],
}.items():
    for _label in _labels:
        EXAM_SYSTEMS[_label] = _name
VITAL_LABELS = frozenset({"vs", "vitals", "vital signs", "v/s", "vital", "vitals signs"})

# Target phrases for the medspaCy TargetMatcher: ABNORMAL findings; NORMAL phrases exist only so that the
# longer normal wording wins over an abnormal word inside it ("non-tender" vs "tender").
ABNORMAL_FINDINGS: list[str] = [
    # physical exam
    "rales", "crackles", "crackle", "rhonchi", "rhonchus", "wheeze", "wheezes", "wheezing", "stridor", "murmur",
    "murmurs", "gallop", "gallops", "S3", "S4", "rub", "rubs", "tender", "tenderness", "TTP", "guarding",
    "rebound", "rigidity", "rigid", "distended", "distension", "distention", "JVD", "elevated JVP",
    "JVP elevated", "jaundice", "jaundiced", "icteric", "icterus", "diminished", "decreased", "absent",
    "irregular", "irregularly irregular", "tachycardic", "bradycardic", "tachypneic", "cyanosis", "cyanotic",
    "clubbing", "rash", "rashes", "erythema", "erythematous", "ulcer", "ulcers", "ulceration", "weakness",
    "weak", "asymmetric", "asymmetry", "dullness", "ascites", "hepatomegaly", "splenomegaly",
    "hepatosplenomegaly", "mass", "masses", "lesion", "lesions", "distress", "diaphoretic", "lethargic",
    "confused", "somnolent", "obtunded", "disoriented", "pale", "pallor", "ill-appearing", "ill appearing",
    "toxic-appearing", "petechiae", "purpura", "crepitus", "effusion", "swelling", "swollen", "edema",
    "pitting", "pronator drift", "drift", "facial droop", "aphasia", "aphasic", "dysarthria", "dysarthric",
    "nystagmus", "asterixis", "accessory muscle use", "retractions", "labored", "increased work of breathing",
    "lymphadenopathy", "nuchal rigidity", "meningismus", "agitated", "delirious", "warm to touch",
    "fluctuance", "induration", "abscess", "tremor", "ecchymosis", "ecchymoses", "hematoma", "laceration",
    "deformity", "neglect", "ataxia", "ataxic", "hemiparesis", "paresis", "plegia", "clonus", "Babinski",
    "febrile", "dry mucous membranes", "mucous membranes dry", "MMM dry", "poor air movement",
    "prolonged expiratory phase", "bruit", "bruits", "peritoneal signs", "psoas sign", "Murphy sign",
    "Murphy's sign", "CVA tenderness", "flank tenderness", "hypoactive", "hyperactive", "egophony",
    "bronchial breath sounds", "nauseated", "tremulous", "slurred", "dysmetria", "photophobia",
    # imaging
    "consolidation", "consolidations", "opacity", "opacities", "opacification", "infiltrate", "infiltrates",
    "pneumothorax", "atelectasis", "cardiomegaly", "enlarged", "enlargement", "dilated", "dilation",
    "dilatation", "thickening", "thickened", "stone", "stones", "calculus", "calculi", "obstruction",
    "obstructed", "free air", "pneumoperitoneum", "fluid collection", "collection", "nodule", "nodules",
    "filling defect", "filling defects", "thrombus", "thrombosis", "embolus", "emboli", "occlusion",
    "occluded", "stenosis", "hemorrhage", "hypodensity", "hypodense", "hyperdensity", "hyperdense", "infarct",
    "infarction", "midline shift", "herniation", "fracture", "fractures", "dislocation", "fat stranding",
    "stranding", "perforation", "pneumatosis", "hydronephrosis", "hydroureter", "aneurysm", "dissection",
    "vegetation", "vegetations", "congestion", "interstitial edema", "pulmonary edema", "free fluid",
    "mass effect", "edematous", "inflammation", "inflamed", "sludge", "wall thickening",
    "pericholecystic fluid", "appendicolith", "air-fluid levels", "air fluid levels",
]
NORMAL_FINDINGS: list[str] = [
    "non-tender", "nontender", "non tender", "not tender", "non-distended", "nondistended", "non distended",
    "not distended", "anicteric", "non-icteric", "non-labored", "nonlabored", "unlabored",
    "NAD", "RRR", "CTAB", "clear to auscultation", "regular rate and rhythm", "normal", "unremarkable",
    "within normal limits", "WNL", "intact", "well-appearing", "well appearing",
]
