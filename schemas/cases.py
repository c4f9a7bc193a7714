"""cases: one row per kept diagnostic case (data-contract.md, "cases")."""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import DIAGNOSIS_CHECKS, DIAGNOSIS_COLUMNS

SCHEMA = pa.DataFrameSchema(
    {
        **DIAGNOSIS_COLUMNS,
        "presentation": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "n_units": pa.Column(pl.Int32, pa.Check.ge(0)),
        "n_exams": pa.Column(pl.Int32, pa.Check.ge(0)),
        # No opening complaint: kept only by CLINVERSE_STRUCTURED_ONLY (pipelines/content/cases.py).
        "structured_only": pa.Column(pl.Boolean),
    },
    checks=DIAGNOSIS_CHECKS,
    name="cases",
    strict=True,
    coerce=True,
)
