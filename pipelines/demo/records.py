"""Typed, frozen in-memory form of the demo catalogs (loaded from ``data/`` by :mod:`.catalog`).

Lab profiles are ``{itemid: (mean, sd)}`` (normal draw) or ``{itemid: (median, sigma, "log")}``
(log-normal draw); vital profiles are ``{chart key: (mean, sd)}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Spec = tuple  # (mean, sd) or (median, sigma, "log")
Weighted = tuple  # ((value, weight), ...) as drawn by writer.weighted


@dataclass(frozen=True)
class Code:
    """One diagnosis in both ICD versions (dotted) with the MIMIC long titles."""

    icd10: str
    title10: str
    icd9: str
    title9: str

    @property
    def icd10_nodot(self) -> str:
        return self.icd10.replace(".", "")

    @property
    def icd9_nodot(self) -> str:
        return self.icd9.replace(".", "")

    def for_version(self, version: int) -> tuple[str, str]:
        """(dotless code, long title) as written to MIMIC files."""
        if version == 9:
            return self.icd9_nodot, self.title9
        return self.icd10_nodot, self.title10


@dataclass(frozen=True)
class Comorbidity:
    key: str
    code: Code
    pmh: tuple[str, ...]  # how it is written in "Past Medical History" (first = long form)
    home_meds: tuple[str, ...] = ()
    sex: str | None = None
    min_age: int = 18
    prevalence: tuple[float, float] | None = None  # (base, per decade over 40); None: only with a disease
    baseline_labs: dict[int, Spec] = field(default_factory=dict)
    course: tuple[str, ...] = ()  # "CHRONIC ISSUES" lines


@dataclass(frozen=True)
class Imaging:
    key: str
    exam_name: str
    exam_code: str
    cpt: str
    technique: str
    findings: tuple[str, ...]  # alternatives; describe without naming the diagnosis
    impression: tuple[str, ...]  # alternatives; name the diagnosis
    indication: str  # "// question" part of the indication


@dataclass(frozen=True)
class QA:
    """One MedQA-style non-diagnosis item: (answer, distractors)."""

    kind: str  # "next_step" | "pharm" | "test" | "mechanism"
    answer: str
    distractors: tuple[str, ...]


@dataclass(frozen=True)
class Disease:
    key: str
    name: str  # canonical name (MedQA answer, discharge diagnosis)
    synonyms: tuple[str, ...]  # acceptable names and abbreviations
    code: Code
    gm: tuple[str, str]  # ICD-10-GM (dotted), German title
    chapter: str  # ICD-10 chapter (roman numeral)
    system: str  # organ system, used to pick plausible distractors
    weight: float  # relative frequency as a primary diagnosis
    service: str
    careunit: str  # admitting ward (transfers.careunit)
    icu_unit: str
    age: tuple[float, float]  # mean, sd of age at admission
    chief_complaints: tuple[str, ...]
    hpi: tuple[tuple[str, ...], ...]  # facts, each a tuple of alternative phrasings
    negatives: tuple[str, ...]
    exam: tuple[tuple[str, tuple[str, ...]], ...]  # (system, abnormal alternatives)
    vitals: dict[str, Spec]
    labs: dict[int, Spec]
    panels: tuple[str, ...]
    course: tuple[str, ...]  # hospital-course paragraphs (name the diagnosis)
    admission_meds: tuple[str, ...]
    discharge_meds: tuple[str, ...]
    comorbidities: tuple[tuple[str, float], ...]
    medqa: tuple[QA, ...]
    presentation: str  # MedQA vignette complaint ("a 3-day history of ...")
    exam_clues: tuple[str, ...]  # short exam phrases for MedQA vignettes
    history_clues: tuple[str, ...]  # short history phrases for MedQA vignettes
    history_phrase: str  # PMH phrasing when this was a previous admission
    discharge_instructions: str
    sex: str | None = None  # "F"/"M" when the disease is sex-specific
    female_share: float = 0.5
    age_range: tuple[int, int] = (18, 95)
    ua: dict[int, str] = field(default_factory=dict)  # urinalysis text results {itemid: value}
    imaging: tuple[Imaging, ...] = ()
    associated: tuple[tuple[Code, float], ...] = ()  # secondary codes tied to the presentation
    procedures: tuple[tuple[str, float], ...] = ()
    micro: tuple[tuple[str, str, float], ...] = ()  # (specimen, organism or "", probability positive)
    los: tuple[float, float] = (4.0, 2.0)  # days
    icu_prob: float = 0.3
    death_prob: float = 0.02
    admission_type: str = "EW EMER."
    history_code: Code | None = None  # code used when this disease is part of the past history


@dataclass(frozen=True)
class LabItem:
    key: str
    itemid: int
    panel: str
    label: str
    fluid: str
    category: str
    uom: str
    ref: tuple[str, str] | None  # (ref_range_lower, ref_range_upper) as written in labevents
    normal: tuple[float, float]  # (mean, sd) of a healthy adult (male when sex-specific)
    decimals: int
    short: str  # name used in discharge-summary "Pertinent Results" lines
    vmin: float = 0.0
    vmax: float = 1e9
    comment: str = ""
    ref_f: tuple[str, str] | None = None  # female reference range when different
    normal_f: tuple[float, float] | None = None
    text_value: str = ""  # "___" => value column de-identified while valuenum is kept

    def ref_for(self, sex: str) -> tuple[str, str] | None:
        return self.ref_f if (sex == "F" and self.ref_f is not None) else self.ref

    def normal_for(self, sex: str) -> tuple[float, float]:
        return self.normal_f if (sex == "F" and self.normal_f is not None) else self.normal


@dataclass(frozen=True)
class Drug:
    key: str
    drug: str  # prescriptions.drug
    code: str  # formulary_drug_cd
    gsn: str
    ndc: str
    strength: str  # prod_strength
    dose: str  # dose_val_rx
    unit: str  # dose_unit_rx
    form_val: str  # form_val_disp
    form_unit: str  # form_unit_disp
    per_day: str  # doses_per_24_hrs
    route: str
    drug_type: str
    sig: str  # discharge-summary line, e.g. "Aspirin 81 mg PO DAILY"


@dataclass(frozen=True)
class SicLab:
    lab_id: int  # LaboratoryID (ricu concept-dict)
    name: str  # German ReferenceValue
    unit: str  # SICdb unit
    loinc: str
    mimic_itemid: int  # which MIMIC item's distribution (and disease shift) drives the value
    factor: float  # SICdb value = MIMIC-unit value * factor
    decimals: int
    serial: bool  # drawn at every 12-hourly draw
    point_of_care: bool  # results partly from the blood gas analyser (LaboratoryType 2)


@dataclass(frozen=True)
class SicDiagnosis:
    """SICdb ICU admission diagnosis outside the disease catalog."""

    gm: str  # ICD-10-GM, dotted
    title: str
    surgical_site: int | None  # SurgicalSite reference id
    weight: float


@dataclass(frozen=True)
class MedqaLab:
    name: str
    unit: str
    decimals: int  # negative: rounded to tens, hundreds...
    section: str  # hematology | serum | blood_gas | other


@dataclass(frozen=True)
class NotePhrases:
    exam_order: tuple[str, ...]
    exam_labels: dict[str, tuple[str, ...]]  # system -> header in each of the four label styles
    normal_exam: dict[str, tuple[str, ...]]
    allergies: tuple[str, ...]
    family_history: tuple[str, ...]
    disposition: dict[str, str]  # discharge_location -> "Discharge Disposition:"
    discharge_condition: tuple[str, ...]


@dataclass(frozen=True)
class MedqaPhrases:
    settings: tuple[str, ...]
    diagnosis_stems: tuple[str, ...]
    question_stems: dict[str, tuple[str, ...]]  # QA.kind -> stems
    imaging_phrases: dict[str, str]  # exam_code -> "An x-ray of the chest"
    labs: dict[int, MedqaLab]  # itemid -> vignette name, in file order


@dataclass(frozen=True)
class Population:
    anchor_year_groups: Weighted  # (((anchor_year_group, icd9_share), weight), ...)
    races: Weighted
    admission_locations: dict[str, Weighted]  # admission_type -> locations
    discharge_locations: Weighted
