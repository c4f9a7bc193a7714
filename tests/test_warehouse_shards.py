"""The warehouse's subject shards: shard files, shard views, stale shards removed."""

import duckdb
import polars as pl

from pipelines.warehouse import Warehouse, partition_of, shard_of_file, written_name


def _excluded(ids: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"case_id": [f"c_{i:016x}" for i in ids], "source": ["medqa"] * len(ids),
                         "stage": ["s"] * len(ids), "reason": ["r"] * len(ids)})


def _files(wh: Warehouse, table: str) -> list[str]:
    return sorted(p.name for p in wh.table_dir(table).iterdir())


def test_file_names_say_partition_batch_and_shard():
    assert partition_of("mimic_notes-00003.s01") == partition_of("mimic_notes-00003") == "mimic_notes"
    assert partition_of("data.s10") == "data" and partition_of("medqa") == "medqa"
    assert shard_of_file("notes-00000.s02") == "s02" and shard_of_file("notes-00000") is None
    assert written_name("notes-00000.s02") == "notes-00000"


def test_a_shard_view_reads_and_writes_its_own_shard_and_the_table_reads_whole(tmp_path):
    wh = Warehouse(tmp_path)
    assert wh.write_shards("excluded_cases", {"s00": _excluded([1, 2]), "s01": _excluded([3])}) == 3
    assert _files(wh, "excluded_cases") == ["data.s00.parquet", "data.s01.parquet"]
    assert wh.rows("excluded_cases") == 3
    s01 = wh.shard_view("s01")
    assert s01.read("excluded_cases")["case_id"].to_list() == [f"c_{3:016x}"]
    with duckdb.connect() as con:  # SQL through the view's glob sees the shard only
        assert con.sql(f"SELECT count(*) FROM read_parquet('{s01.table_glob('excluded_cases')}')").fetchall() == [(1,)]
    s01.write("excluded_cases", _excluded([3, 4]))
    assert wh.rows("excluded_cases") == 4 and wh.shard_view("s00").rows("excluded_cases") == 2
    assert not wh.shard_view("s02").exists("excluded_cases")


def test_an_unsharded_table_reads_whole_in_a_shard_view(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded([1, 2, 3]))
    assert wh.shard_view("s01").rows("excluded_cases") == 3


def test_writing_shards_removes_the_unsharded_file_and_other_shard_counts(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded([1]))  # a build from before shards
    wh.write_shards("excluded_cases", {f"s0{i}": _excluded([i]) for i in range(4)})
    wh.write_shards("excluded_cases", {"s00": _excluded([7]), "s01": _excluded([8])})  # now 2 shards
    assert _files(wh, "excluded_cases") == ["data.s00.parquet", "data.s01.parquet"]
    assert wh.rows("excluded_cases") == 2


def test_a_shard_write_of_a_partition_removes_its_unsharded_files_only(tmp_path):
    wh = Warehouse(tmp_path)
    rows = pl.DataFrame([{"source": "medqa", "table": "t", "file": "f", "row_number": 3, "row_key": None,
                          "reason": "bad", "raw": "x"}])
    wh.write("rejects", rows, partition="a")
    wh.write("rejects", rows, partition="b-00000")
    wh.shard_view("s00").write("rejects", rows, partition="b-00000")
    assert _files(wh, "rejects") == ["a.parquet", "b-00000.s00.parquet"]
    assert [p.name for p in wh.partition_files("rejects", "b")] == ["b-00000.s00.parquet"]


def test_keep_shards_removes_every_table_s_files_of_other_shards(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write_shards("excluded_cases", {f"s0{i}": _excluded([i]) for i in range(4)})
    wh.write("skeleton_exclusions", _excluded([9]))
    removed = wh.keep_shards(("s00", "s01"))
    assert sorted(p.name for p in removed) == ["data.s02.parquet", "data.s03.parquet"]
    assert wh.rows("excluded_cases") == 2 and wh.rows("skeleton_exclusions") == 1
