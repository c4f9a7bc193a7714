"""information_units: atomic patient-reportable facts (data-contract.md).

Built by the ``information_units`` asset from every ``unit_candidates`` partition for every
candidate case of ``case_skeleton`` (join ``cases`` for the kept ones). ``category`` is one of
``schemas.unit_candidates.CATEGORIES``; ``importance`` follows the rule learned on the train split,
with a knowledge-based fallback where the statistics cannot decide (pipelines/units/importance.py;
``importance_notes`` says which decided each case's keys); ``ordinal`` is the reading order within
the case.
"""

import pandera.polars as pa
import polars as pl

from schemas._types import IMPORTANCE
from schemas.unit_candidates import CATEGORIES

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8),
        "unit_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^u_[0-9a-f]{16}$"), unique=True),
        "ordinal": pa.Column(pl.Int32, pa.Check.ge(0)),
        "category": pa.Column(pl.Utf8, pa.Check.isin(CATEGORIES)),
        "text": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "negated": pa.Column(pl.Boolean),
        "importance": pa.Column(pl.Utf8, pa.Check.isin(IMPORTANCE)),
        "disclosed": pa.Column(pl.Boolean),
        "source_ref": pa.Column(pl.Utf8),
    },
    name="information_units",
    strict=True,
    coerce=True,
)
