"""The warehouse: Parquet per table (the truth) and DuckDB views over it (the query layer).

Layout under ``home``::

    tables/<table>/data.parquet          one file per unpartitioned table
    tables/<table>/<partition>.parquet   one file per partition (e.g. synthea_pool)
    clinverse.duckdb                     one view per table over tables/<table>/*.parquet

Every write goes to a hidden temporary file in the table's folder and is moved into place
with ``os.replace``, which is atomic on POSIX: a reader sees the old file or the new one,
never half of one.  Views glob the folder, so a replaced file needs no view change; the
database is only opened for writing when a new table appears, briefly, and a reader holding
it never fails a build (the view is created on the next build instead).
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq

import schemas
from sql import load

log = logging.getLogger(__name__)

DB_NAME = "clinverse.duckdb"


BATCH_SUFFIX = re.compile(r"-\d{5}$")


def partition_of(stem: str) -> str:
    """File stem to partition: ``mimic_notes-00003`` (a batch) -> ``mimic_notes``."""
    return BATCH_SUFFIX.sub("", stem)


class WarehouseError(RuntimeError):
    pass


class Warehouse:
    def __init__(self, home: Path | str):
        self.home = Path(home).resolve()
        self.tables_dir = self.home / "tables"
        self.db_path = self.home / DB_NAME

    # -- locations -----------------------------------------------------------------
    def table_dir(self, table: str) -> Path:
        return self.tables_dir / table

    def table_glob(self, table: str) -> str:
        return str(self.table_dir(table) / "*.parquet")

    def exists(self, table: str) -> bool:
        return any(self.table_dir(table).glob("*.parquet"))

    def tables(self) -> list[str]:
        if not self.tables_dir.exists():
            return []
        return sorted(p.name for p in self.tables_dir.iterdir() if p.is_dir() and any(p.glob("*.parquet")))

    # -- reading -------------------------------------------------------------------
    def scan(self, table: str) -> pl.LazyFrame:
        if not self.exists(table):
            raise WarehouseError(
                f"table {table!r} is not in the warehouse at {self.home}; "
                "materialise its asset first (clinverse build, or the Dagster UI)"
            )
        return pl.scan_parquet(self.table_glob(table))

    def read(self, table: str) -> pl.DataFrame:
        return self.scan(table).collect()

    def read_or_empty(self, table: str) -> pl.DataFrame:
        return self.read(table) if self.exists(table) else schemas.empty(table)

    def partition_files(self, table: str, partition: str) -> list[Path]:
        """A partition's files: ``<partition>.parquet`` or its batches ``<partition>-00000.parquet``..."""
        return sorted(p for p in self.table_dir(table).glob("*.parquet") if partition_of(p.stem) == partition)

    def read_partition(self, table: str, partition: str) -> pl.DataFrame:
        files = self.partition_files(table, partition)
        return pl.read_parquet(files) if files else schemas.empty(table)

    def rows(self, table: str) -> int:
        return self.scan(table).select(pl.len()).collect().item() if self.exists(table) else 0

    def sql(self, name: str, **tables: str) -> str:
        """sql/<name>.sql with each ``{placeholder}`` bound to a warehouse table's Parquet glob."""
        return load(name).format(**{placeholder: self.table_glob(table) for placeholder, table in tables.items()})

    def sql_frame(self, name: str, **tables: str) -> pl.DataFrame:
        """Run sql/<name>.sql (placeholders bound as in :meth:`sql`) on a fresh connection."""
        with duckdb.connect() as con:
            return con.sql(self.sql(name, **tables)).pl()

    # -- writing -------------------------------------------------------------------
    def write(self, table: str, df: pl.DataFrame, partition: str | None = None) -> int:
        """Validate ``df`` against schemas/<table>.py (when the table has one) and publish it."""
        if schemas.has(table):
            df = schemas.conform(table, df)
        target = self._target(table, partition)
        tmp = self._tmp(target)
        df.write_parquet(tmp, compression="zstd", statistics=True)
        os.replace(tmp, target)
        self._ensure_view(table)
        return df.height

    def write_query(self, table: str, con: duckdb.DuckDBPyConnection, sql: str, partition: str | None = None) -> int:
        """Stream a DuckDB query straight into the table's Parquet file (for large tables)."""
        target = self._target(table, partition)
        tmp = self._tmp(target)
        con.execute(f"COPY ({sql}) TO '{tmp}' (FORMAT parquet, COMPRESSION zstd)")
        os.replace(tmp, target)
        self._ensure_view(table)
        return pq.ParquetFile(target).metadata.num_rows

    def _target(self, table: str, partition: str | None) -> Path:
        folder = self.table_dir(table)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{partition or 'data'}.parquet"

    @staticmethod
    def _tmp(target: Path) -> Path:
        return target.with_name(f".{target.stem}.{uuid.uuid4().hex}.partial")

    # -- the DuckDB query layer ----------------------------------------------------
    def _ensure_view(self, table: str) -> None:
        self.refresh_views(only=[table])

    def refresh_views(self, only: list[str] | None = None) -> None:
        wanted = only or self.tables()
        for attempt in range(3):
            try:
                with duckdb.connect(str(self.db_path)) as con:
                    present = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
                    for table in wanted:
                        if only is None or table not in present:
                            con.execute(
                                f'CREATE OR REPLACE VIEW "{table}" AS '
                                f"SELECT * FROM read_parquet('{self.table_glob(table)}')"
                            )
                return
            except duckdb.IOException as exc:  # a reader holds the database file
                if attempt == 2:
                    log.warning("views not refreshed (%s); they will be on the next build", exc)
                    return
                time.sleep(0.5)

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection with every table as a view (for ``clinverse query``)."""
        if not self.db_path.exists():
            raise WarehouseError(
                f"no warehouse at {self.home} ({DB_NAME} missing): run `clinverse build --home {self.home}` "
                "or set CLINVERSE_HOME to the warehouse folder"
            )
        return duckdb.connect(str(self.db_path), read_only=True)

    def query(self, sql: str) -> pl.DataFrame:
        with self.connect() as con:
            return con.sql(sql).pl()
