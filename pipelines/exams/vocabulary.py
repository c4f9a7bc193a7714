"""The exam vocabulary: one canonical name per examination, with its kind, LOINC, aliases and panels.

Three files beside this module, checked when first read (errors name file, line and column):

* ``exam_vocabulary.csv``: canonical names, kind, LOINC, panel membership and aliases;
* ``exam_panels.csv``: panels (exams ordered together: CBC, BMP, LFTs, ...) and their aliases;
* ``reference_ranges.csv``: adult reference ranges per exam and unit (MedQA findings flag with them).

Names are compared after :func:`name_key`, so ``Hgb``, ``Hämoglobin`` and ``hemoglobin`` are one
name. A name is either an exam or a panel, never both:

>>> resolve("Hgb")
'Hemoglobin'
>>> panel("coags")
['INR', 'Prothrombin time', 'Partial thromboplastin time']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pipelines.accents import strip_accents
from pipelines.datafiles import Record, csv_records, unique
from schemas._types import EXAM_KINDS

VOCABULARY_FILE = "exam_vocabulary.csv"
PANELS_FILE = "exam_panels.csv"
REFERENCES_FILE = "reference_ranges.csv"
_LOINC = re.compile(r"[0-9]{1,7}-[0-9]")


_NOT_KEY = re.compile(r"[^a-z0-9%]+")


def name_key(name: str | None) -> str:
    """Comparison key: lower case, accents stripped, punctuation folded to single spaces."""
    if not name:
        return ""
    return _NOT_KEY.sub(" ", strip_accents(name.replace("ß", "ss")).lower()).strip()


@dataclass(frozen=True)
class Exam:
    name: str
    kind: str
    loinc: str | None
    panels: tuple[str, ...]
    aliases: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name first, then the aliases."""
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class ReferenceRange:
    unit: str  # "" when the value has no unit (then any printed unit is accepted)
    low: float | None
    high: float | None
    female: tuple[float | None, float | None] | None = None
    adults_only: bool = False


def _exam(record: Record) -> Exam:
    loinc = record.text("loinc", None)
    if loinc is not None and not _LOINC.fullmatch(loinc):
        raise record.error("loinc", f"{loinc!r} is not a LOINC code (digits, a hyphen, a check digit)")
    return Exam(record.text("exam_name"), record.choice("kind", EXAM_KINDS), loinc, record.items("panels"),
                record.items("aliases"))


@cache
def exams() -> tuple[Exam, ...]:
    """Every exam of the vocabulary, in file order."""
    records = csv_records(__package__, VOCABULARY_FILE, ("exam_name", "kind", "loinc", "panels", "aliases"))
    unique(records, "exam_name", name_key)
    out = tuple(_exam(r) for r in records)
    owner: dict[str, str] = {}
    for exam, record in zip(out, records):
        for name in exam.names:
            key = name_key(name)
            if owner.setdefault(key, exam.name) != exam.name:
                raise record.error("aliases", f"{name!r} already names {owner[key]!r}")
        unknown = set(exam.panels) - {r.text("panel") for r in _panel_records()}
        if unknown:
            raise record.error("panels", f"{sorted(unknown)} not in {PANELS_FILE}")
    return out


@cache
def _panel_records() -> tuple[Record, ...]:
    records = csv_records(__package__, PANELS_FILE, ("panel", "aliases"))
    unique(records, "panel", name_key)
    return tuple(records)


@cache
def _exam_index() -> dict[str, str]:
    return {name_key(name): exam.name for exam in exams() for name in exam.names}


@cache
def _panel_members() -> dict[str, tuple[str, ...]]:
    """Panel (short name) -> its exams, in vocabulary order."""
    members = {}
    for record in _panel_records():
        short = record.text("panel")
        members[short] = tuple(e.name for e in exams() if short in e.panels)
        if not members[short]:
            raise record.error("panel", f"no exam of {VOCABULARY_FILE} is in panel {short!r}")
    return members


@cache
def _panel_index() -> dict[str, str]:
    """name_key of every panel name and alias -> the panel's short name."""
    index: dict[str, str] = {}
    for record in _panel_records():
        short = record.text("panel")
        for name in (short, *record.items("aliases")):
            key = name_key(name)
            if key in _exam_index():
                raise record.error("aliases", f"{name!r} names the exam {_exam_index()[key]!r}")
            if index.setdefault(key, short) != short:
                raise record.error("aliases", f"{name!r} already names the panel {index[key]!r}")
    return index


def resolve(name: str | None) -> str | None:
    """The canonical name of an exam named ``name`` (any alias or spelling), None when unknown."""
    return _exam_index().get(name_key(name))


def panel_name(name: str | None) -> str | None:
    """The panel (short name) that ``name`` (a panel name or alias, any spelling) stands for."""
    return _panel_index().get(name_key(name))


def panel(name: str | None) -> list[str] | None:
    """The canonical names of the exams of the panel named ``name``, None when it names no panel."""
    short = panel_name(name)
    return list(_panel_members()[short]) if short is not None else None


def panels() -> dict[str, list[str]]:
    """Every panel (short name) with its members."""
    return {short: list(members) for short, members in _panel_members().items()}


def _bound(record: Record, field: str) -> float | None:
    value = record.number(field, None)
    return None if value is None else float(value)


def _reference(record: Record, canonical: set[str]) -> tuple[str, ReferenceRange]:
    name = record.text("exam_name")
    if name not in canonical:
        raise record.error("exam_name", f"{name!r} is not a canonical name of {VOCABULARY_FILE}")
    low, high = _bound(record, "low"), _bound(record, "high")
    if low is None and high is None:
        raise record.error("low", "a range needs a low or a high bound")
    female = (_bound(record, "female_low"), _bound(record, "female_high"))
    if (female[0] is None) != (female[1] is None):
        raise record.error("female_low", "give both female bounds or neither")
    for lo, hi, field in ((low, high, "low"), (*female, "female_low")):
        if lo is not None and hi is not None and lo > hi:
            raise record.error(field, f"low {lo} is above high {hi}")
    return name, ReferenceRange(record.text("unit", ""), low, high,
                                female if female[0] is not None else None, record.flag("adults_only", False))


@cache
def reference_ranges() -> dict[str, tuple[ReferenceRange, ...]]:
    """Canonical name -> its reference ranges (one per unit)."""
    records = csv_records(__package__, REFERENCES_FILE,
                          ("exam_name", "unit", "low", "high", "female_low", "female_high", "adults_only"))
    canonical = {e.name for e in exams()}
    out: dict[str, tuple[ReferenceRange, ...]] = {}
    for record in records:
        name, ref = _reference(record, canonical)
        if any(r.unit == ref.unit for r in out.get(name, ())):
            raise record.error("unit", f"{name!r} already has a range in {ref.unit!r}")
        out[name] = (*out.get(name, ()), ref)
    return out
