"""Evidence sufficiency and the final ``cases`` / ``excluded_cases`` tables.

A candidate case is kept when a doctor has something to earn: at least ``k`` hidden information
units and at least ``m`` distinct examinations, per source (``Settings.sufficiency``, env
``CLINVERSE_SUFFICIENCY``), and it has an opening presentation. Otherwise it goes to ``excluded_cases`` with stage ``evidence_sufficiency`` (or
``presentation``) and a reason naming the counts. ``cases`` + ``excluded_cases`` account for every
skeleton case and every skeleton exclusion.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import schemas

SUFFICIENCY = "evidence_sufficiency"


@dataclass(frozen=True)
class Curated:
    cases: pl.DataFrame
    excluded: pl.DataFrame


def evidence_counts(units: pl.LazyFrame, exams: pl.LazyFrame) -> pl.DataFrame:
    """Per case: ``n_units`` (all), ``n_hidden`` (not disclosed), ``n_exams`` (distinct names)."""
    unit_counts = units.group_by("case_id").agg(
        pl.len().alias("n_units"), (~pl.col("disclosed")).sum().alias("n_hidden")
    )
    exam_counts = exams.group_by("case_id").agg(pl.col("exam_name").n_unique().alias("n_exams"))
    return unit_counts.join(exam_counts, on="case_id", how="full", coalesce=True).collect()


def thresholds(sufficiency: dict[str, tuple[int, int]]) -> pl.DataFrame:
    """The per-source rule as a frame to join on ``source``."""
    return pl.DataFrame(
        [(source, k, m) for source, (k, m) in sufficiency.items()],
        schema={"source": pl.Utf8, "min_hidden_units": pl.Int64, "min_exams": pl.Int64}, orient="row",
    )


def curate(skeleton: pl.DataFrame, skeleton_exclusions: pl.DataFrame, presentations: pl.DataFrame,
           counts: pl.DataFrame, sufficiency: dict[str, tuple[int, int]]) -> Curated:
    """Apply the sufficiency rule (see the module docstring) and build both tables."""
    rows = (
        skeleton.join(counts, on="case_id", how="left")
        .join(presentations.select("case_id", "presentation"), on="case_id", how="left")
        .join(thresholds(sufficiency), on="source", how="left")
        .with_columns(pl.col("n_units", "n_hidden", "n_exams").fill_null(0))
    )
    short_units = pl.col("n_hidden") < pl.col("min_hidden_units")
    short_exams = pl.col("n_exams") < pl.col("min_exams")
    counts_text = pl.format(
        "{} hidden information unit(s) (at least {} required) and {} examination(s) (at least {} required)",
        "n_hidden", "min_hidden_units", "n_exams", "min_exams",
    )
    rows = rows.with_columns(
        pl.when(pl.col("presentation").is_null()).then(pl.lit("presentation"))
        .when(short_units | short_exams).then(pl.lit(SUFFICIENCY))
        .alias("stage"),
        pl.when(pl.col("presentation").is_null()).then(pl.lit("no opening presentation could be composed"))
        .when(short_units | short_exams).then(counts_text)
        .alias("reason"),
    )
    kept = rows.filter(pl.col("stage").is_null())
    cases = schemas.conform("cases", kept.select(list(schemas.get("cases").columns)).sort("case_id"))
    excluded = pl.concat([
        skeleton_exclusions.select("case_id", "source", "stage", "reason"),
        rows.filter(pl.col("stage").is_not_null()).select("case_id", "source", "stage", "reason"),
    ]).sort("case_id")
    return Curated(cases, schemas.conform("excluded_cases", excluded))
