"""Writing one producer's partition of a candidate table (optionally in numbered batches)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import duckdb
import polars as pl

import schemas
from pipelines.warehouse import Warehouse, written_name

class Written(NamedTuple):
    rows: int
    skipped: str = ""  # why the producer wrote an empty partition (its source is not staged)


def write_empty(warehouse: Warehouse, table: str, partition: str, why: str) -> Written:
    """An empty partition, so that a source configured away leaves no stale rows behind."""
    return Written(write_partition(warehouse, table, partition, schemas.empty(table)).rows, why)


def write_partition(warehouse: Warehouse, table: str, partition: str, frame: pl.DataFrame) -> Written:
    """``frame`` as ``<partition>.parquet`` (validated), replacing any batch files of the partition."""
    rows = warehouse.write(table, frame, partition=partition)
    _remove_stale(warehouse, table, partition, {partition})
    return Written(rows)


def write_batches(warehouse: Warehouse, table: str, partition: str, frames: Iterable[pl.DataFrame],
                  empty: pl.DataFrame | None = None) -> Written:
    """Write ``frames`` as ``<partition>-00000.parquet``, ``-00001``, ... (at least one file: ``empty``,
    default the table's empty schema frame), then remove this partition's files of an earlier build
    that were not rewritten."""
    written: set[str] = set()
    rows = 0
    for frame in frames:
        name = f"{partition}-{len(written):05d}"
        rows += warehouse.write(table, frame, partition=name)
        written.add(name)
    if not written:
        name = f"{partition}-00000"
        warehouse.write(table, empty if empty is not None else schemas.empty(table), partition=name)
        written.add(name)
    _remove_stale(warehouse, table, partition, written)
    return Written(rows)


def write_query(warehouse: Warehouse, table: str, con: duckdb.DuckDBPyConnection, sql: str, partition: str) -> Written:
    """Stream a DuckDB query into ``<partition>.parquet`` and remove the partition's older batch files."""
    rows = warehouse.write_query(table, con, sql, partition=partition)
    _remove_stale(warehouse, table, partition, {partition})
    return Written(rows)


def _remove_stale(warehouse: Warehouse, table: str, partition: str, written: set[str]) -> None:
    for path in warehouse.partition_files(table, partition):
        if written_name(path.stem) not in written:
            path.unlink(missing_ok=True)
