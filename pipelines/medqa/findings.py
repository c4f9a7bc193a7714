"""Examination findings of a vignette as exam results: vitals, labs (prose or tables), text.

Numbers are read with their units; lab and vital names are canonical names of the exam
vocabulary (``pipelines/exams/exam_vocabulary.csv``: ``Hemoglobin``, ``White blood cell count``,
``Body temperature``), found with the patterns of :mod:`pipelines.medqa.lexicon`, with the phrase
as written kept in ``raw_name``.  ``abnormal`` comes from, in order: a reference range printed in
the item itself ("(N < 8 mg/L)", "N: 0.5-5 mIU/L"), the vocabulary's reference ranges
(``reference_ranges.csv``, USMLE values; only when the unit is the range's unit), or the wording
of a qualitative result ("positive", "no growth").
Text findings (signs on examination, imaging, ECG, biopsy) are abnormal unless their wording is
normal or negated ("no abnormalities", "clear to auscultation", "There is no edema").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.exams.vocabulary import ReferenceRange, reference_ranges
from pipelines.medqa import lexicon
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
    replacements = lexicon.unit_spellings()
    return replacements.get(u, replacements.get(u.lower(), u))


# ---------------------------------------------------------------------------------- lab names


def specimen_of(text: str) -> str | None:
    return next((s.name for s in lexicon.specimens() if s.pattern.search(text)), None)


def _specimen_label(specimen: str | None) -> str | None:
    return next((s.label for s in lexicon.specimens() if s.name == specimen), None)


def lab_name(raw: str, specimen: str | None = None) -> str | None:
    """Canonical lab name for a raw label, qualified by a non-blood specimen (``Glucose (Urine)``)."""
    folded = ascii_fold(raw).strip()
    for lab in lexicon.lab_patterns():
        # Dipstick analytes only name a result inside a urine (or other fluid) panel.
        if lab.fluid_only and specimen is None and not re.search(r"\burin", folded, re.I):
            continue
        if lab.pattern.search(folded):
            label = _specimen_label(specimen)
            return f"{lab.name} ({label})" if label else lab.name
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
        ref = _reference(name, unit)
        if ref is None or (ref.adults_only and (age is None or age < 18)):
            return None, None, None
        low, high = ref.female if (sex == "F" and ref.female) else (ref.low, ref.high)
    if value is None:
        return None, low, high
    abnormal = (low is not None and value < low) or (high is not None and value > high)
    return bool(abnormal), low, high


def _reference(name: str, unit: str | None) -> ReferenceRange | None:
    """The exam's range in the printed unit, else its unitless range (any unit)."""
    ranges = reference_ranges().get(name, ())
    return (next((r for r in ranges if r.unit == (unit or "")), None)
            or next((r for r in ranges if not r.unit), None))


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
    for vital in lexicon.vital_patterns(NUMBER):
        name, kind = vital.exam_name, vital.kind
        for m in vital.pattern.finditer(text):
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

_REGIONAL = {"X-ray", "CT", "MRI", "Ultrasound"}  # named further by body region


def study_name(text: str) -> tuple[str, str] | None:
    """(exam name, kind) of a study named in ``text`` ("A chest x-ray shows ..." -> ("Chest X-ray", "imaging"))."""
    folded = ascii_fold(text)
    for study in lexicon.study_patterns():
        name, kind = study.exam_name, study.kind
        if study.pattern.search(folded):
            if name in _REGIONAL:
                region = next((r for r, pattern in lexicon.body_regions() if pattern.search(folded)), None)
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
    """Body system a physical-examination sentence describes (first match of ``exam_systems.csv``)."""
    folded = ascii_fold(text)
    return next((name for rx, name in lexicon.exam_systems() if rx.search(folded)), "Physical examination")
