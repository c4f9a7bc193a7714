"""Examinations and diagnoses, for the sufficiency rule (pipelines/content/cases.py).

``exam_associations.csv``: an abnormal recorded result of a ``defining`` associated exam is evidence
that points a doctor towards the case's diagnosis; a ``nonspecific`` one (inflammation,
haemodynamics, a cause) only beside an opening complaint associated with it.

``diagnostic_tests.csv``: diagnoses that only an examination establishes (imaging, an ECG, an
echocardiogram); a record-source case of one must record a result of such an exam.

``diagnosis_criteria.csv``: diagnoses that a measurement defines (sepsis, hypoglycaemia, an
electrolyte disorder); a record-source case of one must have results that meet enough of its criteria.

``diagnosis_history.csv``: diagnoses that presuppose a history the patient can report (alcohol
withdrawal, COPD, a psychosis); a record-source case of one must hold a unit that reports it.

Exam names are checked against the exam vocabulary when a file is read, so a misspelt name fails
with its line instead of never matching.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import Record, Root, csv_records
from pipelines.exams.vocabulary import exams as vocabulary
from pipelines.units.code_ranges import in_ranges, parse_ranges

FILE = "exam_associations.csv"
TESTS_FILE = "diagnostic_tests.csv"
CRITERIA_FILE = "diagnosis_criteria.csv"
HISTORY_FILE = "diagnosis_history.csv"
_THRESHOLD = re.compile(r"(?P<exam>.+?)\s*(?P<op>[<>])\s*(?P<value>\d+(?:\.\d+)?)\s+(?P<unit>\S.*)")
EVIDENCE = ("defining", "nonspecific")


@dataclass(frozen=True)
class ExamAssociation:
    exams: tuple[str, ...]
    diagnoses: tuple[tuple[str, str], ...]
    specific: bool
    why: str

    def holds(self, code: str) -> bool:
        return in_ranges(code, self.diagnoses)


@dataclass(frozen=True)
class DiagnosticTest:
    diagnoses: tuple[tuple[str, str], ...]
    exams: tuple[str, ...]  # any one of them establishes the diagnosis
    why: str

    def holds(self, code: str) -> bool:
        return in_ranges(code, self.diagnoses)


@dataclass(frozen=True)
class Threshold:
    exam: str
    above: bool  # met by a value above ``value`` (else below)
    value: float
    unit: str


@dataclass(frozen=True)
class DiagnosisCriteria:
    diagnoses: tuple[tuple[str, str], ...]
    criteria: tuple[tuple[Threshold, ...], ...]  # each met when any of its thresholds holds
    at_least: int
    why: str

    def holds(self, code: str) -> bool:
        return in_ranges(code, self.diagnoses)


@dataclass(frozen=True)
class DiagnosisHistory:
    diagnoses: tuple[tuple[str, str], ...]
    phrases: tuple[str, ...]  # lower-case; any one, at the start of a word, reports the history
    why: str

    def holds(self, code: str) -> bool:
        return in_ranges(code, self.diagnoses)

    @property
    def pattern(self) -> str:
        """A regex that finds any of ``phrases`` at the start of a word, without case."""
        return r"(?i)\b(?:" + "|".join(re.escape(p) for p in self.phrases) + ")"


def unit_key(unit: pl.Expr) -> pl.Expr:
    """A unit as thresholds compare it: without case or spaces (``mm Hg`` is ``mmHg``)."""
    return unit.str.to_lowercase().str.replace_all(r"\s", "")


def _exams(record: Record, known: frozenset[str]) -> tuple[str, ...]:
    exams = record.items("exams")
    unknown = [e for e in exams if e not in known]
    if not exams or unknown:
        raise record.error("exams", f"expected canonical exam names (pipelines/exams/exam_vocabulary.csv), "
                                    f"not {unknown or 'nothing'}")
    return exams


def _association(record: Record, known: frozenset[str]) -> ExamAssociation:
    return ExamAssociation(_exams(record, known), parse_ranges(record, "diagnoses"),
                           record.choice("evidence", EVIDENCE) == "defining", record.text("why"))


@cache
def exam_associations(root: str | Root = __package__) -> tuple[ExamAssociation, ...]:
    known = frozenset(exam.name for exam in vocabulary())
    return tuple(_association(r, known) for r in csv_records(root, FILE, ("exams", "diagnoses", "evidence", "why")))


def associated_exams(codes: list[str]) -> pl.DataFrame:
    """``primary_icd10, exam_name, specific``: every exam associated with each of ``codes``; ``specific``
    when a ``defining`` row associates them (it outranks a ``nonspecific`` one)."""
    pairs: dict[tuple[str, str], bool] = {}
    for code in codes:
        for association in exam_associations():
            if association.holds(code):
                for exam in association.exams:
                    pairs[code, exam] = pairs.get((code, exam), False) or association.specific
    return pl.DataFrame([(code, exam, specific) for (code, exam), specific in sorted(pairs.items())],
                        schema={"primary_icd10": pl.Utf8, "exam_name": pl.Utf8, "specific": pl.Boolean}, orient="row")


@cache
def diagnostic_tests(root: str | Root = __package__) -> tuple[DiagnosticTest, ...]:
    known = frozenset(exam.name for exam in vocabulary())
    return tuple(DiagnosticTest(parse_ranges(r, "diagnoses"), _exams(r, known), r.text("why"))
                 for r in csv_records(root, TESTS_FILE, ("diagnoses", "exams", "why")))


def required_tests(codes: list[str]) -> pl.DataFrame:
    """``primary_icd10, exam_name``: for each of ``codes`` that only an examination establishes, the
    exams of every ``diagnostic_tests.csv`` row holding it (a result of any one will do)."""
    pairs = sorted({(code, exam) for code in codes for test in diagnostic_tests() if test.holds(code)
                    for exam in test.exams})
    return pl.DataFrame(pairs, schema={"primary_icd10": pl.Utf8, "exam_name": pl.Utf8}, orient="row")


def _threshold(record: Record, text: str, known: frozenset[str]) -> Threshold:
    match = _THRESHOLD.fullmatch(text.strip())
    if match is None or match["exam"] not in known:
        raise record.error("criteria", f"expected 'canonical exam name > or < value unit' "
                                       f"(pipelines/exams/exam_vocabulary.csv), not {text!r}")
    return Threshold(match["exam"], match["op"] == ">", float(match["value"]), match["unit"].strip())


def _criteria(record: Record, known: frozenset[str]) -> DiagnosisCriteria:
    criteria = tuple(tuple(_threshold(record, t, known) for t in c.split(" or ")) for c in record.items("criteria"))
    at_least = record.integer("at_least", lo=1)
    if not criteria or at_least > len(criteria):
        raise record.error("at_least", f"expected at most the {len(criteria)} criteria listed, not {at_least}")
    return DiagnosisCriteria(parse_ranges(record, "diagnoses"), criteria, at_least, record.text("why"))


@cache
def diagnosis_criteria(root: str | Root = __package__) -> tuple[DiagnosisCriteria, ...]:
    known = frozenset(exam.name for exam in vocabulary())
    records = csv_records(root, CRITERIA_FILE, ("diagnoses", "criteria", "at_least", "why"))
    return tuple(_criteria(r, known) for r in records)


def required_criteria(codes: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """For each of ``codes`` that a measurement defines (its first ``diagnosis_criteria.csv`` row):
    ``primary_icd10, criteria_required, criteria_why``, and its thresholds as ``primary_icd10,
    criterion, exam_name, unit_key, above, value`` (``criterion``: the criterion's position)."""
    required, thresholds = [], []
    for code in codes:
        found = next((c for c in diagnosis_criteria() if c.holds(code)), None)
        if found is None:
            continue
        required.append((code, found.at_least, found.why))
        thresholds += [(code, i, t.exam, t.unit, t.above, t.value)
                       for i, criterion in enumerate(found.criteria) for t in criterion]
    return (pl.DataFrame(required, schema={"primary_icd10": pl.Utf8, "criteria_required": pl.Int64,
                                           "criteria_why": pl.Utf8}, orient="row"),
            pl.DataFrame(thresholds, schema={"primary_icd10": pl.Utf8, "criterion": pl.Int64, "exam_name": pl.Utf8,
                                             "unit": pl.Utf8, "above": pl.Boolean, "value": pl.Float64}, orient="row")
            .with_columns(unit_key(pl.col("unit")).alias("unit_key")).drop("unit"))


def _history(record: Record) -> DiagnosisHistory:
    phrases = tuple(p.lower() for p in record.items("phrases"))
    unwordly = [p for p in phrases if not re.match(r"\w", p)]
    if not phrases or unwordly:
        raise record.error("phrases", f"expected phrases that start with a letter or digit, "
                                      f"not {unwordly or 'nothing'}")
    return DiagnosisHistory(parse_ranges(record, "diagnoses"), phrases, record.text("why"))


@cache
def diagnosis_history(root: str | Root = __package__) -> tuple[DiagnosisHistory, ...]:
    return tuple(_history(r) for r in csv_records(root, HISTORY_FILE, ("diagnoses", "phrases", "why")))


def required_history(codes: list[str]) -> pl.DataFrame:
    """``primary_icd10, history_pattern, history_why``: for each of ``codes`` that presupposes a reported
    history (its first ``diagnosis_history.csv`` row), the regex of its phrases and why."""
    rows = []
    for code in codes:
        found = next((h for h in diagnosis_history() if h.holds(code)), None)
        if found is not None:
            rows.append((code, found.pattern, found.why))
    return pl.DataFrame(rows, schema={"primary_icd10": pl.Utf8, "history_pattern": pl.Utf8, "history_why": pl.Utf8},
                        orient="row")
