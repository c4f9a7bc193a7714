"""Which coded diagnoses a patient can report as history, and under which unit category.

Diagnoses are only coded at discharge, so a code of the *current* admission may be shown as
history only if the condition is chronic, i.e. it was almost certainly known before the
admission. A code qualifies when its ICD-10-CM code falls into one of :data:`CHRONIC` (first
matching rule wins, matched on the dotted code's prefix so that ``Z91.0`` can differ from
``Z91``) and its title does not call it acute (``Acute on chronic diastolic heart failure`` is
what brought the patient in, ``Chronic diastolic heart failure`` is what they already had).

Codes of *earlier* admissions are all history; they go through the same table for their
category and default to ``pmh``, except :data:`NOT_HISTORY` (external causes, encounters,
screening, aftercare, DNR status, BMI values), which describe a stay rather than the patient.

The current primary diagnosis's 3-character category (hence the code and every descendant) is
never history: callers drop it before asking.
"""

from __future__ import annotations

import re

import polars as pl

# (first, last, unit category, why): dotted-code prefixes compared on their own length.
CHRONIC: tuple[tuple[str, str, str, str], ...] = (
    ("Z91.0", "Z91.0", "allergy", "allergy status other than to drugs"),
    ("Z88", "Z88", "allergy", "allergy status to drugs"),
    ("Z80", "Z84", "family", "family history"),
    ("Z87.891", "Z87.891", "social", "history of nicotine dependence"),
    ("Z72.0", "Z72.0", "social", "tobacco use"),
    ("F10", "F19", "social", "substance use (alcohol, tobacco F17, drugs)"),
    ("Z79", "Z79", "medication", "long-term drug therapy"),
    ("Z85", "Z87", "pmh", "personal history"),
    ("Z89", "Z90", "pmh", "acquired absence of limb or organ"),
    ("Z93", "Z96", "pmh", "artificial openings, transplants, cardiac and other implants"),
    ("Z99", "Z99", "pmh", "dependence on dialysis, oxygen or other machines"),
    ("Z21", "Z21", "pmh", "HIV status"),
    ("B18", "B20", "pmh", "chronic viral hepatitis, HIV disease"),
    ("E00", "E07", "pmh", "thyroid disorders"),
    ("E08", "E13", "pmh", "diabetes mellitus"),
    ("E66", "E66", "pmh", "obesity"),
    ("E78", "E78", "pmh", "disorders of lipid metabolism"),
    ("F01", "F03", "pmh", "dementia"),
    ("F20", "F25", "pmh", "schizophrenia spectrum"),
    ("F31", "F34", "pmh", "bipolar and depressive disorders"),
    ("F41", "F42", "pmh", "anxiety and obsessive-compulsive disorders"),
    ("G20", "G20", "pmh", "Parkinson disease"),
    ("G30", "G31", "pmh", "Alzheimer and other degenerative disease"),
    ("G35", "G35", "pmh", "multiple sclerosis"),
    ("G40", "G40", "pmh", "epilepsy"),
    ("G43", "G43", "pmh", "migraine"),
    ("G47.3", "G47.3", "pmh", "sleep apnoea"),
    ("H40", "H40", "pmh", "glaucoma"),
    ("I05", "I09", "pmh", "chronic rheumatic heart disease"),
    ("I10", "I16", "pmh", "hypertensive diseases"),
    ("I25", "I25", "pmh", "chronic ischaemic heart disease"),
    ("I27", "I27", "pmh", "pulmonary hypertension"),
    ("I34", "I37", "pmh", "nonrheumatic valve disorders"),
    ("I48", "I48", "pmh", "atrial fibrillation and flutter"),
    ("I50", "I50", "pmh", "heart failure (non-acute codes only)"),
    ("I69", "I69", "pmh", "sequelae of cerebrovascular disease"),
    ("I70", "I70", "pmh", "atherosclerosis"),
    ("I73", "I73", "pmh", "peripheral vascular disease"),
    ("J41", "J45", "pmh", "chronic bronchitis, emphysema, COPD, asthma"),
    ("J47", "J47", "pmh", "bronchiectasis"),
    ("J84", "J84", "pmh", "interstitial lung disease"),
    ("K21", "K21", "pmh", "gastro-oesophageal reflux disease"),
    ("K50", "K51", "pmh", "inflammatory bowel disease"),
    ("K70", "K70", "pmh", "alcoholic liver disease"),
    ("K73", "K74", "pmh", "chronic hepatitis, fibrosis and cirrhosis"),
    ("M05", "M06", "pmh", "rheumatoid arthritis"),
    ("M10", "M10", "pmh", "gout"),
    ("M15", "M19", "pmh", "osteoarthritis"),
    ("M1A", "M1A", "pmh", "chronic gout"),
    ("M32", "M32", "pmh", "systemic lupus erythematosus"),
    ("M81", "M81", "pmh", "osteoporosis"),
    ("N18", "N18", "pmh", "chronic kidney disease"),
    ("N40", "N40", "pmh", "benign prostatic hyperplasia"),
)

# Codes of earlier stays that describe the stay, not the patient: external causes (V00-Y99),
# examinations and screening (Z00-Z13), contact/exposure (Z20), reproduction encounters
# (Z30-Z39), procedure and aftercare encounters (Z40-Z53), DNR status (Z66), BMI values (Z68).
NOT_HISTORY: tuple[tuple[str, str], ...] = (
    ("V00", "Y99"), ("Z00", "Z13"), ("Z20", "Z20"), ("Z30", "Z39"), ("Z40", "Z53"), ("Z66", "Z66"), ("Z68", "Z68"),
)

_ACUTE = re.compile(r"\bacute\b", re.IGNORECASE)


def _in(code: str, first: str, last: str) -> bool:
    return first <= code[: len(first)] and code[: len(last)] <= last


def chronic_category(code: str | None, title: str | None) -> str | None:
    """Unit category of a current-admission secondary code that counts as known history, else None."""
    if not code or (title and _ACUTE.search(title)):
        return None
    for first, last, category, _ in CHRONIC:
        if _in(code, first, last):
            return category
    return None


def history_category(code: str | None) -> str | None:
    """Unit category of an earlier admission's code (``pmh`` unless the table says otherwise)."""
    if not code or any(_in(code, first, last) for first, last in NOT_HISTORY):
        return None
    for first, last, category, _ in CHRONIC:
        if _in(code, first, last):
            return category
    return "pmh"


def with_categories(df: pl.DataFrame, *, current: bool) -> pl.DataFrame:
    """Add ``category`` to a frame with ``icd10_code`` (dotted) and ``title``; None = not history.

    Each distinct (code, title) pair is decided once.
    """
    pairs = df.select("icd10_code", "title").unique()
    decide = (lambda c, t: chronic_category(c, t)) if current else (lambda c, _t: history_category(c))
    lookup = pairs.with_columns(
        pl.Series("category", [decide(c, t) for c, t in pairs.iter_rows()], dtype=pl.Utf8)
    )
    return df.join(lookup, on=["icd10_code", "title"], how="left", nulls_equal=True, maintain_order="left")
