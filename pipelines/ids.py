"""Stable identifiers that reveal no source identifier: keyed hashes (HMAC-SHA256)."""

from __future__ import annotations

import hashlib
import hmac

import polars as pl


def keyed_hash(key: str, *parts: object) -> str:
    message = "\x1f".join(str(p) for p in parts).encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()[:16]


def case_id(key: str, source: str, source_key: object) -> str:
    return "c_" + keyed_hash(key, "case", source, source_key)


def patient_key(key: str, source: str, patient: object) -> str:
    """A patient's ``patient_key`` (the source's patient identifier, keyed): every case of the patient
    has it, and its subject shard (pipelines.shards) comes from it."""
    return "p_" + keyed_hash(key, "patient", source, patient)


def patient_key_column(column: pl.Expr, key: str, source: str) -> pl.Expr:
    """:func:`patient_key` of each value of a column of the source's patient identifiers."""
    return column.map_elements(lambda v: patient_key(key, source, v), return_dtype=pl.Utf8)


def unit_id(case: str, *parts: object) -> str:
    """Unit ids hash the (already keyed) case id with the unit's content and position."""
    return "u_" + hashlib.sha256("\x1f".join(map(str, (case, *parts))).encode()).hexdigest()[:16]


def hash_column(column: pl.Expr, key: str, prefix: str, kind: str, source: str) -> pl.Expr:
    """Vectorised `prefix + keyed_hash(key, kind, source, value)` over a column."""
    return column.map_elements(
        lambda v: f"{prefix}{keyed_hash(key, kind, source, v)}", return_dtype=pl.Utf8
    )


def unit_fraction(key: str, *parts: object) -> float:
    """A deterministic number in [0, 1) from a keyed hash (used for splits and sampling)."""
    return int(keyed_hash(key, *parts), 16) / float(16**16)
