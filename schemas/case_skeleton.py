"""case_skeleton: one candidate case per source record, before content and sufficiency.

Internal table: what every later stage joins on.  ``patient_key`` is a keyed hash of the
source patient (never the raw identifier) so that stages can group a patient's cases.
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import DIAGNOSIS_CHECKS, DIAGNOSIS_COLUMNS

SCHEMA = pa.DataFrameSchema(
    {
        **DIAGNOSIS_COLUMNS,
        "patient_key": pa.Column(pl.Utf8),
        "mapping_reason": pa.Column(pl.Utf8, nullable=True),
    },
    checks=DIAGNOSIS_CHECKS,
    name="case_skeleton",
    strict=True,
    coerce=True,
)
