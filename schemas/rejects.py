"""rejects: every source row a reader could not take, with where it came from and why."""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "source": pa.Column(pl.Utf8, pa.Check.isin(["mimic_iv", "mimic_note", "mimic_ed", "sicdb", "medqa"])),
        "table": pa.Column(pl.Utf8),
        "file": pa.Column(pl.Utf8),
        "row_number": pa.Column(pl.Int64, nullable=True),  # 1-based line in the file, header = 1
        "row_key": pa.Column(pl.Utf8, nullable=True),
        "reason": pa.Column(pl.Utf8),
        "raw": pa.Column(pl.Utf8, nullable=True),
    },
    name="rejects",
    strict=True,
    coerce=True,
)
