"""Canonical exam names of exam_candidates, and the exam catalog.

The exam vocabulary (:mod:`pipelines.exams.vocabulary`, ``exam_vocabulary.csv``) lists canonical
names with their kind, LOINC code where one is well established, and aliases: MIMIC
``d_labitems`` / ``d_items`` labels, SICdb ``d_references`` names (German and English), common
abbreviations and spellings (``Hgb``, ``Hb``, ``Haemoglobin``, ``Hämoglobin`` -> ``Hemoglobin``).
Names are compared after :func:`name_key` (case, accents and punctuation ignored). A
candidate's ``exam_name`` (the producer's qualified proposal, e.g. ``Glucose (Urine)``) is looked
up; ``raw_name`` is never looked up on its own, because an unqualified source label (``Protein``
of a urine dipstick) would land on the wrong examination. Names the table does not know stay as proposed and still get a
catalog row, so every exam a case has can be requested by its name.

:func:`is_exam` removes source items that are not results a physician meeting the patient can
order (``not_exams.csv``): MIMIC tube holds, specimen labels, serum index flags, ventilator settings
reported with blood gases, and levels of antibiotics the stay gives.
"""

from __future__ import annotations

import re
from functools import cache

import polars as pl

from pipelines.datafiles import csv_patterns
from pipelines.exams.procedures import tests as procedure_tests
from pipelines.exams.vocabulary import exams, name_key

NOT_EXAMS_FILE = "not_exams.csv"


@cache
def _not_an_exam() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in csv_patterns(__package__, NOT_EXAMS_FILE)), re.IGNORECASE)


@cache
def alias_table() -> pl.DataFrame:
    """One row per alias key (``alias``, canonical ``exam_name``, ``kind``, ``loinc``): the canonical
    name is an alias of itself; an alias written twice for one exam is kept once."""
    rows = [(name_key(alias), alias, exam.name, exam.kind, exam.loinc) for exam in exams() for alias in exam.names]
    table = pl.DataFrame(rows, schema={c: pl.Utf8 for c in ("alias_key", "alias", "exam_name", "kind", "loinc")},
                         orient="row")
    return table.unique(subset=["alias_key"], keep="first", maintain_order=True)


def is_exam(name: str | None) -> bool:
    return bool(name) and not _not_an_exam().search(name.strip())


def canonical_names(proposals: pl.DataFrame) -> pl.DataFrame:
    """Map distinct ``exam_name`` / ``kind`` proposals to ``canonical`` / ``canonical_kind``.

    Unknown names keep their proposal and kind (``known`` is false); ``loinc`` comes from the
    alias table.
    """
    keyed = proposals.select("exam_name", "kind").unique().with_columns(
        pl.col("exam_name").map_elements(name_key, return_dtype=pl.Utf8).alias("alias_key")
    )
    aliases = alias_table().select(
        "alias_key", pl.col("exam_name").alias("canonical"), pl.col("kind").alias("canonical_kind"), "loinc"
    )
    return keyed.join(aliases, on="alias_key", how="left").select(
        "exam_name",
        "kind",
        pl.coalesce("canonical", "exam_name").alias("canonical"),
        pl.coalesce("canonical_kind", "kind").alias("canonical_kind"),
        "loinc",
        pl.col("canonical").is_not_null().alias("known"),
    )


def panel_of(exam_name: str) -> str | None:
    """The panel an exam is ordered with: its procedure's test, else its first vocabulary panel."""
    procedure = next((t for t in procedure_tests() if t.includes(exam_name)), None)
    if procedure is not None:
        return procedure.test
    return next((e.panels[0] for e in exams() if e.name == exam_name and e.panels), None)


def catalog(names: pl.DataFrame) -> pl.DataFrame:
    """``exam_catalog`` rows from per-name counts (``exam_name`` canonical, ``kind``, ``raw_names``:
    source names seen, ``loinc``, ``n_cases``). Aliases are the curated aliases plus every source
    name seen, minus the name itself; LOINC falls back to the alias table's; ``panel``: :func:`panel_of`."""
    curated = alias_table().group_by("exam_name").agg(
        pl.col("alias").alias("curated"), pl.col("loinc").drop_nulls().first().alias("curated_loinc")
    )
    out = names.join(curated, on="exam_name", how="left").with_columns(
        pl.concat_list(pl.col("curated").fill_null([]), pl.col("raw_names").fill_null([]))
        .list.set_difference(pl.concat_list(pl.col("exam_name")))
        .list.drop_nulls()
        .list.eval(pl.element().filter(pl.element().str.len_chars() > 0))
        .list.unique()
        .list.sort()
        .alias("aliases"),
        pl.coalesce("curated_loinc", "loinc").alias("loinc"),
    )
    panel = pl.col("exam_name").map_elements(panel_of, return_dtype=pl.Utf8)
    return out.select("exam_name", "kind", "aliases", "loinc", pl.col("n_cases").cast(pl.Int32),
                      panel.alias("panel")).sort("exam_name")
