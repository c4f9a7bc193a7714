"""Building blocks shared by the structured unit producers (MIMIC-IV, SICdb)."""

from __future__ import annotations

import polars as pl

from pipelines import icd
from pipelines.datafiles import csv_records
from pipelines.units.chronic import with_categories
from pipelines.units.code_ranges import CodeRanges
from pipelines.units.lay import with_lay_text

SEX_WORD = {"F": "female", "M": "male"}
EXCLUSIVE: CodeRanges[tuple[str, str]] = CodeRanges.of(
    csv_records(__package__, "exclusive_history.csv", ("first", "last", "group", "why")),
    lambda r: (r.text("group"), r.text("why")))


def unit_rows(df: pl.DataFrame, category: pl.Expr | str, text: pl.Expr, source_ref: pl.Expr, concept: pl.Expr,
              disclosed: bool = False) -> pl.DataFrame:
    """Producer rows (pipelines.units.candidates.UNIT_COLUMNS) from ``df``'s ``case_id`` and expressions."""
    return df.select(
        "case_id",
        (pl.lit(category) if isinstance(category, str) else category).alias("category"),
        text.alias("text"),
        pl.lit(False).alias("negated"),
        pl.lit(disclosed).alias("disclosed"),
        source_ref.alias("source_ref"),
        concept.alias("concept"),
    )


def demographic_units(cases: pl.DataFrame) -> pl.DataFrame:
    """Age and sex, disclosed (the presentation says them)."""
    age = unit_rows(cases.filter(pl.col("age").is_not_null()), "demographic", pl.format("Age: {} years", "age"),
                    pl.lit("case_skeleton:age"), pl.lit("demographic:age"), disclosed=True)
    sex = unit_rows(cases.filter(pl.col("sex").is_not_null()), "demographic",
                    pl.format("Sex: {}", pl.col("sex").replace_strict(SEX_WORD, default=pl.col("sex"))),
                    pl.lit("case_skeleton:sex"), pl.lit("demographic:sex"), disclosed=True)
    return pl.concat([age, sex])


def coded_history(coded: pl.DataFrame, cases: pl.DataFrame, *, current: bool) -> pl.DataFrame:
    """Every mapped code of ``coded`` (``case_id, icd_code, icd_version, title``) outside the case's
    primary category, with ``category`` (None = not history), ``history_rule`` and ``known``
    (pipelines.units.chronic) and ``concept``; unmappable codes are left out because they cannot be
    compared with the primary diagnosis."""
    mapped = icd.normalise_codes(coded, code_col="icd_code", version_col="icd_version")
    mapped = mapped.join(cases.select("case_id", "primary_icd10_category"), on="case_id", how="left")
    mapped = mapped.filter(
        pl.col("icd10_category").is_not_null()
        & (pl.col("icd10_category") != pl.col("primary_icd10_category").fill_null(""))
    )
    # Z codes carry distinct facts below the category (Z79.4 insulin, Z79.01 anticoagulants).
    concept = pl.when(pl.col("icd10_category").str.starts_with("Z")).then(pl.col("icd10_code")).otherwise(
        pl.col("icd10_category")
    )
    return with_categories(mapped, current=current).with_columns(pl.format("icd10:{}", concept).alias("concept"))


def diagnosis_units(coded: pl.DataFrame, cases: pl.DataFrame, *, current: bool, ref: str) -> pl.DataFrame:
    """History units from coded diagnoses (``case_id, icd_code, icd_version, title``), in the
    patient's words (pipelines.units.lay).

    One unit per case and ICD-10-CM category (per code for Z codes; the first row wins: callers
    order by recency); only codes that are history (:func:`coded_history`).
    """
    if coded.is_empty():
        return pl.DataFrame()
    history = coded_history(coded, cases, current=current).filter(pl.col("category").is_not_null())
    history = history.unique(subset=["case_id", "concept"], keep="first", maintain_order=True)
    history = with_lay_text(history)
    return unit_rows(
        history,
        pl.col("category"),
        pl.coalesce("lay_text", pl.col("title").str.strip_chars()),
        pl.format("{}:icd{}:{}", pl.lit(ref), "icd_version", "icd_code"),
        pl.col("concept"),
    )


def superseded(latest_first: pl.DataFrame) -> pl.DataFrame:
    """The history units of ``latest_first`` (``case_id, concept, text, source_ref``, each case's
    latest coding first) that a later coding of a condition excluding them supersedes
    (``exclusive_history.csv``): ``case_id, concept, text, source_ref, kept`` (the concept kept) and ``why``."""
    concepts = latest_first["concept"].unique().to_list()
    groups = {c: found for c in concepts
              if c.startswith("icd10:") and (found := EXCLUSIVE.find(c.removeprefix("icd10:")))}
    if not groups:
        return pl.DataFrame(schema={"case_id": pl.Utf8, "concept": pl.Utf8, "text": pl.Utf8, "source_ref": pl.Utf8,
                                    "kept": pl.Utf8, "why": pl.Utf8})
    grouped = latest_first.filter(pl.col("concept").is_in(list(groups))).with_columns(
        pl.col("concept").replace_strict({c: g for c, (g, _) in groups.items()}).alias("_group"),
        pl.col("concept").replace_strict({c: why for c, (_, why) in groups.items()}).alias("why"))
    kept = pl.col("concept").first().over("case_id", "_group")  # rows keep their order within a window
    return (grouped.with_columns(kept.alias("kept")).filter(pl.col("concept") != pl.col("kept"))
            .unique(subset=["case_id", "concept"], keep="first", maintain_order=True)
            .select("case_id", "concept", "text", "source_ref", "kept", "why"))
