"""exam_results: what the laboratory physician can return (data-contract.md)."""

import pandera.polars as pa
import polars as pl

from schemas._types import EXAM_KINDS

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8),
        "exam_name": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(EXAM_KINDS)),
        "value_num": pa.Column(pl.Float64, nullable=True),
        "value_text": pa.Column(pl.Utf8, nullable=True),
        "unit": pa.Column(pl.Utf8, nullable=True),
        "ref_low": pa.Column(pl.Float64, nullable=True),
        "ref_high": pa.Column(pl.Float64, nullable=True),
        "abnormal": pa.Column(pl.Boolean, nullable=True),
        "offset_hours": pa.Column(pl.Float64, nullable=True),
        "origin": pa.Column(pl.Utf8, pa.Check.isin(["recorded", "predicted"])),
        "source_ref": pa.Column(pl.Utf8),
    },
    name="exam_results",
    strict=True,
    coerce=True,
)
