"""How MedQA vignettes name findings: the pattern tables of :mod:`pipelines.medqa.findings`.

Each table is a CSV file beside this module, read once and checked (errors name file, line and
column). Lab and vital rows are keyed by canonical names of the exam vocabulary
(:mod:`pipelines.exams.vocabulary`), so MedQA proposes the names the catalog publishes:

* ``lab_patterns.csv``    lab name patterns, tried in order;
* ``vital_patterns.csv``  vital-sign patterns (value and unit groups);
* ``specimens.csv``       specimens of a lab panel and how they qualify a lab name;
* ``study_patterns.csv``  studies named in finding sentences (ECG, CT, biopsy, ...);
* ``body_regions.csv``    body regions that name an imaging study;
* ``exam_systems.csv``    body systems of a physical-examination sentence;
* ``unit_spellings.csv``  one spelling per unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pipelines.datafiles import Record, csv_records, unique
from pipelines.exams.vocabulary import VOCABULARY_FILE, resolve
from schemas._types import EXAM_KINDS

NUMBER_SLOT = "{number}"


@dataclass(frozen=True)
class LabPattern:
    exam_name: str  # canonical name
    analyte: str | None  # urine dipstick analyte, written before the specimen ("Protein (Urine)")
    pattern: re.Pattern[str]

    @property
    def name(self) -> str:
        """The name MedQA proposes before any specimen qualifier."""
        return self.analyte or self.exam_name

    @property
    def fluid_only(self) -> bool:
        return self.analyte is not None


@dataclass(frozen=True)
class VitalPattern:
    exam_name: str
    kind: str
    pattern: re.Pattern[str]  # group 1: value, group 2 (optional): unit


@dataclass(frozen=True)
class Specimen:
    name: str
    label: str | None  # qualifier of lab names; None: names stay unqualified
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Study:
    exam_name: str
    kind: str
    pattern: re.Pattern[str]


def _records(name: str, columns: tuple[str, ...], key: str) -> list[Record]:
    """The rows of one table; ``key`` names one row each."""
    records = csv_records(__package__, name, columns)
    unique(records, key)
    return records


def _canonical(record: Record) -> str:
    name = record.text("exam_name")
    if resolve(name) != name:
        raise record.error("exam_name", f"{name!r} is not a canonical name of {VOCABULARY_FILE}")
    return name


@cache
def lab_patterns() -> tuple[LabPattern, ...]:
    return tuple(LabPattern(_canonical(r), r.text("analyte", None), r.regex("pattern", re.I))
                 for r in _records("lab_patterns.csv", ("exam_name", "analyte", "pattern"), "exam_name"))


@cache
def vital_patterns(number: str) -> tuple[VitalPattern, ...]:
    """The vital-sign patterns with ``number`` (a regex) in place of ``{number}``."""
    out = []
    for r in _records("vital_patterns.csv", ("exam_name", "kind", "pattern"), "exam_name"):
        template = r.text("pattern")
        if NUMBER_SLOT not in template:
            raise r.error("pattern", f"has no {NUMBER_SLOT} for the value")
        pattern = r.regex("pattern", re.I, template.replace(NUMBER_SLOT, number))
        out.append(VitalPattern(_canonical(r), r.choice("kind", EXAM_KINDS), pattern))
    return tuple(out)


@cache
def specimens() -> tuple[Specimen, ...]:
    return tuple(Specimen(r.text("specimen"), r.text("label", None), r.regex("pattern", re.I))
                 for r in _records("specimens.csv", ("specimen", "label", "pattern"), "specimen"))


@cache
def study_patterns() -> tuple[Study, ...]:
    return tuple(Study(r.text("exam_name"), r.choice("kind", EXAM_KINDS), r.regex("pattern", re.I))
                 for r in _records("study_patterns.csv", ("exam_name", "kind", "pattern"), "exam_name"))


@cache
def body_regions() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((r.text("region"), r.regex("pattern", re.I))
                 for r in _records("body_regions.csv", ("region", "pattern"), "region"))


@cache
def exam_systems() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern matched from a word start, exam name), in order."""
    return tuple((r.regex("pattern", re.I, rf"\b(?:{r.text('pattern')})"), r.text("exam_name"))
                 for r in _records("exam_systems.csv", ("exam_name", "pattern"), "exam_name"))


@cache
def unit_spellings() -> dict[str, str]:
    return {r.text("written"): r.text("unit") for r in _records("unit_spellings.csv", ("written", "unit"), "written")}
