"""Subject shards: the per-case tables are partitioned by a stable hash of the patient, so a rebuild
re-runs the per-case steps only of the shards whose inputs changed (``pipelines.incremental``), and
the shards of one step can run apart.

A case's shard is the last 8 hex digits of its ``patient_key`` (a keyed hash of the source's patient
identifier, ``pipelines.ids``) modulo the shard count (``Settings.shards``, env ``CLINVERSE_SHARDS``),
named ``s00``, ``s01``, ...: every case of a patient is in one shard, which is what the per-patient
rules (known conditions, cases per patient, earlier admissions' history) need. The same key gives the
same shard in every build; a different shard count re-partitions everything. What a build writes
does not depend on the count: the shards of a table together are the table.
"""

from __future__ import annotations

import polars as pl

PATIENT_KEY = "patient_key"
HASH_DIGITS = 8  # of the patient key's hex digest: 32 bits, spread evenly by the HMAC


def _width(count: int) -> int:
    if count < 1:
        raise ValueError(f"a build has at least one shard, not {count}")
    return max(2, len(str(count - 1)))


def shard_names(count: int) -> tuple[str, ...]:
    """``s00`` ... the names of ``count`` shards (wider when there are more than 100)."""
    width = _width(count)
    return tuple(f"s{i:0{width}d}" for i in range(count))


def shard_of(patient_key: str, count: int) -> str:
    """The shard of one patient key (what :func:`shard_column` computes for a column)."""
    return shard_names(count)[int(patient_key[-HASH_DIGITS:], 16) % count]


def shard_column(count: int, key: str = PATIENT_KEY) -> pl.Expr:
    """The shard name of each row's ``key`` column (a patient key), as ``shard``."""
    index = pl.col(key).str.slice(-HASH_DIGITS).str.to_integer(base=16) % count
    return pl.format("s{}", index.cast(pl.Utf8).str.zfill(_width(count))).alias("shard")


def split(frame: pl.DataFrame, count: int, key: str = PATIENT_KEY) -> dict[str, pl.DataFrame]:
    """``frame``'s rows per shard of its ``key`` column, every shard present (empty where none falls)."""
    tagged = frame.with_columns(shard_column(count, key))
    return {name: tagged.filter(pl.col("shard") == name).drop("shard") for name in shard_names(count)}
