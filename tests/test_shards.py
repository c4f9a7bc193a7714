"""Subject shards: stable names, one patient in one shard, every row in exactly one shard."""

import polars as pl
import pytest

from pipelines.ids import keyed_hash
from pipelines.shards import shard_column, shard_names, shard_of, split


def _keys(n: int) -> list[str]:
    return ["p_" + keyed_hash("k", "patient", "mimic_iv", i) for i in range(n)]


def test_names_are_zero_padded_and_widen_past_a_hundred():
    assert shard_names(1) == ("s00",)
    assert shard_names(4) == ("s00", "s01", "s02", "s03")
    assert shard_names(101)[-1] == "s100" and shard_names(101)[0] == "s000"
    with pytest.raises(ValueError, match="at least one shard"):
        shard_names(0)


def test_a_key_has_the_same_shard_in_python_and_in_a_column_and_the_last_eight_digits_decide():
    keys = _keys(500)
    column = pl.DataFrame({"patient_key": keys}).select(shard_column(7))["shard"].to_list()
    assert column == [shard_of(k, 7) for k in keys]
    assert shard_of("p_ffffffff00000009", 4) == "s01" and shard_of("p_0000000000000009", 4) == "s01"


def test_shards_are_filled_evenly_and_split_keeps_every_row_once():
    frame = pl.DataFrame({"patient_key": _keys(4000), "n": range(4000)})
    parts = split(frame, 4)
    assert list(parts) == ["s00", "s01", "s02", "s03"]
    assert sorted(pl.concat(parts.values())["n"].to_list()) == list(range(4000))
    assert all(900 < p.height < 1100 for p in parts.values())  # a keyed hash spreads patients evenly
    assert all(p.columns == ["patient_key", "n"] for p in parts.values())


def test_split_gives_every_shard_even_when_empty():
    parts = split(pl.DataFrame({"patient_key": _keys(1)}), 3)
    assert sorted(p.height for p in parts.values()) == [0, 0, 1]
