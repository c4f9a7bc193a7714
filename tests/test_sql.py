"""sql.connect: every DuckDB connection of the build holds at most CLINVERSE_DUCKDB_MEMORY and spills
to a folder of its process's own, which DuckDB removes when the connection closes."""

import os
import tempfile
from pathlib import Path

import pytest

from pipelines import config
from sql import connect

SPILL = Path(tempfile.gettempdir()) / f"clinverse-duckdb-{os.getpid()}"


def _setting(con, name: str) -> str:
    return con.execute(f"SELECT current_setting('{name}')").fetchone()[0]


def test_a_connection_holds_the_default_limit_and_spills_into_this_process_folder(monkeypatch):
    monkeypatch.delenv(config.ENV_DUCKDB_MEMORY, raising=False)
    with connect() as con:
        assert _setting(con, "memory_limit") == "953.6 MiB"  # 1GB, as DuckDB prints it
        assert _setting(con, "temp_directory") == str(SPILL)


def test_the_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(config.ENV_DUCKDB_MEMORY, "256MB")
    with connect() as con:
        assert _setting(con, "memory_limit") == "244.1 MiB"


def test_a_query_larger_than_the_limit_spills_and_leaves_no_spill_folder(monkeypatch):
    monkeypatch.setenv(config.ENV_DUCKDB_MEMORY, "40MB")
    query = ("SELECT count(*), min(s) FROM (SELECT i, repeat('x', 40) || i::VARCHAR AS s "
             "FROM range(2000000) t(i) ORDER BY s DESC)")
    with connect() as con:
        assert con.execute(query).fetchone() == (2_000_000, "x" * 40 + "0")
        spilled = SPILL.exists()
    assert spilled  # the sort did not fit in 40MB: DuckDB wrote to the spill folder ...
    assert not SPILL.exists()  # ... and removed it when the connection closed


def test_a_malformed_limit_is_an_error_naming_the_variable(monkeypatch):
    monkeypatch.setenv(config.ENV_DUCKDB_MEMORY, "lots")
    with pytest.raises(config.SettingError, match=r"^CLINVERSE_DUCKDB_MEMORY: cannot read 'lots'"):
        connect()
