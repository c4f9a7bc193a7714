"""Which candidate cases are diagnostic tasks: the rules every source's skeleton applies after the
diagnosis is mapped (build settings, :class:`CaseRules`).

1. **Not a diagnostic problem** (``non_diagnostic``, default ``exclude``): the principal diagnosis
   mapped to ICD-10-CM starts with a prefix of ``not_diagnostic.csv`` (chemotherapy Z51.11, stoma care
   Z43, aftercare Z47/Z48, liveborn Z38, screening ...), or the MIMIC-IV admission type is listed there
   (ELECTIVE, SURGICAL SAME DAY ADMISSION): the patient comes for something already decided; or the
   principal diagnosis is a complication that arises from care in hospital (ventilator-associated
   pneumonia J95.851, postprocedural hypotension I95.81, an intraoperative haemorrhage): it is not
   there when the doctor meets the patient.
2. **Known condition** (``known_conditions``, default ``flag``): the primary ICD-10-CM category was
   already coded, at any position, at an earlier admission of the same patient (strictly earlier
   admission time; SICdb: an earlier stay's main diagnosis). The patient knows it; the case is kept
   with ``known_condition`` true, or excluded with ``exclude``.
3. **Cases per patient** (``max_cases_per_patient``, default 3, 0 = no cap): of a patient's candidates
   still kept, those whose condition is new to the patient come first, then the earliest admissions
   (index time; SICdb: stay offset; then case id), so one patient cannot dominate the benchmark and
   the first presentation of a problem is the one kept.

Every excluded candidate gets a stage and a reason (``skeleton_exclusions`` -> ``excluded_cases``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines import icd
from pipelines.datafiles import Record, csv_records

NOT_DIAGNOSTIC_FILE = "not_diagnostic.csv"
_PREFIX = re.compile(r"[A-Z][0-9][0-9A-Z](?:\.[0-9A-Z]{1,4})?")


@dataclass(frozen=True)
class CaseRules:
    non_diagnostic: str = "exclude"  # exclude | keep
    known_conditions: str = "flag"  # flag | exclude
    max_cases_per_patient: int = 3  # 0: no cap

    @classmethod
    def of(cls, settings) -> CaseRules:
        return cls(settings.non_diagnostic, settings.known_conditions, settings.max_cases_per_patient)


def _rule(record: Record) -> tuple[str, str, str]:
    match = record.choice("match", ("icd10", "admission_type"))
    value = record.text("value")
    if match == "icd10" and not (_PREFIX.fullmatch(value) and icd.icd10cm_info(value).code == value):
        raise record.error("value", f"{value!r} is not a dotted ICD-10-CM code (or category) of the current release")
    return match, value, record.text("why")


@cache  # read at first use: checking the codes loads ICD-10-CM, which a build's start-up should not wait for
def not_diagnostic_rules() -> tuple[tuple[str, str, str], ...]:
    """(match, value, why) of every rule of not_diagnostic.csv, in file order."""
    return tuple(_rule(r) for r in csv_records(__package__, NOT_DIAGNOSTIC_FILE, ("match", "value", "why")))


def not_diagnostic_reason(code: str, title: str, admission_type: str | None = None) -> pl.Expr:
    """Why a candidate is no diagnostic problem (null when it is one): its principal code (column
    ``code``, titled by column ``title``) or its admission type (column, MIMIC-IV) is listed."""
    reason = pl.lit(None, pl.Utf8)
    for match, value, why in reversed(not_diagnostic_rules()):  # built inside out: the file's first rule wins
        if match == "icd10":
            hit = pl.col(code).str.starts_with(value)
            text = pl.format("principal diagnosis {} ({}) is no diagnostic problem: {}", pl.col(code), pl.col(title),
                             pl.lit(why))
        elif admission_type is not None:
            hit = pl.col(admission_type) == value
            text = pl.lit(f"admission type {value} is no diagnostic problem: {why}")
        else:
            continue
        reason = pl.when(hit.fill_null(False)).then(text).otherwise(reason)
    return reason


def known_condition(cases: pl.DataFrame, coded: pl.DataFrame) -> pl.Series:
    """Per row of ``cases`` (``patient``, ``at``, ``primary_icd10_category``): was that category coded
    strictly earlier in ``coded`` (``patient``, ``at``, ``icd10_category``: every code of every
    admission)? ``at`` orders a patient's admissions (a time, or SICdb's offset)."""
    first = coded.drop_nulls(["icd10_category", "at"]).group_by("patient", "icd10_category").agg(
        pl.col("at").min().alias("first_coded")
    )
    flagged = cases.select("patient", "at", "primary_icd10_category").join(
        first, left_on=["patient", "primary_icd10_category"], right_on=["patient", "icd10_category"],
        how="left", maintain_order="left",
    )
    return flagged.select((pl.col("first_coded") < pl.col("at")).fill_null(False).alias("known_condition")).to_series()


def screen(candidates: pl.DataFrame, rules: CaseRules, not_diagnostic: pl.Expr, order: list[str]) -> pl.DataFrame:
    """Fill ``stage`` / ``reason`` of the candidates still without one, rule by rule (module docstring).

    ``candidates`` has ``case_id``, ``patient_key``, ``known_condition``, ``stage``, ``reason`` and the
    ``order`` columns (earliest first) that the cap ranks by after ``known_condition``;
    ``not_diagnostic`` is :func:`not_diagnostic_reason` over its columns."""
    out = candidates
    if rules.non_diagnostic == "exclude":
        out = _fill(out, "not_diagnostic", not_diagnostic)
    if rules.known_conditions == "exclude":
        out = _fill(out, "known_condition", pl.when(pl.col("known_condition")).then(
            pl.lit("known condition: the primary ICD-10-CM category was coded at an earlier admission of the patient")))
    if rules.max_cases_per_patient:
        out = _cap(out, rules.max_cases_per_patient, order)
    return out


def _fill(df: pl.DataFrame, stage: str, reason: pl.Expr) -> pl.DataFrame:
    new = pl.col("reason").is_null() & reason.is_not_null()
    return df.with_columns(
        pl.when(new).then(pl.lit(stage)).otherwise(pl.col("stage")).alias("stage"),
        pl.when(new).then(reason).otherwise(pl.col("reason")).alias("reason"),
    )


def _cap(df: pl.DataFrame, cap: int, order: list[str]) -> pl.DataFrame:
    ranked = df.with_row_index("__row").sort([pl.col("reason").is_not_null(), "known_condition", *order, "case_id"],
                                             nulls_last=True)
    ranked = ranked.with_columns(
        pl.int_range(1, pl.len() + 1).over("patient_key").alias("__rank"),
        pl.col("reason").is_null().sum().over("patient_key").alias("__kept"),
    )
    reason = pl.when(pl.col("__rank") > cap).then(pl.format(
        "the patient has {} candidate cases; {} are kept, new conditions before known ones, then the earliest "
        "(CLINVERSE_MAX_CASES_PER_PATIENT)", "__kept", pl.lit(cap)))
    return _fill(ranked, "patient_cap", reason).sort("__row").drop("__row", "__rank", "__kept")
