"""importance_notes: why a case with hidden units has no unit labelled ``key`` by the learned rule
and how that was resolved (``promoted`` a unit, or ``no_key`` with the reason).
One row per case that needed a note (pipelines.units.importance)."""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, unique=True),
        "resolution": pa.Column(pl.Utf8, pa.Check.isin(["promoted", "no_key"])),
        "unit_id": pa.Column(pl.Utf8, nullable=True),
        "reason": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
    },
    name="importance_notes",
    strict=True,
    coerce=True,
)
