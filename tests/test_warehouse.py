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


@pytest.mark.parametrize("sql", ["CREATE TABLE x AS SELECT 1", "COPY (SELECT 1) TO 'out.csv'",
                                 "SELECT 1; DROP VIEW excluded_cases", "ATTACH 'other.duckdb'", "SET threads = 1"])
def test_query_is_read_only(tmp_path, sql):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded())
    with pytest.raises(WarehouseError, match="read-only"):
        wh.query(sql)
    assert wh.query("WITH e AS (SELECT * FROM excluded_cases) SELECT count(*) AS n FROM e")["n"].item() == 2


def test_restricted_tables_have_no_query_view(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded())
    provenance = schemas.empty("case_provenance")
    wh.write("case_provenance", provenance)
    assert schemas.restricted("case_provenance") and not schemas.restricted("excluded_cases")
    assert wh.query_tables() == ["excluded_cases"]
    with pytest.raises(duckdb.CatalogException, match="case_provenance"):
        wh.query("SELECT * FROM case_provenance")
    with duckdb.connect(str(wh.db_path), read_only=True) as con:
        views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert views == {"excluded_cases"}
    assert wh.read("case_provenance").height == 0  # pipeline code still reads the Parquet


def test_a_table_without_a_contract_is_refused(tmp_path):
    with pytest.raises(schemas.ContractError, match="no contract"):
        Warehouse(tmp_path).write("scratch", pl.DataFrame({"a": [1]}))


def test_write_query_validates_the_streamed_file_before_publishing(tmp_path, monkeypatch):
    monkeypatch.setattr(schemas, "VALIDATION_BATCH_ROWS", 1)  # duplicates only visible across batches
    wh = Warehouse(tmp_path)
    good = ("SELECT 'c_' || lpad(i::VARCHAR, 16, '0') AS case_id, 'medqa' AS source, 's' AS stage, 'r' AS reason "
            "FROM range(3) t(i)")
    with duckdb.connect() as con:
        assert wh.write_query("excluded_cases", con, good) == 3
        with pytest.raises(schemas.ContractError, match="source"):  # a value outside the vocabulary
            wh.write_query("excluded_cases", con, good.replace("'medqa'", "'nowhere'"))
        with pytest.raises(schemas.ContractError, match="more than once"):  # unique across the file
            wh.write_query("excluded_cases", con, good.replace("lpad(i::VARCHAR", "lpad((i % 2)::VARCHAR"))
        with pytest.raises(schemas.ContractError, match="expected String"):  # types are not coerced on disk
            wh.write_query("excluded_cases", con, good.replace("'s' AS stage", "42 AS stage"))
    assert wh.rows("excluded_cases") == 3
    assert [p.name for p in wh.table_dir("excluded_cases").iterdir()] == ["data.parquet"]


def test_write_refuses_a_repeated_key_of_a_column_or_of_columns_together(tmp_path):
    """Unique keys are counted apart from the row checks (rows whose hash repeats, grouped): a
    repeated case_id of excluded_cases, a repeated (case_id, rank) of case_exam_targets."""
    wh = Warehouse(tmp_path)
    ids = [f"c_{i:016x}" for i in range(3)]
    excluded = pl.DataFrame({"case_id": ids, "source": "medqa", "stage": "s", "reason": "r"})
    assert wh.write("excluded_cases", excluded) == 3
    with pytest.raises(schemas.ContractError, match=r"1 value\(s\) of \(case_id\) occur more than once"):
        wh.write("excluded_cases", excluded.with_columns(case_id=pl.Series([ids[0], ids[1], ids[0]])))
    targets = pl.DataFrame({"case_id": [ids[0], ids[0], ids[1]], "rank": [1, 2, 1], "exam_name": "Sodium",
                            "abnormal": True, "weight": 0.5}, schema_overrides={"rank": pl.Int32})
    assert wh.write("case_exam_targets", targets) == 3
    with pytest.raises(schemas.ContractError, match=r"\(case_id, rank\) occur more than once"):
        wh.write("case_exam_targets", targets.with_columns(rank=pl.Series([1, 1, 1], dtype=pl.Int32)))


def test_write_query_checks_staging_tables_against_their_spec(tmp_path):
    wh = Warehouse(tmp_path)
    with duckdb.connect() as con:
        with pytest.raises(schemas.ContractError, match="itemid: expected INTEGER, found VARCHAR"):
            wh.write_query("mimic_d_labitems", con, "SELECT 'x' AS itemid, 'l' AS label, 'f' AS fluid, 'c' AS category")
        assert wh.write_query("mimic_d_labitems", con,
                              "SELECT 1::INTEGER AS itemid, 'l' AS label, 'f' AS fluid, 'c' AS category") == 1


def test_a_failed_write_leaves_no_temporary_file(tmp_path):
    wh = Warehouse(tmp_path)
    with duckdb.connect() as con, pytest.raises(duckdb.Error):
        wh.write_query("excluded_cases", con, "SELECT * FROM no_such_table")
    assert list(wh.table_dir("excluded_cases").iterdir()) == []


def test_readers_never_take_the_database_lock(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded())
    with duckdb.connect(str(wh.db_path)):  # a writer (another build, the DuckDB CLI) holds the file
        assert wh.query("SELECT count(*) AS n FROM excluded_cases")["n"].item() == 2


def test_query_without_a_warehouse_says_how_to_build_one(tmp_path):
    with pytest.raises(WarehouseError, match="clinverse build"):
        Warehouse(tmp_path / "none").query("SELECT 1")


def test_a_build_generation_is_invisible_until_published_and_carries_unbuilt_tables(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded(2))
    wh.write("rejects", schemas.empty("rejects"), partition="a")
    build = wh.begin_build()
    assert build.read("excluded_cases").height == 2  # carried over
    build.write("excluded_cases", _excluded(5))
    assert wh.rows("excluded_cases") == 2 and wh.query("SELECT count(*) AS n FROM excluded_cases")["n"].item() == 2
    wh.publish_build(build)
    assert wh.published_at() == build.generation
    assert wh.rows("excluded_cases") == 5 and wh.query("SELECT count(*) AS n FROM excluded_cases")["n"].item() == 5
    assert wh.exists("rejects")  # a table the build did not rewrite is still published


def test_a_discarded_build_leaves_the_previous_good_set_in_place(tmp_path):
    wh = Warehouse(tmp_path)
    first = wh.begin_build()
    first.write("excluded_cases", _excluded(2))
    wh.publish_build(first)
    failed = wh.begin_build()
    failed.write("excluded_cases", _excluded(7))
    failed.write("rejects", schemas.empty("rejects"))
    wh.discard_build(failed)
    assert wh.rows("excluded_cases") == 2 and not wh.exists("rejects")
    assert wh.published_at() == first.generation
    assert not failed.tables_dir.exists()


def test_publishing_over_a_warehouse_from_before_generations(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded(2))  # tables/ is a plain folder
    build = wh.begin_build()
    build.write("excluded_cases", _excluded(3))
    wh.publish_build(build)
    assert wh.public_tables.is_symlink() and wh.rows("excluded_cases") == 3
    again = wh.begin_build()
    wh.publish_build(again)
    kept = {p.name for p in (tmp_path / "generations").iterdir() if p.is_dir()}
    assert kept == {build.generation, again.generation}  # the published one and the one it replaced


def test_content_hash_is_of_the_rows_not_of_how_they_were_written(tmp_path):
    rows = _excluded(4)
    one, other = Warehouse(tmp_path / "one"), Warehouse(tmp_path / "other")
    one.write("excluded_cases", rows)
    other.write("excluded_cases", rows.reverse())
    assert one.content_hash("excluded_cases") == other.content_hash("excluded_cases")  # row order does not count
    other.write("excluded_cases", rows.with_columns(pl.when(pl.col("case_id") == rows["case_id"][3])
                                                    .then(pl.lit("R")).otherwise("reason").alias("reason")))
    assert one.content_hash("excluded_cases") != other.content_hash("excluded_cases")  # one value does

    rejects = [{"source": "medqa", "table": "medqa_questions", "file": f"f{i}", "row_number": i, "row_key": None,
                "reason": "r", "raw": None} for i in range(3)]
    frame = pl.DataFrame(rejects, schema=schemas.empty("rejects").schema)
    one.write("rejects", frame[:1], partition="a")
    one.write("rejects", frame[1:], partition="b")
    other.write("rejects", frame)
    assert one.content_hash("rejects") == other.content_hash("rejects")  # nor how rows are split into files
    # the same values stored as another type (written around the contract, which would coerce it)
    frame.with_columns(pl.col("row_number").cast(pl.Int32)).write_parquet(other.table_dir("rejects") / "data.parquet")
    assert one.content_hash("rejects") != other.content_hash("rejects")  # a type does


# A build in another process, killed (SIGKILL, so no `finally` runs) at one of three points:
# mid-write (a temporary file open in its generation), just before its publishing swap, just after it.
KILLED_BUILD = """
import os, signal, sys
import polars as pl
from pipelines.warehouse import Warehouse

def die(*_):
    os.kill(os.getpid(), signal.SIGKILL)

home, point = Warehouse(sys.argv[1]), sys.argv[2]
build = home.begin_build()
print(build.generation, flush=True)
build.write("excluded_cases", pl.DataFrame({"case_id": [f"c_{i:016x}" for i in range(9)], "source": ["medqa"] * 9,
                                            "stage": ["s"] * 9, "reason": ["r"] * 9}))
if point == "mid-write":
    with build._publishing("excluded_cases", None) as tmp:
        tmp.write_bytes(b"PAR1 and half a table")
        die()
replace = os.replace
if point == "before-swap":
    os.replace = lambda src, dst: die() if os.path.basename(dst) == "tables" else replace(src, dst)
if point == "after-swap":
    Warehouse._sweep = die
home.publish_build(build)
"""


def _killed_build(home, point: str) -> str:
    """Run KILLED_BUILD against ``home``; returns the killed build's generation."""
    import signal
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", KILLED_BUILD, str(home), point], capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr
    return child.stdout.strip()


def _temporaries(home) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.name.endswith(".partial"))


@pytest.mark.parametrize("point", ["mid-write", "before-swap"])
def test_a_build_killed_before_publishing_is_never_seen_and_the_next_build_removes_it(tmp_path, point):
    wh = Warehouse(tmp_path)
    first = wh.begin_build()
    first.write("excluded_cases", _excluded(2))
    wh.publish_build(first)
    stale = [tmp_path / "synthea" / ".F_0-17.0123.partial", tmp_path / "demo-sources" / ".demo-tmp-x.partial"]
    for folder in stale:  # what a killed Synthea run and a killed demo generation leave
        (folder / "output").mkdir(parents=True)
    (tmp_path / "synthea" / "F_0-17").mkdir()

    killed = _killed_build(tmp_path, point)
    assert wh.published_at() == first.generation
    assert wh.read("excluded_cases").equals(_excluded(2)) and wh.query("SELECT * FROM excluded_cases").height == 2
    left = _temporaries(tmp_path)
    assert (tmp_path / "generations" / killed).is_dir() and left  # left behind, and invisible
    if point == "mid-write":
        assert any(name.startswith(f"generations/{killed}/excluded_cases/.data.") for name in left)
    else:
        assert any(name.startswith(".tables.") for name in left)

    wh.discard_build(wh.begin_build())  # the kernel released the killed build's lock; the next build sweeps
    assert _temporaries(tmp_path) == []
    assert {p.name for p in (tmp_path / "generations").iterdir()} == {
        "build.lock", first.generation, f"{first.generation}.previous"}
    assert (tmp_path / "synthea" / "F_0-17").is_dir()  # a finished stratum is not a temporary
    assert wh.read("excluded_cases").equals(_excluded(2))


def test_a_build_killed_after_its_swap_is_published_and_keeps_the_one_it_replaced(tmp_path):
    wh = Warehouse(tmp_path)
    first = wh.begin_build()
    first.write("excluded_cases", _excluded(2))
    wh.publish_build(first)
    killed = _killed_build(tmp_path, "after-swap")
    assert wh.published_at() == killed and wh.rows("excluded_cases") == 9
    wh.discard_build(wh.begin_build())
    assert {p.name for p in (tmp_path / "generations").iterdir() if p.is_dir()} == {first.generation, killed}


def test_one_build_at_a_time_per_home(tmp_path):
    wh = Warehouse(tmp_path)
    running = wh.begin_build()
    with pytest.raises(WarehouseError, match=r"another build is running in .*pid \d+ holds .*build\.lock"):
        wh.begin_build()
    assert running.tables_dir.is_dir()  # the refused build swept nothing
    wh.publish_build(running)
    wh.discard_build(wh.begin_build())  # publishing and discarding release the lock
    wh.begin_build()


def test_a_publish_killed_while_converting_a_warehouse_from_before_generations_is_relinked(tmp_path):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", _excluded(2))  # tables/ is a plain folder
    (tmp_path / "generations").mkdir()
    (tmp_path / "tables").rename(tmp_path / "generations" / "20250101T000000-legacy")  # then killed
    assert wh.tables() == []  # readers see no table rather than part of one
    wh.discard_build(wh.begin_build())
    assert wh.published_at() == "20250101T000000-legacy" and wh.rows("excluded_cases") == 2


def test_a_first_build_killed_leaves_nothing_to_read(tmp_path):
    _killed_build(tmp_path, "mid-write")
    wh = Warehouse(tmp_path)
    assert wh.tables() == [] and wh.published_at() is None
    with pytest.raises(WarehouseError, match="no warehouse"):
        wh.query("SELECT 1")
