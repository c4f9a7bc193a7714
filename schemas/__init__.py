"""Machine-readable warehouse contract: one module per table, each exporting ``SCHEMA``.

Writers call :func:`conform` before a frame lands and :func:`validate_parquet` before a file
streamed by DuckDB lands; blocking asset checks call :func:`validate` on what was written.
``staging`` holds the source-table specs (publisher column names and DuckDB types) used by the
readers.  A schema whose ``metadata`` has ``restricted: True`` (or a staging spec with
``restricted=True``) is a restricted table (raw source keys, note text): never part of an export
and left out of the default query views (``Warehouse.connect(restricted=True)`` opens them).
"""

from __future__ import annotations

import copy
import importlib
from functools import cache

from pathlib import Path

import pandera.polars as pa
import polars as pl
import pyarrow.parquet as pq

from schemas import staging
from sql import connect

# Rows validated at a time when a streamed file is checked: bounded memory on full MIMIC-IV.
VALIDATION_BATCH_ROWS = 500_000


class ContractError(ValueError):
    """A table does not satisfy its schema; the message names table, column and failing check."""


@cache
def get(table: str) -> pa.DataFrameSchema:
    try:
        module = importlib.import_module(f"schemas.{table}")
    except ModuleNotFoundError as exc:
        raise KeyError(f"no schema for table {table!r} in schemas/") from exc
    return module.SCHEMA


def has(table: str) -> bool:
    try:
        get(table)
    except KeyError:
        return False
    return True


def restricted(table: str) -> bool:
    """Whether the table is restricted: its schema's ``metadata`` says so (``case_provenance``,
    ``note_sections``), or its staging spec does (the MIMIC-IV-Note tables, raw note text)."""
    if has(table):
        return bool((get(table).metadata or {}).get("restricted"))
    spec = staging.BY_TABLE.get(table)
    return spec is not None and spec.restricted


def empty(table: str) -> pl.DataFrame:
    """An empty frame with the table's columns and dtypes."""
    schema = get(table)
    return pl.DataFrame(schema={name: col.dtype.type for name, col in schema.columns.items()})


def conform(table: str, df: pl.DataFrame) -> pl.DataFrame:
    """Order and cast columns as the schema says, then validate every check."""
    schema = get(table)
    missing = [c for c in schema.columns if c not in df.columns]
    extra = [c for c in df.columns if c not in schema.columns]
    if missing or extra:
        raise ContractError(
            f"table {table!r}: columns missing {missing} / not in schemas/{table}.py {extra}"
        )
    df = df.select(list(schema.columns))
    return validate(table, df)


def validate(table: str, df: pl.DataFrame, without: tuple[str, ...] = ()) -> pl.DataFrame:
    """``df`` checked (and coerced) against the table's schema: every row-level check, then each
    unique key (:func:`repeated`). ``without``: columns ``df`` leaves out on purpose (a release
    drops them), whose checks, and the keys that hold one, do not apply."""
    checked = _validate_rows(table, df, without)
    for key in _unique_keys(table):
        if not set(key) & set(without):
            _refuse_repeats(table, key, repeated(checked, key))
    return checked


def _validate_rows(table: str, df: pl.DataFrame, without: tuple[str, ...] = ()) -> pl.DataFrame:
    try:
        return _row_checks(table, without).validate(df, lazy=True)
    except (pa.errors.SchemaErrors, pa.errors.SchemaError) as exc:
        raise ContractError(f"table {table!r} violates schemas/{table}.py:\n{exc}") from exc


@cache
def _row_checks(table: str, without: tuple[str, ...] = ()) -> pa.DataFrameSchema:
    """The table's schema without its unique keys, which :func:`validate` counts apart, nor the
    columns ``without``."""
    schema = copy.deepcopy(get(table)).remove_columns(list(without))
    schema.unique = None
    return schema.update_columns({name: {"unique": False} for name, col in schema.columns.items() if col.unique})


def _unique_keys(table: str) -> list[list[str]]:
    """The table's unique keys: each column marked unique, and the schema's ``unique`` columns together."""
    schema = get(table)
    keys = [[name] for name, col in schema.columns.items() if col.unique]
    return keys + [list(schema.unique)] if schema.unique else keys


def repeated(df: pl.DataFrame, key: list[str] | tuple[str, ...]) -> int:
    """How many values of ``key`` occur more than once in ``df``. The rows' hashes are sorted and
    only rows whose hash repeats are grouped: pandera's check of a key hashed every row into a
    table (310 MB for the 53 MB of case_exam_targets at 32,000 generated admissions)."""
    if df.height < 2:
        return 0
    key = list(key)
    hashes = df.select(pl.struct(key).hash(seed=0)).to_series()
    ordered = hashes.sort()
    repeats = ordered.slice(1).filter(ordered.slice(1) == ordered.slice(0, ordered.len() - 1))
    if repeats.is_empty():
        return 0
    suspects = df.filter(hashes.is_in(repeats.unique().implode())).select(key)
    return suspects.group_by(key).len().filter(pl.col("len") > 1).height


def _refuse_repeats(table: str, key: list[str], repeated: int) -> None:
    if repeated:
        raise ContractError(f"table {table!r} violates schemas/{table}.py: {repeated} value(s) of "
                            f"({', '.join(key)}) occur more than once; the key must be unique")


def validate_parquet(table: str, path: Path) -> None:
    """Validate a Parquet file written outside polars (a DuckDB ``COPY``) against the table's schema:
    column names and types exactly as declared (nothing is coerced on disk), every row-level check
    in batches of :data:`VALIDATION_BATCH_ROWS`, and uniqueness over the whole file."""
    schema = get(table)
    found = pl.read_parquet_schema(path)
    declared = {name: col.dtype.type for name, col in schema.columns.items()}
    problems = [f"column {name}: expected {kind}, found {found.get(name, 'nothing')}"
                for name, kind in declared.items() if found.get(name) != kind]
    problems += [f"column {name} is not in schemas/{table}.py" for name in found if name not in declared]
    if problems:
        raise ContractError(f"table {table!r} ({path.name}) violates schemas/{table}.py: " + "; ".join(problems))
    for batch in pq.ParquetFile(path).iter_batches(batch_size=VALIDATION_BATCH_ROWS):
        _validate_rows(table, pl.from_arrow(batch))
    with connect() as con:
        for key in _unique_keys(table):
            columns = ", ".join(f'"{c}"' for c in key)
            query = f"SELECT count(*) FROM (SELECT {columns} FROM read_parquet('{path}') GROUP BY ALL HAVING count(*) > 1)"
            _refuse_repeats(table, key, con.execute(query).fetchone()[0])
