"""Examinations associated with diagnoses (``exam_associations.csv``), for the sufficiency rule.

An abnormal recorded result of a ``defining`` associated exam is evidence that points a doctor
towards the case's diagnosis; a ``nonspecific`` one (inflammation, haemodynamics, a cause) only
beside an opening complaint associated with it (pipelines/content/cases.py). Exam names are checked
against the exam vocabulary when the file is read, so a misspelt name fails with its line instead of
never matching.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import Record, Root, csv_records
from pipelines.exams.vocabulary import exams as vocabulary
from pipelines.units.code_ranges import in_range, parse_ranges

FILE = "exam_associations.csv"
EVIDENCE = ("defining", "nonspecific")


@dataclass(frozen=True)
class ExamAssociation:
    exams: tuple[str, ...]
    diagnoses: tuple[tuple[str, str], ...]
    specific: bool
    why: str

    def holds(self, code: str) -> bool:
        return any(in_range(code, first, last) for first, last in self.diagnoses)


def _association(record: Record, known: frozenset[str]) -> ExamAssociation:
    exams = record.items("exams")
    unknown = [e for e in exams if e not in known]
    if not exams or unknown:
        raise record.error("exams", f"expected canonical exam names (pipelines/exams/exam_vocabulary.csv), "
                                    f"not {unknown or 'nothing'}")
    return ExamAssociation(exams, parse_ranges(record, "diagnoses"),
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
