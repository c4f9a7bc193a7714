"""Shared finishing step for every unit_candidates producer (MedQA's included).

A producer builds rows with ``case_id, category, text, negated, disclosed, source_ref, concept``;
:func:`finish` adds the stable ``unit_id`` (pipelines.ids.unit_id over case, category, source
reference and text), drops exact repeats, numbers the units of each case in reading order
(:data:`CATEGORY_ORDER`, then the producer's order) and returns the schema's columns.
"""

from __future__ import annotations

import polars as pl

import schemas
from pipelines.ids import unit_id
from schemas.unit_candidates import CATEGORIES

CATEGORY_ORDER = {name: rank for rank, name in enumerate(CATEGORIES)}
UNIT_COLUMNS = ("case_id", "category", "text", "negated", "disclosed", "source_ref", "concept")


def finish(units: pl.DataFrame) -> pl.DataFrame:
    """unit_candidates rows from producer rows (see the module docstring); input order is kept within a category."""
    if units.is_empty():
        return schemas.empty("unit_candidates")
    units = units.select(UNIT_COLUMNS).with_columns(pl.col("text").str.strip_chars()).filter(
        pl.col("text").str.len_chars() > 0
    )
    ids = [unit_id(c, cat, ref, text) for c, cat, ref, text in
           units.select("case_id", "category", "source_ref", "text").iter_rows()]
    units = units.with_columns(
        pl.Series("unit_id", ids, dtype=pl.Utf8),
        pl.col("category").replace_strict(CATEGORY_ORDER, default=len(CATEGORY_ORDER)).alias("_rank"),
        pl.int_range(pl.len()).alias("_seen"),
    ).unique(subset="unit_id", keep="first", maintain_order=True)
    units = units.sort("case_id", "_rank", "_seen").with_columns(
        pl.int_range(pl.len()).over("case_id").cast(pl.Int32).alias("ordinal")
    )
    return schemas.conform("unit_candidates", units.drop("_rank", "_seen"))
