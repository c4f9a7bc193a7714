"""Examinations and diagnoses, for the sufficiency rule (pipelines/content/cases.py).

``exam_associations.csv``: an abnormal recorded result of a ``defining`` associated exam is evidence
that points a doctor towards the case's diagnosis; a ``nonspecific`` one (inflammation,
haemodynamics, a cause) only beside an opening complaint associated with it.

``diagnostic_tests.csv``: diagnoses that only an examination establishes (imaging, an ECG, an
echocardiogram); a record-source case of one must record a result of such an exam.

Exam names are checked against the exam vocabulary when a file is read, so a misspelt name fails
with its line instead of never matching.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import Record, Root, csv_records
from pipelines.exams.vocabulary import exams as vocabulary
from pipelines.units.code_ranges import in_ranges, parse_ranges

FILE = "exam_associations.csv"
TESTS_FILE = "diagnostic_tests.csv"
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
