"""Examination findings of a vignette as exam results: vitals, labs (prose or tables), text.

Numbers are read with their units; names are proposed in the spelling of
``pipelines/exams/exam_aliases.csv`` (``Hemoglobin``, ``White blood cell count``, ``Body
temperature``) so that ``exam_results`` canonicalises them, with the phrase as written kept in
``raw_name``.  ``abnormal`` comes from, in order: a reference range printed in the item itself
("(N < 8 mg/L)", "N: 0.5-5 mIU/L"), the USMLE laboratory reference values below (only when the
unit is the reference unit), or the wording of a qualitative result ("positive", "no growth").
Text findings (signs on examination, imaging, ECG, biopsy) are abnormal unless their wording is
normal or negated ("no abnormalities", "clear to auscultation", "There is no edema").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.medqa.text import ascii_fold


@dataclass(frozen=True)
class ExamItem:
    exam_name: str
    kind: str  # lab | vital | physical_exam | imaging | microbiology | ecg | pathology | other
    raw_name: str
    start: int  # span in the question text
    end: int
    value_num: float | None = None
    value_text: str | None = None
    unit: str | None = None
    ref_low: float | None = None
    ref_high: float | None = None
    abnormal: bool | None = None


# ------------------------------------------------------------------------------------- numbers

NUMBER = r"[<>≤≥]?\s?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[<>≤≥]?\s?\d+(?:\.\d+)?"
_UNIT_ALTS = (
    r"mm\s?Hg|cm\s?H2O|mm\s?H2O|°\s?[CF]|º\s?[CF]|degrees?\s?[CF]\b|/\s?min|per minute|beats/min|breaths/min"
    r"|/\s?(?:mm\^?3|mm³|µL|uL|μL|mcL|hpf|lpf|HPF|LPF|L|dL|mL)|cells/(?:mm\^?3|mm³|µL|uL|μL)"
    r"|(?:m|µ|u|μ|n|p|f)?g/(?:dL|L|mL|dl|ml|day|24 h)|gm/dL|gm%|g%|mEq/L|mmol/L|µmol/L|umol/L|μmol/L|nmol/L|pmol/L"
    r"|m?U/L|IU/L|mIU/mL|mIU/L|µU/mL|uU/mL|μU/mL|U/mL|IU/mL|kU/L|mOsm/kg(?:\s?H2O)?|mOsmol/kg(?:\s?H2O)?|mOsm/L"
    r"|kg/m\^?2|kg/m²|mm/h(?:r|our)?|sec(?:onds)?\b|s\b|min(?:utes)?\b|fL|fl\b|pg\b|ng\b|%"
    r"|copies/mL|×\s?10\^?\d+/L|x\s?10\^?\d+/L|mg\b|cm\b|mm\b|kg\b|lb\b|in\b|ft\b|L/min|mL/min(?:/1\.73\s?m2)?"
)
_UNIT = re.compile(rf"(?:{_UNIT_ALTS})", re.I)
VALUE_UNIT = re.compile(rf"(?<![\w.])({NUMBER})\s?({_UNIT_ALTS})(?![A-Za-z0-9])", re.I)
# A clinical measurement (excludes doses in mg and lengths, which history uses too).
MEASUREMENT = re.compile(
    rf"(?<![\w.])(?:{NUMBER})\s?(?:mm\s?Hg|°\s?[CF]|º\s?[CF]|degrees?\s?[CF]\b|/\s?min\b|beats/min|breaths/min"
    r"|/\s?(?:mm\^?3|mm³|µL|uL|μL|hpf)|(?:m|µ|u|μ|n|p)?g/(?:dL|L|mL|dl)|gm/dL|mEq/L|mmol/L|µmol/L|umol/L|nmol/L"
    r"|pmol/L|m?U/L|IU/L|mIU/mL|mIU/L|µU/mL|uU/mL|μU/mL|U/mL|mOsm/kg|mOsmol/kg|kg/m\^?2|kg/m²|mm/h(?:r)?|fL"
    r"|cm\s?H2O|×\s?10|x\s?10)"
    r"|\d{2,3}\s?/\s?\d{2,3}\s?mm\s?Hg|\b(?:oxygen saturation|O2 saturation|SpO2|pulse oximetry)\b[^.;]{0,40}\d{2,3}\s?%",
    re.I,
)


def to_number(text: str) -> float | None:
    t = text.replace(",", "").replace(" ", "").lstrip("<>≤≥")
    try:
        return float(t)
    except ValueError:
        return None


def normal_unit(unit: str | None) -> str | None:
    """One spelling per unit: ``/mm^3``/``/µL``/``cells/mm3`` -> ``/mm3``, ``gm/dL`` -> ``g/dL``."""
    if not unit:
        return None
    u = ascii_fold(unit).replace(" ", "").replace("^", "")
    u = re.sub(r"^cells/", "/", u)
    u = re.sub(r"/(?:mm3|mm³|µL|uL|μL|mcL)$", "/mm3", u, flags=re.I)
    u = re.sub(r"^(?:degrees?|º)", "°", u, flags=re.I)
    replacements = {"gm/dL": "g/dL", "gm%": "g/dL", "g%": "g/dL", "mmHg": "mm Hg", "IU/L": "U/L", "/min": "/min",
                    "perminute": "/min", "beats/min": "/min", "breaths/min": "/min", "sec": "s", "seconds": "s",
                    "fl": "fL", "kg/m2": "kg/m2", "kg/m²": "kg/m2", "mm/hr": "mm/h", "mm/hour": "mm/h",
                    "uU/mL": "µU/mL", "μU/mL": "µU/mL", "umol/L": "µmol/L", "μmol/L": "µmol/L", "mOsmol/kg": "mOsm/kg",
                    "mOsmol/kgH2O": "mOsm/kg", "mOsm/kgH2O": "mOsm/kg", "mIU/L": "mU/L", "cmH2O": "cm H2O",
                    "mmH2O": "mm H2O", "°c": "°C", "°f": "°F"}
    return replacements.get(u, replacements.get(u.lower(), u))


# ------------------------------------------------------------------------- reference values

@dataclass(frozen=True)
class Reference:
    unit: str
    low: float | None
    high: float | None
    female: tuple[float | None, float | None] | None = None


# USMLE laboratory reference values (adult); used only when the printed unit matches.
REFERENCES: dict[str, Reference] = {
    "Hemoglobin": Reference("g/dL", 13.5, 17.5, (12.0, 16.0)),
    "Hematocrit": Reference("%", 41, 53, (36, 46)),
    "White blood cell count": Reference("/mm3", 4500, 11000),
    "Platelet count": Reference("/mm3", 150000, 400000),
    "Mean corpuscular volume": Reference("fL", 80, 100),
    "Mean corpuscular hemoglobin concentration": Reference("%", 31, 36),
    "Red cell distribution width": Reference("%", None, 14.5),
    "Reticulocyte count": Reference("%", 0.5, 1.5),
    "Erythrocyte sedimentation rate": Reference("mm/h", 0, 15, (0, 20)),
    "Neutrophils": Reference("%", 54, 62),
    "Bands": Reference("%", 3, 5),
    "Lymphocytes": Reference("%", 25, 33),
    "Monocytes": Reference("%", 3, 7),
    "Eosinophils": Reference("%", 1, 3),
    "Basophils": Reference("%", 0, 0.75),
    "Sodium": Reference("mEq/L", 136, 146),
    "Potassium": Reference("mEq/L", 3.5, 5.0),
    "Chloride": Reference("mEq/L", 95, 105),
    "Bicarbonate": Reference("mEq/L", 22, 28),
    "Blood urea nitrogen": Reference("mg/dL", 7, 18),
    "Creatinine": Reference("mg/dL", 0.6, 1.2),
    "Glucose": Reference("mg/dL", 70, 140),  # non-fasting upper bound; vignettes rarely say fasting
    "Calcium": Reference("mg/dL", 8.4, 10.2),
    "Magnesium": Reference("mg/dL", 1.5, 2.0),
    "Phosphate": Reference("mg/dL", 3.0, 4.5),
    "Alanine aminotransferase": Reference("U/L", 10, 40),
    "Aspartate aminotransferase": Reference("U/L", 12, 38),
    "Alkaline phosphatase": Reference("U/L", 25, 100),
    "Gamma-glutamyl transferase": Reference("U/L", 5, 50),
    "Total bilirubin": Reference("mg/dL", 0.1, 1.0),
    "Direct bilirubin": Reference("mg/dL", 0.0, 0.3),
    "Albumin": Reference("g/dL", 3.5, 5.5),
    "Total protein": Reference("g/dL", 6.0, 7.8),
    "Amylase": Reference("U/L", 25, 125),
    "Lipase": Reference("U/L", 0, 160),
    "Lactate dehydrogenase": Reference("U/L", 45, 200),
    "Creatine kinase": Reference("U/L", 25, 90, (10, 70)),
    "Uric acid": Reference("mg/dL", 3.0, 8.2),
    "Total cholesterol": Reference("mg/dL", None, 200),
    "LDL cholesterol": Reference("mg/dL", None, 130),
    "HDL cholesterol": Reference("mg/dL", 40, None),
    "Triglycerides": Reference("mg/dL", None, 150),
    "Thyroid stimulating hormone": Reference("µU/mL", 0.4, 4.0),
    "Free T4": Reference("ng/dL", 0.9, 1.7),
    "Prothrombin time": Reference("s", 11, 15),
    "Partial thromboplastin time": Reference("s", 25, 40),
    "INR": Reference("", 0.8, 1.2),
    "Bleeding time": Reference("min", 2, 7),
    "Ferritin": Reference("ng/mL", 20, 250, (10, 120)),
    "Iron": Reference("µg/dL", 50, 170),
    "Total iron-binding capacity": Reference("µg/dL", 250, 400),
    "Transferrin saturation": Reference("%", 20, 50),
    "Hemoglobin A1c": Reference("%", 4.0, 5.6),
    "Blood pH": Reference("", 7.35, 7.45),
    "pCO2": Reference("mm Hg", 33, 45),
    "pO2": Reference("mm Hg", 75, 105),
    "Serum osmolality": Reference("mOsm/kg", 275, 295),
    "Anion gap": Reference("mEq/L", 7, 16),
    "CD4+ T-lymphocyte count": Reference("/mm3", 500, None),
    "Prostate-specific antigen": Reference("ng/mL", None, 4.0),
    "Lactate": Reference("mmol/L", 0.5, 2.2),
    # vitals (adults; children get no flag for heart rate, breathing rate and blood pressure)
    "Body temperature": Reference("°C", 36.0, 37.9),
    "Heart rate": Reference("/min", 60, 100),
    "Respiratory rate": Reference("/min", 12, 20),
    "Oxygen saturation (pulse oximetry)": Reference("%", 95, 100),
    "Body mass index": Reference("kg/m2", 18.5, 24.9),
}
_FAHRENHEIT = Reference("°F", 96.8, 100.3)
_ADULT_ONLY = {"Heart rate", "Respiratory rate", "Blood pressure"}


# ------------------------------------------------------------------------------ lab lexicon

# canonical name -> alias regex (matched on ASCII-folded text, case-insensitive unless noted)
LABS: list[tuple[str, str]] = [
    ("Hemoglobin A1c", r"hemoglobin a1c|hb ?a1c|glycated hemoglobin|glycosylated hemoglobin|\ba1c"),
    ("Mean corpuscular hemoglobin concentration", r"mean corpuscular hemoglobin concentration|\bmchc\b"),
    ("Mean corpuscular hemoglobin", r"mean corpuscular hemoglobin|\bmch\b"),
    ("Hemoglobin", r"h(?:a)?emoglobin|\bhgb\b|\bhb\b%?"),
    ("Hematocrit", r"hematocrit|\bhct\b"),
    ("Mean corpuscular volume", r"mean corpuscular volume|\bmcv\b"),
    ("Red cell distribution width", r"red cell distribution width|\brdw\b"),
    ("Reticulocyte count", r"reticulocyte(?:s| count)?"),
    ("White blood cell count", r"leukocyte count|leukocytes|white blood cell(?:s| count)?|\bwbc(?: count)?\b|"
                               r"white cell count|total count|total leukocyte count|wbc count"),
    ("Platelet count", r"platelet(?:s| count)?|\bplt\b|thrombocyte count"),
    ("Red blood cell count", r"erythrocyte count|red blood cell count|\brbc count\b"),
    ("Erythrocyte sedimentation rate", r"erythrocyte sedimentation rate|\besr\b|sedimentation rate"),
    ("Neutrophils", r"segmented neutrophils|neutrophils?|neutrophile|\bsegs\b|polymorphonuclear"),
    ("Bands", r"\bbands?\b|band forms"),
    ("Lymphocytes", r"lymphocytes|lymphs\b"),
    ("Monocytes", r"monocytes"),
    ("Eosinophils", r"eosinophils"),
    ("Basophils", r"basophils"),
    ("CD4+ T-lymphocyte count", r"cd4\+?(?: t[- ]lymphocyte| t[- ]cell| cell)?(?: count)?"),
    ("Sodium", r"sodium|\bna\+?(?=[\s:])"),
    ("Potassium", r"potassium|\bk\+(?=[\s:])|\bk(?=:)"),
    ("Chloride", r"chloride|\bcl-?(?=[\s:])"),
    ("Bicarbonate", r"bicarbonate|\bhco3-?|total co2"),
    ("Blood urea nitrogen", r"urea nitrogen|\bbun\b|blood urea"),
    ("Creatinine", r"creatinine(?! kinase| clearance)|\bcr\b"),
    ("Glucose", r"glucose|blood sugar"),
    ("Ionized calcium", r"ionized calcium"),
    ("Calcium", r"calcium|\bca2?\+*(?=[\s:])"),
    ("Magnesium", r"magnesium|\bmg2?\+(?=[\s:])"),
    ("Phosphate", r"phosphorus|phosphate"),
    ("Alanine aminotransferase", r"alanine aminotransferase|\balt\b|\bsgpt\b"),
    ("Aspartate aminotransferase", r"aspartate aminotransferase|\bast\b|\bsgot\b"),
    ("Alkaline phosphatase", r"alkaline phosphatase|\balk phos\b|\balp\b"),
    ("Gamma-glutamyl transferase", r"gamma[- ]?glutamyl ?transferase|gamma[- ]?glutamyl ?transpeptidase|\bggt\b"),
    ("Direct bilirubin", r"direct bilirubin|bilirubin,? direct|conjugated bilirubin"),
    ("Total bilirubin", r"total bilirubin|bilirubin,? total|bilirubin"),
    ("Total protein", r"total protein"),
    ("Albumin", r"albumin"),
    ("Amylase", r"amylase"),
    ("Lipase", r"lipase"),
    ("Lactate dehydrogenase", r"lactate dehydrogenase|\bldh\b"),
    ("Creatine kinase", r"creatine kinase|\bck\b|creatine phosphokinase|\bcpk\b"),
    ("Troponin I", r"troponin i\b|troponin"),
    ("Uric acid", r"uric acid|\burate\b"),
    ("LDL cholesterol", r"\bldl(?:[- ]cholesterol)?\b|low-density lipoprotein"),
    ("HDL cholesterol", r"\bhdl(?:[- ]cholesterol)?\b|high-density lipoprotein"),
    ("Total cholesterol", r"total cholesterol|cholesterol"),
    ("Triglycerides", r"triglycerides?"),
    ("Thyroid stimulating hormone", r"thyroid[- ]stimulating hormone|\btsh\b|thyrotropin"),
    ("Free T4", r"free t4|free thyroxine|\bft4\b"),
    ("Thyroxine", r"thyroxine|\bt4\b"),
    ("Triiodothyronine", r"triiodothyronine|\bt3\b"),
    ("Prothrombin time", r"prothrombin time|\bpt\b"),
    ("Partial thromboplastin time", r"(?:activated )?partial thromboplastin time|\ba?ptt\b"),
    ("INR", r"international normalized ratio|\binr\b"),
    ("Bleeding time", r"bleeding time"),
    ("Fibrinogen", r"fibrinogen"),
    ("D-dimer", r"d-dimer"),
    ("Ferritin", r"ferritin"),
    ("Total iron-binding capacity", r"total iron[- ]binding capacity|\btibc\b"),
    ("Transferrin saturation", r"transferrin saturation"),
    ("Iron", r"\biron\b"),
    ("Vitamin B12", r"vitamin b12|cobalamin|\bb12\b"),
    ("Folate", r"folate|folic acid"),
    ("C-reactive protein", r"c-reactive protein|\bcrp\b"),
    ("Blood pH", r"\bph\b"),
    ("pCO2", r"\bp(?:a)?co2\b"),
    ("pO2", r"\bp(?:a)?o2\b"),
    ("Lactate", r"lactate|lactic acid"),
    ("Ammonia", r"ammonia"),
    ("Serum osmolality", r"(?:serum |plasma )?osmolality"),
    ("Anion gap", r"anion gap"),
    ("Prolactin", r"prolactin"),
    ("Cortisol", r"cortisol"),
    ("ACTH", r"\bacth\b|adrenocorticotropic hormone|corticotropin"),
    ("Prostate-specific antigen", r"prostate[- ]specific antigen|\bpsa\b"),
    ("Human chorionic gonadotropin", r"\bb?-?hcg\b|human chorionic gonadotropin|beta-hcg"),
    ("Blood group", r"blood (?:group|type)|\bABO\b|\bRh\b"),
    ("Specific gravity", r"specific gravity"),
    ("Leukocyte esterase", r"leukocyte esterase"),
    ("Nitrites", r"nitrites?"),
    ("Ketones", r"ketones?"),
    ("Protein", r"\bprotein\b"),
    ("Blood", r"\bblood\b"),
]
# Dipstick analytes only name a result inside a urine (or other fluid) panel.
_FLUID_ONLY = {"Specific gravity", "Leukocyte esterase", "Nitrites", "Ketones", "Protein", "Blood"}
_LAB_RE = [(name, re.compile(alias, re.I)) for name, alias in LABS]
_SPECIMENS = {
    "urine": re.compile(r"\burin(?:e|alysis|ary)\b|\bdipstick\b", re.I),
    "CSF": re.compile(r"cerebrospinal|\bcsf\b|lumbar puncture", re.I),
    "pleural fluid": re.compile(r"pleural fluid|thoracentesis", re.I),
    "ascitic fluid": re.compile(r"ascitic|paracentesis|peritoneal fluid", re.I),
    "synovial fluid": re.compile(r"synovial|arthrocentesis|joint fluid|joint aspirat", re.I),
    "arterial blood gas": re.compile(r"arterial blood gas|\babg\b", re.I),
}
_SPECIMEN_LABEL = {"urine": "Urine", "CSF": "CSF", "pleural fluid": "Pleural fluid",
                   "ascitic fluid": "Ascitic fluid", "synovial fluid": "Synovial fluid"}


def specimen_of(text: str) -> str | None:
    return next((name for name, rx in _SPECIMENS.items() if rx.search(text)), None)


def lab_name(raw: str, specimen: str | None = None) -> str | None:
    """Canonical lab name for a raw label, qualified by a non-blood specimen (``Glucose (Urine)``)."""
    folded = ascii_fold(raw).strip()
    for name, rx in _LAB_RE:
        if name in _FLUID_ONLY and specimen is None and not re.search(r"\burin", folded, re.I):
            continue
        if rx.search(folded):
            label = _SPECIMEN_LABEL.get(specimen or "")
            return f"{name} ({label})" if label else name
    return None


# --------------------------------------------------------------------------- abnormal flags

_NORMAL_WORDS = re.compile(
    r"\b(?:normal|unremarkable|no abnormalit\w*|within normal limits|no (?:acute )?(?:findings|changes)|"
    r"healthy|well-appearing|well appearing|well-nourished|no distress|no acute distress|comfortable|"
    r"not significant|noncontributory|no focal (?:findings|deficits)|no \w+ (?:findings|deficits)|"
    r"clear to auscultation|clear lungs|lungs are clear|regular rate and rhythm|soft,? nontender|nontender|"
    r"non-tender|nondistended|intact|symmetric|no focal|negative|no growth|not detected|nonreactive|"
    r"non-reactive|absent|none|benign)\b",
    re.I,
)
_PERCENTILE = re.compile(r"(\d+)(?:st|nd|rd|th) percentile", re.I)
_ABNORMAL_WORDS = re.compile(
    r"\b(?:positive|reactive|detected|present|elevated|increased|decreased|low|high|abnormal|enlarged|"
    r"prolonged|reduced|tender|mass|lesion|murmur|crackles|rales|wheez|edema|erythema|rash|ulcer|"
    r"effusion|opacit|consolidation|infiltrate|fracture|dilat|thicken|nodul|gallop|bruit|deviation|"
    r"elevation|depression|inversion|distension|distended|hypo|hyper|atroph|weakness|absent \w+ reflex)",
    re.I,
)
_EXAM_INTRO = re.compile(r"^(?:on|upon)\s+(?:\w+\s+){0,2}exam(?:ination)?,?\s*", re.I)
_NEGATED_FINDING = re.compile(r"^(?:there (?:is|are|was|were) no|no |without |negative for|she has no|he has no)", re.I)
_NOT_A_RESULT = re.compile(r"\bblood (?:group|type)\b", re.I)


def flag_text(text: str, default: bool | None = None) -> bool | None:
    """Abnormal from wording: normal/negated -> False, an abnormal word -> True, else ``default``
    (True for a sign described on examination or a study report, None for other text)."""
    t = _EXAM_INTRO.sub("", ascii_fold(text).strip())
    centiles = [int(c) for c in _PERCENTILE.findall(t)]
    if centiles:
        return any(c < 5 or c > 95 for c in centiles)
    rest = _NORMAL_WORDS.sub(" ", t)
    if _NORMAL_WORDS.search(t) and not _ABNORMAL_WORDS.search(rest) and not re.search(r"\bexcept\b|\bbut\b", t, re.I):
        return False
    if _NEGATED_FINDING.search(t) and not re.search(r"\bbut\b|\bexcept\b", t, re.I):
        return False
    if _ABNORMAL_WORDS.search(t):
        return True
    return default


def flag_value(name: str, value: float | None, unit: str | None, sex: str | None, age: int | None,
               printed: tuple[float | None, float | None] | None = None) -> tuple[bool | None, float | None, float | None]:
    """(abnormal, ref_low, ref_high) for a numeric result."""
    low = high = None
    if printed is not None:
        low, high = printed
    else:
        ref = REFERENCES.get(name)
        if name == "Body temperature" and unit == "°F":
            ref = _FAHRENHEIT
        if ref is None or (ref.unit and ref.unit != (unit or "")):
            return None, None, None
        if name in _ADULT_ONLY and (age is None or age < 18):
            return None, None, None
        low, high = ref.female if (sex == "F" and ref.female) else (ref.low, ref.high)
    if value is None:
        return None, low, high
    abnormal = (low is not None and value < low) or (high is not None and value > high)
    return bool(abnormal), low, high


_PRINTED_RANGE = re.compile(
    r"\(?\s*(?:N|normal|ref(?:erence)?(?: range)?|reference)\s*[:=]?\s*"
    r"(?:(?P<lt>[<≤])\s*(?P<hi1>\d+(?:\.\d+)?)|(?P<gt>[>≥])\s*(?P<lo1>\d+(?:\.\d+)?)|"
    r"(?P<lo>\d+(?:\.\d+)?)\s*(?:-|to)\s*(?P<hi>\d+(?:\.\d+)?))[^)]*\)?",
    re.I,
)


def printed_range(text: str) -> tuple[tuple[float | None, float | None] | None, tuple[int, int] | None]:
    m = _PRINTED_RANGE.search(ascii_fold(text))
    if not m:
        return None, None
    if m.group("hi1"):
        return (None, float(m.group("hi1"))), m.span()
    if m.group("lo1"):
        return (float(m.group("lo1")), None), m.span()
    return (float(m.group("lo")), float(m.group("hi"))), m.span()


# ----------------------------------------------------------------------------------- vitals

_VITALS: list[tuple[str, str, re.Pattern[str]]] = [
    ("Body temperature", "vital", re.compile(
        rf"(?:temperature|temp|fever(?: of| to| up to)?|febrile to)\b[^.;\d]{{0,25}}?({NUMBER})\s?(°\s?[CF]|º\s?[CF]|degrees? [CF]\b)", re.I)),
    ("Heart rate", "vital", re.compile(
        rf"(?:pulse(?: rate)?|heart rate|\bHR\b)[^.;\d]{{0,25}}?({NUMBER})\s?(/\s?min\b|beats/min|beats per minute|bpm|per minute)", re.I)),
    ("Respiratory rate", "vital", re.compile(
        rf"(?:respirations?|respiratory rate|breathing rate|\bRR\b)[^.;\d]{{0,25}}?({NUMBER})\s?(/\s?min\b|breaths/min|breaths per minute|per minute)", re.I)),
    ("Oxygen saturation (pulse oximetry)", "vital", re.compile(
        rf"(?:oxygen saturation|O2 saturation|SpO2|pulse oximetry|saturation|saturating)[^.;\d]{{0,40}}?({NUMBER})\s?(%)", re.I)),
    ("Body mass index", "vital", re.compile(
        rf"(?:BMI|body mass index)[^.;\d]{{0,25}}?({NUMBER})\s?(kg/m\^?2|kg/m²)?", re.I)),
    ("Body weight", "vital", re.compile(rf"(?:weight|weighs)[^.;\d]{{0,20}}?({NUMBER})\s?(kg|lb)\b", re.I)),
    ("Body height", "vital", re.compile(rf"(?:height|is)\b[^.;\d]{{0,20}}?({NUMBER})\s?(cm)\b(?=[^.;]{{0,20}}(?:tall|\(|\)|,|$|\.))", re.I)),
    ("Glasgow Coma Scale", "physical_exam", re.compile(
        rf"(?:Glasgow Coma Scale|GCS)(?: score)?[^.;\d]{{0,15}}?({NUMBER})", re.I)),
]
_BP = re.compile(r"(?:(?P<label>blood pressure|BP)[^.;\d]{0,40}?)?(?P<sys>\d{2,3})\s?/\s?(?P<dia>\d{2,3})\s?(?:mm\s?Hg)", re.I)
_HEIGHT_CUE = re.compile(r"height|tall", re.I)


def vitals(text: str, offset: int, sex: str | None, age: int | None) -> tuple[list[ExamItem], list[tuple[int, int]]]:
    """Vital signs in ``text`` (offset = its position in the question) and the spans they used."""
    items: list[ExamItem] = []
    used: list[tuple[int, int]] = []
    for m in _BP.finditer(text):
        label = m.group("label") or "blood pressure"
        systolic, diastolic = int(m.group("sys")), int(m.group("dia"))
        abnormal = None
        if age is not None and age >= 18:
            abnormal = not (90 <= systolic <= 139 and 60 <= diastolic <= 89)
        context = text[max(0, m.start() - 40): m.start()]
        site = re.search(r"\b(?:in|of) the (?:upper|lower|right|left) (?:limbs?|arms?|legs?|extremit\w+)", context + " " + text[m.end(): m.end() + 40], re.I)
        raw = "Blood pressure" + (f" ({site.group(0)[3:].strip()})" if site else "")
        items.append(ExamItem("Blood pressure", "vital", raw if label.lower() != "bp" else "BP",
                              offset + m.start(), offset + m.end(), None, f"{systolic}/{diastolic}", "mm Hg",
                              None, None, abnormal))
        used.append(m.span())
    for name, kind, rx in _VITALS:
        for m in rx.finditer(text):
            if any(s <= m.start(1) < e for s, e in used):
                continue
            if name == "Body height" and not _HEIGHT_CUE.search(text[max(0, m.start() - 30): m.end() + 30]):
                continue
            value = to_number(m.group(1))
            unit = normal_unit(m.group(2)) if m.lastindex and m.lastindex >= 2 and m.group(2) else None
            if name == "Body mass index":
                unit = "kg/m2"
            if name in ("Heart rate", "Respiratory rate"):
                unit = "/min"
            if name == "Body temperature" and unit and unit.startswith("°") and len(unit) == 2:
                unit = "°" + unit[-1].upper()
            abnormal, low, high = flag_value(name, value, unit, sex, age)
            if name == "Glasgow Coma Scale" and value is not None:
                abnormal, low, high = value < 15, 15.0, 15.0
            label = re.sub(r"\s+(?:is|was|are|were|of|at|to)$", "", m.group(0).split(m.group(1))[0].strip(" ,:"))
            items.append(ExamItem(name, kind, label if re.search(r"[A-Za-z]{3}", label) and label.lower() != "is" else name,
                                  offset + m.start(), offset + m.end(), value, None, unit, low, high, abnormal))
            used.append((m.start(), m.end()))
            if name == "Body temperature":
                # "37.6°C (99.7°F)": the bracketed conversion is the same reading
                conv = re.match(rf"\s?\(({NUMBER})\s?(°\s?[CF]|º\s?[CF])\)", text[m.end():])
                if conv:
                    used.append((m.end(), m.end() + conv.end()))
            break  # one reading per vital and sentence; a repeat is usually the conversion
    return items, used


# -------------------------------------------------------------------------------- lab values

_LAB_NAME_STOP = re.compile(
    r"^(?:(?:a|an|the|her|his|their|serum|plasma|blood|and|of|with|shows?|showed|reveals?|revealed|"
    r"demonstrates?|is|was|are|were|level|levels|concentration|count|value|at|to|from|by|on|in)\s+)+|"
    r"\s+(?:level|levels|concentration|is|was|are|were|of|at|to)$",
    re.I,
)


def lab_values(text: str, offset: int, used: list[tuple[int, int]], specimen: str | None,
               sex: str | None, age: int | None) -> list[ExamItem]:
    """Numeric results with units in prose ("a serum sodium of 128 mEq/L", "ALT of 2,000 IU/L")."""
    items: list[ExamItem] = []
    last_end = 0
    for m in VALUE_UNIT.finditer(text):
        if any(s <= m.start() < e for s, e in used):
            last_end = m.end()
            continue
        unit = normal_unit(m.group(2))
        if unit in {"mg", "cm", "mm", "kg", "lb", "in", "ft", "min", "s", "ng"} and not _looks_like_lab_context(text, m):
            last_end = m.end()
            continue
        window_start = max(last_end, m.start() - 70)
        before = text[window_start: m.start()]
        before = re.split(r"[;:]|,\s(?=and\b)|\band\b(?=[^,]*$)", before)[-1] if before else ""
        name = lab_name(before, specimen)
        raw = " ".join(re.sub(r"\([^)]*\)", "", before).strip(" ,:(").split()[-5:])
        for _ in range(3):
            raw = _LAB_NAME_STOP.sub("", raw).strip(" ,")
        if not name:
            if not raw or not re.search(r"[A-Za-z]{2}", raw):
                last_end = m.end()
                continue
            name = raw[0].upper() + raw[1:]
        value = to_number(m.group(1))
        abnormal, low, high = flag_value(name, value, unit, sex, age)
        items.append(ExamItem(name, "lab", raw or name, offset + m.start() - len(before), offset + m.end(),
                              value, m.group(1).strip() if value is None else None, unit, low, high, abnormal))
        last_end = m.end()
    return items


def _looks_like_lab_context(text: str, m: re.Match[str]) -> bool:
    return bool(re.search(r"\b(?:level|concentration|serum|plasma|urine)\b", text[max(0, m.start() - 40): m.start()], re.I))


# -------------------------------------------------------------------------------- table rows

_ROW = re.compile(
    rf"^(?P<name>[^\d<>≤≥:]*?(?:\d[^\s\d:]*[A-Za-z+\-]*[^\d<>≤≥:]*?)?)\s*[:=]?\s+"
    rf"(?P<value>{NUMBER}(?:\s?(?:-|–|to)\s?\d+(?:\.\d+)?)?)\s?(?P<unit>[^\s(]*(?:\s(?:Hg|H2O))?)?\s*(?P<rest>.*)$"
)
_QUAL_ROW = re.compile(
    r"^(?P<name>[^:]{1,60}?)\s*(?::\s*|\s+)(?P<value>(?:positive|negative|normal|abnormal|none|trace|absent|present|"
    r"reactive|nonreactive|non-reactive|no growth|not detected|detected|within normal limits|elevated|low|high|"
    r"clear|cloudy|turbid|yellow|amber|straw|[1-4]\+|few|many|rare|occasional|numerous|moderate|large|small|"
    r"gram-positive|gram-negative)(?:\b|(?<=\+)).*)$",
    re.I,
)


def table_row(line: str, offset: int, header: str | None, specimen: str | None,
              sex: str | None, age: int | None) -> ExamItem | None:
    """One line of a laboratory table ("Hemoglobin 10 g/dL", "HBsAg positive", "Total 15 mg/dL")."""
    text = ascii_fold(line).strip()
    if not text:
        return None
    rng, rng_span = printed_range(text)
    core = text[: rng_span[0]].strip() if rng_span else text
    m = _ROW.match(core)
    value_num = value_text = unit = None
    if m and (m.group("unit") or "").startswith("+"):  # "Protein 2+" is a graded result, not a number
        m = None
    if m and m.group("name").strip():
        raw = m.group("name").strip(" :")
        value_str = m.group("value")
        unit = normal_unit(m.group("unit") or None)
        if unit and not _UNIT.fullmatch(m.group("unit") or ""):
            if re.fullmatch(r"[A-Za-z/%]+", m.group("unit") or ""):
                unit = normal_unit(m.group("unit"))
            else:
                unit = None
        if re.search(r"\d\s?(?:-|–|to)\s?\d", value_str):
            value_text = value_str
        else:
            value_num = to_number(value_str)
            if value_str.strip()[:1] in "<>≤≥":
                value_text = value_str.strip()
    else:
        q = _QUAL_ROW.match(core)
        if not q:
            return None
        raw = q.group("name").strip(" :")
        value_text = q.group("value").strip()
    if not re.search(r"[A-Za-z]", raw):
        return None
    qualified = f"{header} {raw}" if header and re.fullmatch(r"(?i)total|direct|indirect|conjugated|unconjugated", raw) else raw
    name = lab_name(qualified, specimen) or lab_name(raw, specimen) or _title(raw)
    if value_num is not None:
        abnormal, low, high = flag_value(name, value_num, unit, sex, age, rng)
    else:
        low, high = rng if rng else (None, None)
        abnormal = None if _NOT_A_RESULT.search(raw) else _qualitative_flag(value_text or "")
    return ExamItem(name, _table_kind(raw), qualified, offset, offset + len(line.rstrip()), value_num,
                    value_text, unit, low, high, abnormal)


def _qualitative_flag(value: str) -> bool | None:
    v = value.lower()
    if re.match(r"(?:negative|normal|none|absent|nonreactive|non-reactive|no growth|not detected|within normal|clear|yellow|straw|amber)", v):
        return False
    if re.match(r"(?:positive|reactive|detected|present|elevated|high|low|abnormal|cloudy|turbid|[1-4]\+|many|numerous|moderate|large|gram-)", v):
        return True
    return None


def _table_kind(raw: str) -> str:
    if re.search(r"culture|gram stain|pcr|smear for|acid-fast", raw, re.I):
        return "microbiology"
    if re.search(r"cytology|biopsy|histolog", raw, re.I):
        return "pathology"
    return "lab"


def _title(raw: str) -> str:
    raw = " ".join(raw.split()).strip(" :-")
    return raw[0].upper() + raw[1:] if raw else raw


# ------------------------------------------------------------------------------ text findings

# (regex on the finding text, exam name, kind); the first that matches names the finding.
_STUDY_NAMES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"\b(?:ECG|EKG|electrocardiogra\w*)", re.I), "Electrocardiogram", "ecg"),
    (re.compile(r"\bEEG\b|electroencephalogra", re.I), "Electroencephalogram", "other"),
    (re.compile(r"\bEMG\b|electromyogra|nerve conduction", re.I), "Electromyography and nerve conduction studies", "other"),
    (re.compile(r"spirometr|pulmonary function|flow-volume|FEV1", re.I), "Pulmonary function tests", "other"),
    (re.compile(r"echocardiogra|\becho\b", re.I), "Echocardiogram", "imaging"),
    (re.compile(r"mammogra", re.I), "Mammography", "imaging"),
    (re.compile(r"(?:esophagram|barium swallow|barium esophag|upper GI series)", re.I), "Barium swallow", "imaging"),
    (re.compile(r"barium enema", re.I), "Barium enema", "imaging"),
    (re.compile(r"colonoscop", re.I), "Colonoscopy", "imaging"),
    (re.compile(r"(?:upper )?endoscop|\bEGD\b|esophagogastroduodenoscop", re.I), "Upper endoscopy", "imaging"),
    (re.compile(r"bronchoscop", re.I), "Bronchoscopy", "imaging"),
    (re.compile(r"cystoscop", re.I), "Cystoscopy", "imaging"),
    (re.compile(r"angiogra|arteriogra|venogra", re.I), "Angiography", "imaging"),
    (re.compile(r"\bdoppler\b", re.I), "Doppler ultrasound", "imaging"),
    (re.compile(r"\bHIDA\b|cholescintigraph|scintigra|nuclear|\bPET\b|radionuclide|thyroid scan|uptake scan|bone scan|V/Q|ventilation[- ]perfusion", re.I), "Nuclear medicine scan", "imaging"),
    (re.compile(r"(?:ultraso\w*|sonogra\w*|\bUS\b)", re.I), "Ultrasound", "imaging"),
    (re.compile(r"\bMRI\b|magnetic resonance|\bMR\b", re.I), "MRI", "imaging"),
    (re.compile(r"\bCT\b|computed tomograph|CT scan", re.I), "CT", "imaging"),
    (re.compile(r"x-ray|xray|radiograph|\bfilm\b", re.I), "X-ray", "imaging"),
    (re.compile(r"fundoscop|funduscop|ophthalmoscop|slit[- ]lamp|visual acuity|fundus", re.I), "Eye examination", "physical_exam"),
    (re.compile(r"otoscop|tympanic membrane", re.I), "Ear examination", "physical_exam"),
    (re.compile(r"biops|histolog|patholog|cytolog|aspirate|specimen|microscop|immunohistochem|frozen section", re.I), "Biopsy", "pathology"),
    (re.compile(r"(?:blood|peripheral) smear|smear|blood film", re.I), "Peripheral blood smear", "lab"),
    (re.compile(r"gram stain|culture|\bPCR\b|acid-fast|KOH|wet mount|dark-?field", re.I), "Microbiology", "microbiology"),
    (re.compile(r"urinalysis|urine (?:studies|test|dipstick|analysis|microscopy)", re.I), "Urinalysis", "lab"),
    (re.compile(r"cerebrospinal|\bCSF\b|lumbar puncture", re.I), "Cerebrospinal fluid analysis", "lab"),
    (re.compile(r"arterial blood gas|\bABG\b", re.I), "Arterial blood gas", "lab"),
    (re.compile(r"serolog|antibod|antigen|titer|assay|immunoassay|\bELISA\b|western blot|panel|screen|test(?:s|ing)?\b|level|laborator|serum|plasma|blood count|\bCBC\b|karyotyp|genetic", re.I), "Laboratory studies", "lab"),
]
_REGIONS = [
    ("chest", r"chest|thora|lung"), ("abdomen", r"abdom|liver|gallbladder|hepat|pancrea|spleen|right upper quadrant|RUQ"),
    ("head", r"head|brain|cran|skull"), ("pelvis", r"pelvi|uter|ovar|adnex|transvaginal"),
    ("spine", r"spine|spinal|vertebra|lumbar|cervical spine|thoracic spine"), ("kidneys", r"kidney|renal|bladder"),
    ("neck", r"neck|thyroid|carotid"), ("scrotum", r"scrot|testic"), ("hand", r"hand|wrist|finger"),
    ("knee", r"knee"), ("hip", r"hip"), ("shoulder", r"shoulder"), ("leg", r"leg|femur|tibia|ankle|foot|lower extremit"),
    ("arm", r"arm|elbow|humer|forearm|upper extremit"), ("sinuses", r"sinus"), ("orbit", r"orbit"),
    ("heart", r"heart|cardiac|coronar"), ("breast", r"breast"),
]
_EXAM_SYSTEMS_RAW: list[tuple[str, str]] = [
    (r"vital signs|blood pressure|pulse|temperature|respirations", "Vital signs"),
    (r"mental status|oriented|mood|affect|thought|speech|insight|judgment|hallucinat|delusion", "Mental status examination"),
    (r"neurolog|reflex|babinski|strength|sensation|gait|cranial nerve|tone|clonus|romberg|ataxi|tremor|nystagmus|dysmetria|weakness|paralysis|sensory|motor", "Neurologic examination"),
    (r"cardi|heart|murmur|S1|S2|S3|S4|gallop|rub|jugular venous|JVP|apical impulse|precordi", "Cardiovascular examination"),
    (r"lung|pulmonary|chest|breath sounds|crackles|rales|wheez|rhonch|fremitus|respiratory examination", "Pulmonary examination"),
    (r"abdom|liver|spleen|hepat|bowel sounds|epigastr|quadrant|umbilic|ascites|McBurney|Murphy|rebound|guarding|shifting dullness|fluid wave|asterixis", "Abdominal examination"),
    (r"pelvic|vagin|cervi[cx]\b|cervical os|uter|adnex|speculum|vulv|labia", "Pelvic examination"),
    (r"rectal|prostate|anal|anus|stool", "Rectal examination"),
    (r"scrot|testi|penis|penile|genital|inguinal", "Genitourinary examination"),
    (r"breast|nipple|areola", "Breast examination"),
    (r"pupil|eye|conjunctiv|scler|retina|fundus|optic|visual|ocular|eyelid|ptosis|icterus", "Eye examination"),
    (r"ear|tympan|nose|nasal|throat|pharyn|tonsil|oropharynx|mouth|oral|tongue|teeth|gingiv|palate", "Head, ears, nose and throat examination"),
    (r"thyroid|neck|lymph node|lymphadenopathy|cervical nodes", "Neck and lymph node examination"),
    (r"skin|rash|lesion|macul|papul|vesic|pustul|plaque|petechia|purpura|ecchymos|bruis|jaundice|pallor|cyanosis|erythema|ulcer|nodule|scal|hair|nail|acne", "Skin examination"),
    (r"joint|knee|hip|shoulder|elbow|wrist|ankle|spine|back|musculoskeletal|range of motion|extremit|swelling of the|deformity|muscle", "Musculoskeletal examination"),
    (r"appears|appearance|distress|diaphoretic|lethargic|alert|well-nourished|ill-appearing|cachectic|obese|percentile", "General appearance"),
]
_EXAM_SYSTEMS = [(re.compile(rf"\b(?:{pattern})", re.I), name) for pattern, name in _EXAM_SYSTEMS_RAW]


def study_name(text: str) -> tuple[str, str] | None:
    """(exam name, kind) of a study named in ``text`` ("A chest x-ray shows ..." -> ("Chest X-ray", "imaging"))."""
    folded = ascii_fold(text)
    for rx, name, kind in _STUDY_NAMES:
        if rx.search(folded):
            if name in {"X-ray", "CT", "MRI", "Ultrasound"}:
                region = next((r for r, pat in _REGIONS if re.search(pat, folded, re.I)), None)
                if name == "X-ray":
                    return (f"{region.capitalize()} X-ray" if region else "X-ray"), kind
                if name == "Ultrasound" and region == "abdomen":
                    return "Abdominal ultrasound", kind
                if name == "CT" and region in {"abdomen", "pelvis"}:
                    return "CT abdomen and pelvis", kind
                if name == "MRI" and region == "head":
                    return "MRI brain", kind
                return (f"{name} {region}" if region else name), kind
            return name, kind
    return None


def exam_system(text: str) -> str:
    """Body system a physical-examination sentence describes (first match in :data:`_EXAM_SYSTEMS`)."""
    folded = ascii_fold(text)
    return next((name for rx, name in _EXAM_SYSTEMS if rx.search(folded)), "Physical examination")
