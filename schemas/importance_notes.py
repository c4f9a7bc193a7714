"""importance_notes: how the key units of each case with hidden units were decided
(pipelines.units.importance), one row per such case.

* ``resolution``  ``statistics`` (a hidden unit is key by the association learned on train),
  ``knowledge`` (hidden keys come only from the knowledge-based fallback, key_associations.csv)
  or ``no_key`` (no hidden unit is key; ``reason`` says why).
* ``unit_id``  the first hidden key unit of that basis (null for ``no_key``).
* ``statistics_keys`` / ``knowledge_keys``  every key unit of the case by its basis: a key unit in
  neither list was promoted without a reason (the information_units check counts them).
"""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, unique=True),
        "resolution": pa.Column(pl.Utf8, pa.Check.isin(["statistics", "knowledge", "no_key"])),
        "unit_id": pa.Column(pl.Utf8, nullable=True),
        "reason": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "statistics_keys": pa.Column(pl.List(pl.Utf8)),
        "knowledge_keys": pa.Column(pl.List(pl.Utf8)),
    },
    name="importance_notes",
    strict=True,
    coerce=True,
)
