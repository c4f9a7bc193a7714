"""Staging-table checks run by blocking asset checks: columns, types and key nulls.

They read only Parquet metadata and one aggregate query per table, so they stay cheap on
full-size MIMIC-IV while still failing on a table that does not match schemas/staging.py.
"""

from __future__ import annotations

from dataclasses import dataclass


from pipelines.warehouse import Warehouse
from schemas.staging import column_problems, describe
from sql import connect

@dataclass(frozen=True)
class CheckOutcome:
    passed: bool
    problems: list[str]
    null_keys: dict[str, int]


def check_staging(warehouse: Warehouse, table: str, columns: dict[str, str], keys: tuple[str, ...]) -> CheckOutcome:
    if not warehouse.exists(table):
        return CheckOutcome(False, [f"table {table} was not written"], {})
    glob = warehouse.table_glob(table)
    with connect() as con:
        described = describe(con, glob)
        problems = column_problems(described, columns)
        null_keys = {}
        present = [k for k in keys if k in described]
        if present:  # a missing key column is already a problem above; count nulls of the others
            counts = con.execute(
                "SELECT " + ", ".join(f'count(*) - count("{k}")' for k in present) + f" FROM read_parquet('{glob}')"
            ).fetchone()
            null_keys = dict(zip(present, map(int, counts)))
            problems += [f"key column {k} has {n} null value(s)" for k, n in null_keys.items() if n]
    return CheckOutcome(not problems, problems, null_keys)
