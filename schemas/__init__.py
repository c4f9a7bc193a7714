"""Machine-readable warehouse contract: one module per table, each exporting ``SCHEMA``.

Writers call :func:`conform` before a table lands; blocking asset checks call
:func:`validate` on what was written.  ``staging`` holds the source-table specs
(publisher column names and DuckDB types) used by the readers.
"""

from __future__ import annotations

import importlib
from functools import cache

import pandera.polars as pa
import polars as pl


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


def validate(table: str, df: pl.DataFrame) -> pl.DataFrame:
    try:
        return get(table).validate(df, lazy=True)
    except (pa.errors.SchemaErrors, pa.errors.SchemaError) as exc:
        raise ContractError(f"table {table!r} violates schemas/{table}.py:\n{exc}") from exc
