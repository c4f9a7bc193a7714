import duckdb
import polars as pl
import pytest

import schemas
from pipelines.warehouse import Warehouse, WarehouseError


def _excluded(n: int = 2) -> pl.DataFrame:
    return pl.DataFrame({"case_id": [f"c_{i:016x}" for i in range(n)], "source": ["medqa"] * n,
                         "stage": ["s"] * n, "reason": ["r"] * n})


def test_write_validates_and_publishes_a_view(tmp_path):
    wh = Warehouse(tmp_path)
    assert wh.write("excluded_cases", _excluded()) == 2
    assert wh.read("excluded_cases").height == 2
    assert wh.query("SELECT count(*) AS n FROM excluded_cases")["n"].item() == 2


def test_write_rejects_a_frame_that_breaks_the_schema(tmp_path):
    bad = _excluded().with_columns(pl.lit("nowhere").alias("source"))
    with pytest.raises(schemas.ContractError, match="source"):
        Warehouse(tmp_path).write("excluded_cases", bad)
    assert not Warehouse(tmp_path).exists("excluded_cases")


def test_missing_columns_are_named(tmp_path):
    with pytest.raises(schemas.ContractError, match="reason"):
        Warehouse(tmp_path).write("excluded_cases", _excluded().drop("reason"))


def test_replacement_is_atomic_and_leaves_no_temporary_files(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded(2))
    wh.write("excluded_cases", _excluded(5))
    assert wh.rows("excluded_cases") == 5
    assert [p.name for p in wh.table_dir("excluded_cases").iterdir()] == ["data.parquet"]


def test_partitions_are_replaced_independently(tmp_path):
    wh = Warehouse(tmp_path)
    rejects = schemas.empty("rejects")
    row = pl.DataFrame([{"source": "medqa", "table": "t", "file": "f", "row_number": 3, "row_key": None,
                         "reason": "bad", "raw": "x"}], schema=rejects.schema)
    wh.write("rejects", row, partition="a")
    wh.write("rejects", rejects, partition="b")
    wh.write("rejects", row, partition="b")
    assert wh.rows("rejects") == 2


def test_query_is_read_only(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded())
    with pytest.raises(duckdb.Error):
        wh.query("CREATE TABLE x AS SELECT 1")


def test_query_without_a_warehouse_says_how_to_build_one(tmp_path):
    with pytest.raises(WarehouseError, match="clinverse build"):
        Warehouse(tmp_path / "none").query("SELECT 1")
