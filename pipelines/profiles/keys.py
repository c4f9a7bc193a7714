"""Deterministic 64-bit keys for seeded choices, vectorised with numpy.

A ``case_id`` is already a keyed HMAC (``c_`` + 16 hex digits, schemas/_case_columns.py), so its
hex digits are the case's key and no per-row hashing is needed; any other string goes through
BLAKE2b.  Keys are combined with the seed and a salt by SplitMix64's finaliser (Steele, Lea &
Flood 2014), computed with numpy's wrapping uint64 arithmetic: the same bits on every platform and
library version (unlike ``polars.Series.hash``, which is only stable within one polars release).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import polars as pl

_CASE_HEX = r"^c_([0-9a-f]{16})$"


def blake64(value: str) -> int:
    return int.from_bytes(hashlib.blake2b(value.encode(), digest_size=8).digest(), "big")


def string_keys(values: Iterable[str]) -> np.ndarray:
    return np.fromiter((blake64(v) for v in values), dtype=np.uint64)


def case_keys(case_ids: pl.Series) -> np.ndarray:
    """One uint64 per case id: its HMAC hex digits, or BLAKE2b for ids of another shape."""
    parsed = case_ids.str.extract(_CASE_HEX).str.to_integer(base=16, dtype=pl.UInt64, strict=False)
    if parsed.null_count():
        odd = parsed.is_null()
        parsed = parsed.scatter(odd.arg_true(), pl.Series(string_keys(case_ids.filter(odd)), dtype=pl.UInt64))
    return parsed.to_numpy()


def splitmix64(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def mix(keys: np.ndarray, seed: int, salt: str) -> np.ndarray:
    """Keys re-hashed for one purpose (``salt``) under one seed."""
    return splitmix64(np.asarray(keys, dtype=np.uint64) ^ np.uint64(blake64(f"{seed}\x1f{salt}")))


def uniform(keys: np.ndarray) -> np.ndarray:
    """Keys -> floats strictly inside (0, 1) (53 bits, centred in their interval)."""
    return ((np.asarray(keys, dtype=np.uint64) >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0**-53
