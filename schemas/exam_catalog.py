"""exam_catalog: canonical exam names with aliases, so requests match by name."""

import pandera.polars as pa
import polars as pl

from schemas._types import EXAM_KINDS, STR_LIST

SCHEMA = pa.DataFrameSchema(
    {
        "exam_name": pa.Column(pl.Utf8, unique=True),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(EXAM_KINDS)),
        "aliases": pa.Column(STR_LIST),
        "n_cases": pa.Column(pl.Int32, pa.Check.ge(0)),
    },
    name="exam_catalog",
    strict=True,
    coerce=True,
)
