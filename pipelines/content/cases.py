"""Evidence sufficiency and the final ``cases`` / ``excluded_cases`` tables.

A candidate case is kept when a doctor has something to start from and something to earn:

1. an opening presentation (stage ``presentation`` otherwise);
2. at least ``k`` hidden information units and ``m`` distinct examinations, per source
   (``Settings.sufficiency``, env ``CLINVERSE_SUFFICIENCY``; stage ``evidence_sufficiency``);
3. for a record source whose results are flagged (MIMIC-IV: ``Source.flags_results``), evidence
   associated with its diagnosis (stage ``diagnosis_evidence``): a hidden ``key`` unit (the
   importance rule makes a unit key only by its statistical association with the diagnosis or a
   listed clinical one), an abnormal recorded result of an exam that ``exam_associations.csv``
   associates with the primary code as ``defining`` evidence, or one of a ``nonspecific`` exam
   (a raised white count for an infection) beside a key opening complaint (diarrhoea for an
   intestinal infection): a white count alone does not point to the gut. SICdb ships no
   reference ranges: no result of it is abnormal or normal, so the rule cannot judge its cases
   (they are structured-only, item 7);
4. for a record source (MIMIC-IV, SICdb: ``Source.record``) whose diagnosis only an examination
   establishes (``diagnostic_tests.csv``: a tumour, a pulmonary embolism or pneumonia on imaging,
   an arrhythmia on the ECG), a recorded result of such an exam (stage ``diagnostic_test``); a MedQA
   vignette states its findings;
5. for a record source whose diagnosis a measurement defines (``diagnosis_criteria.csv``: sepsis,
   hypoglycaemia, an electrolyte disorder), recorded results of its window that meet enough of the
   diagnosis's criteria (stage ``diagnosis_criteria``): a glucose of 77 mg/dL contradicts
   hypoglycaemia;
6. for a record source whose diagnosis presupposes a history or a symptom the patient can report
   (``diagnosis_history.csv``: alcohol withdrawal, COPD, a psychosis, a post-procedural infection,
   insulin poisoning, a symptom label such as altered mental status), a unit of the case that
   reports it (stage ``diagnosis_history``): alcohol withdrawal with no alcohol use anywhere in the
   case cannot be told from other deliria, nor a symptom label from the problem the patient came with;
7. for a record source, an opening complaint: a disclosed
   ``chief_complaint`` unit, from the discharge note or ED triage (stage ``opening_complaint``).
   ``Settings.structured_only`` (env
   ``CLINVERSE_STRUCTURED_ONLY``) names the sources whose cases without one are kept anyway,
   marked ``structured_only``; a MedQA vignette opens with its complaint by construction.

Otherwise the case goes to ``excluded_cases`` with the first failing stage and a reason naming the
counts. ``cases`` + ``excluded_cases`` account for every skeleton case and skeleton exclusion.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import schemas
from pipelines.content.associations import FILE as ASSOCIATIONS_FILE
from pipelines.content.associations import CRITERIA_FILE, HISTORY_FILE, TESTS_FILE, associated_exams
from pipelines.content.associations import required_criteria, required_history, required_tests, unit_key
from pipelines.sources.registry import FLAGGED_SOURCES, RECORD_SOURCES

SUFFICIENCY = "evidence_sufficiency"
DIAGNOSIS_EVIDENCE = "diagnosis_evidence"
DIAGNOSTIC_TEST = "diagnostic_test"
DIAGNOSIS_CRITERIA = "diagnosis_criteria"
DIAGNOSIS_HISTORY = "diagnosis_history"
OPENING_COMPLAINT = "opening_complaint"
COUNTS = ("n_units", "n_hidden", "n_exams", "n_complaints", "n_key_complaints", "n_key_hidden",
          "n_associated_exams", "n_nonspecific_exams", "n_diagnostic_tests", "n_criteria_met",
          "n_history_units")


@dataclass(frozen=True)
class Curated:
    cases: pl.DataFrame
    excluded: pl.DataFrame


def evidence_counts(skeleton: pl.DataFrame, units: pl.LazyFrame, exams: pl.LazyFrame) -> pl.DataFrame:
    """Per case: ``n_units`` (all), ``n_hidden`` (not disclosed), ``n_exams`` (distinct names),
    ``n_complaints`` (disclosed chief complaints; ``n_key_complaints`` of them key), ``n_key_hidden``
    (hidden key units), ``n_associated_exams`` and ``n_nonspecific_exams`` (distinct exams with an
    abnormal recorded result associated with the skeleton's primary code as defining or only as
    nonspecific evidence), ``n_diagnostic_tests`` (distinct exams with a recorded result that
    establish the primary code, ``diagnostic_tests.csv``) and ``diagnostic_tests`` (those exams,
    ``|`` separated; null when no examination is required), ``n_criteria_met`` (criteria of the
    primary code that a recorded result meets, ``diagnosis_criteria.csv``), ``criteria_required`` and
    ``criteria_why`` (how many it needs and why; null when a measurement does not define it),
    ``n_history_units`` (units, not negated, that report the history the primary code presupposes,
    ``diagnosis_history.csv``) and ``history_why`` (that history; null when none is presupposed)."""
    complaint = (pl.col("category") == "chief_complaint") & pl.col("disclosed")
    unit_counts = units.group_by("case_id").agg(
        pl.len().alias("n_units"), (~pl.col("disclosed")).sum().alias("n_hidden"),
        complaint.sum().alias("n_complaints"),
        (complaint & (pl.col("importance") == "key")).sum().alias("n_key_complaints"),
        ((pl.col("importance") == "key") & ~pl.col("disclosed")).sum().alias("n_key_hidden"),
    )
    exam_counts = exams.group_by("case_id").agg(pl.col("exam_name").n_unique().alias("n_exams"))
    primaries = skeleton.select("case_id", "primary_icd10").filter(pl.col("primary_icd10").is_not_null())
    codes = primaries["primary_icd10"].unique().sort().to_list()
    pairs = associated_exams(codes)
    associated = (
        exams.filter(pl.col("abnormal").fill_null(False) & (pl.col("origin") == "recorded"))
        .join(primaries.lazy(), on="case_id").join(pairs.lazy(), on=["primary_icd10", "exam_name"])
        .group_by("case_id").agg(pl.col("exam_name").filter("specific").n_unique().alias("n_associated_exams"),
                                 pl.col("exam_name").filter(~pl.col("specific")).n_unique()
                                 .alias("n_nonspecific_exams"))
    )
    tests = required_tests(codes)
    required = primaries.join(tests.group_by("primary_icd10").agg(
        pl.col("exam_name").sort().str.join("|").alias("diagnostic_tests")), on="primary_icd10")
    established = (
        exams.filter(pl.col("origin") == "recorded").join(primaries.lazy(), on="case_id")
        .join(tests.lazy(), on=["primary_icd10", "exam_name"])
        .group_by("case_id").agg(pl.col("exam_name").n_unique().alias("n_diagnostic_tests"))
    )
    needed, thresholds = required_criteria(codes)
    met = (
        exams.filter((pl.col("origin") == "recorded") & pl.col("value_num").is_not_null())
        .with_columns(unit_key(pl.col("unit")).alias("unit_key")).join(primaries.lazy(), on="case_id")
        .join(thresholds.lazy(), on=["primary_icd10", "exam_name", "unit_key"])
        .filter(pl.when("above").then(pl.col("value_num") > pl.col("value"))
                .otherwise(pl.col("value_num") < pl.col("value")))
        .group_by("case_id").agg(pl.col("criterion").n_unique().alias("n_criteria_met"))
    )
    history = primaries.join(required_history(codes), on="primary_icd10")
    reported = (
        units.filter(~pl.col("negated")).join(history.lazy(), on="case_id")
        .filter(pl.col("text").str.contains(pl.col("history_pattern")))
        .group_by("case_id").agg(pl.len().alias("n_history_units"))
    )
    return (unit_counts.join(exam_counts, on="case_id", how="full", coalesce=True)
            .join(associated, on="case_id", how="full", coalesce=True)
            .join(established, on="case_id", how="full", coalesce=True)
            .join(required.lazy().select("case_id", "diagnostic_tests"), on="case_id", how="full", coalesce=True)
            .join(met, on="case_id", how="full", coalesce=True)
            .join(primaries.join(needed, on="primary_icd10").lazy().select("case_id", "criteria_required",
                                                                           "criteria_why"),
                  on="case_id", how="full", coalesce=True)
            .join(reported, on="case_id", how="full", coalesce=True)
            .join(history.lazy().select("case_id", "history_why"), on="case_id", how="full", coalesce=True)
            .collect())


def lacks_diagnosis_evidence() -> pl.Expr:
    """Rule 3 fails, over :func:`evidence_counts` columns: a flagged-source case without a hidden key
    unit, a defining associated abnormal exam, or a nonspecific one beside a key complaint."""
    nonspecific = (pl.col("n_nonspecific_exams") > 0) & (pl.col("n_key_complaints") > 0)
    return (pl.col("source").is_in(FLAGGED_SOURCES) & (pl.col("n_key_hidden") == 0)
            & (pl.col("n_associated_exams") == 0) & ~nonspecific)


def lacks_diagnostic_test() -> pl.Expr:
    """Rule 4 fails: a record-source case whose diagnosis only an examination establishes records none."""
    return (pl.col("source").is_in(RECORD_SOURCES) & pl.col("diagnostic_tests").is_not_null()
            & (pl.col("n_diagnostic_tests") == 0))


def lacks_criteria() -> pl.Expr:
    """Rule 5 fails: a record-source case whose diagnosis a measurement defines has results that meet
    too few of its criteria."""
    return (pl.col("source").is_in(RECORD_SOURCES) & pl.col("criteria_required").is_not_null()
            & (pl.col("n_criteria_met") < pl.col("criteria_required")))


def lacks_history() -> pl.Expr:
    """Rule 6 fails: a record-source case whose diagnosis presupposes a reported history has no unit
    that reports it."""
    return (pl.col("source").is_in(RECORD_SOURCES) & pl.col("history_why").is_not_null()
            & (pl.col("n_history_units") == 0))


def lacks_complaint() -> pl.Expr:
    """A record-source case without a disclosed chief complaint (rule 7; kept only as structured-only)."""
    return pl.col("source").is_in(RECORD_SOURCES) & (pl.col("n_complaints") == 0)


def thresholds(sufficiency: dict[str, tuple[int, int]]) -> pl.DataFrame:
    """The per-source rule as a frame to join on ``source``."""
    return pl.DataFrame(
        [(source, k, m) for source, (k, m) in sufficiency.items()],
        schema={"source": pl.Utf8, "min_hidden_units": pl.Int64, "min_exams": pl.Int64}, orient="row",
    )


def curate(skeleton: pl.DataFrame, skeleton_exclusions: pl.DataFrame, presentations: pl.DataFrame,
           counts: pl.DataFrame, sufficiency: dict[str, tuple[int, int]],
           structured_only: tuple[str, ...] = ()) -> Curated:
    """Apply the sufficiency rule (see the module docstring) and build both tables."""
    rows = (
        skeleton.join(counts, on="case_id", how="left")
        .join(presentations.select("case_id", "presentation"), on="case_id", how="left")
        .join(thresholds(sufficiency), on="source", how="left")
        .with_columns(pl.col(*COUNTS).fill_null(0))
    )
    short = (pl.col("n_hidden") < pl.col("min_hidden_units")) | (pl.col("n_exams") < pl.col("min_exams"))
    unassociated, untested, no_complaint = lacks_diagnosis_evidence(), lacks_diagnostic_test(), lacks_complaint()
    rules = [
        (pl.col("presentation").is_null(), "presentation", pl.lit("no opening presentation could be composed")),
        (short, SUFFICIENCY, pl.format(
            "{} hidden information unit(s) (at least {} required) and {} examination(s) (at least {} required)",
            "n_hidden", "min_hidden_units", "n_exams", "min_exams")),
        (unassociated, DIAGNOSIS_EVIDENCE, pl.format(
            "nothing a doctor could obtain points to {}: no hidden key unit, none of its {} exam(s) with an "
            f"abnormal result is defining evidence of the diagnosis ({ASSOCIATIONS_FILE}), and its {{}} nonspecific "
            "one(s) have no key opening complaint beside them",
            pl.coalesce("primary_icd10", "diagnosis_name"), "n_exams", "n_nonspecific_exams")),
        (untested, DIAGNOSTIC_TEST, pl.format(
            f"{{}} is established by an examination that the case does not record (any of: {{}}; {TESTS_FILE})",
            "primary_icd10", pl.col("diagnostic_tests").str.replace_all("|", ", ", literal=True))),
        (lacks_criteria(), DIAGNOSIS_CRITERIA, pl.format(
            f"{{}} is defined by measurements, and the recorded results of the case's window meet {{}} of its criteria "
            f"(at least {{}} required: {{}}; {CRITERIA_FILE})",
            "primary_icd10", "n_criteria_met", "criteria_required", "criteria_why")),
        (lacks_history(), DIAGNOSIS_HISTORY, pl.format(
            f"{{}} presupposes a history or symptom that no information unit of the case reports "
            f"({{}}; {HISTORY_FILE})",
            "primary_icd10", "history_why")),
        (no_complaint & ~pl.col("source").is_in(list(structured_only)), OPENING_COMPLAINT, pl.format(
            "no opening complaint (no chief complaint in a discharge note or ED triage) to start from; "
            "CLINVERSE_STRUCTURED_ONLY={} keeps such cases, marked structured_only", "source")),
    ]
    stage, reason = pl.when(rules[0][0]).then(pl.lit(rules[0][1])), pl.when(rules[0][0]).then(rules[0][2])
    for failed, name, why in rules[1:]:
        stage, reason = stage.when(failed).then(pl.lit(name)), reason.when(failed).then(why)
    rows = rows.with_columns(stage.alias("stage"), reason.alias("reason"), no_complaint.alias("structured_only"))
    kept = rows.filter(pl.col("stage").is_null())
    cases = schemas.conform("cases", kept.select(list(schemas.get("cases").columns)).sort("case_id"))
    excluded = pl.concat([
        skeleton_exclusions.select("case_id", "source", "stage", "reason"),
        rows.filter(pl.col("stage").is_not_null()).select("case_id", "source", "stage", "reason"),
    ]).sort("case_id")
    return Curated(cases, schemas.conform("excluded_cases", excluded))
