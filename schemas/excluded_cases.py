"""excluded_cases: candidate cases that were considered but not kept, with the stage and reason."""

import pandera.polars as pa
import polars as pl

from schemas._types import SOURCES

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, unique=True),
        "source": pa.Column(pl.Utf8, pa.Check.isin(SOURCES)),
        "stage": pa.Column(pl.Utf8),
        "reason": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
    },
    name="excluded_cases",
    strict=True,
    coerce=True,
)
