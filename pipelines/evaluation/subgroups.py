"""Mean endpoints per condition within subgroups of the cases (issue 12 section 4): age band (edges in
data/statistics.yaml), sex and the primary diagnosis's ICD-10-CM block (``cases.primary_icd10_block``,
which case building takes from pipelines/icd.py). A case without the attribute (no recorded age,
no mapped code) falls in the null level of that subgroup.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipelines.evaluation.params import statistics_params
from pipelines.evaluation.scores import SUMMARY
from pipelines.evaluation.stats import scored_episodes

SUBGROUPS = {"age_band": "age_band", "sex": "sex", "icd10_block": "primary_icd10_block"}  # name -> column


def age_bands(edges: Sequence[int]) -> list[str]:
    """The band labels of ``edges`` (lower edges after the first band): ``0-17``, ``18-44``, ..., ``80+``."""
    lows = [0, *edges]
    return [f"{low}-{high - 1}" for low, high in zip(lows, edges)] + [f"{lows[-1]}+"]


def age_band(age: pl.Expr, edges: Sequence[int]) -> pl.Expr:
    """The age band of ``age`` (whole years), null where the age is."""
    return age.bin_intervals(list(edges), labels=age_bands(edges)).cast(pl.Utf8)  # left-closed: 18 is 18-44


def subgroup_means(scores: pl.DataFrame, episodes: pl.DataFrame, cases: pl.DataFrame, *, by: str = "condition",
                   endpoints: Sequence[str] = tuple(SUMMARY)) -> pl.DataFrame:
    """One row per subgroup (``age_band``, ``sex``, ``icd10_block``), level and group (``by``, a column
    of ``episodes``): ``n`` episodes and the mean of every endpoint (a rate for a binary one)."""
    frame = scored_episodes(scores, episodes, by).join(
        cases.select("case_id", age_band(pl.col("age"), statistics_params().age_bands).alias("age_band"), "sex",
                     "primary_icd10_block"), on="case_id", how="left")
    parts = [frame.group_by(column, by).agg(pl.len().cast(pl.Int32).alias("n"),
                                            *(pl.col(e).cast(pl.Float64).mean() for e in endpoints)).select(
        pl.lit(name).alias("subgroup"), pl.col(column).alias("level"), pl.col(by).cast(pl.Utf8).alias("group"), "n",
        *endpoints) for name, column in SUBGROUPS.items()]
    return pl.concat(parts).sort("subgroup", "level", "group", nulls_last=True)
