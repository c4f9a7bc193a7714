"""The released tables: the curated warehouse tables as ``data/tables.yaml`` says to release them.

Each table is read from the published warehouse, narrowed to the kept cases where its rows cover
every candidate case, stripped of the dropped columns, its source references rewritten and its unit
ids derived anew, then validated against its schema less the dropped columns and sorted by its key,
so the same warehouse gives the same frames and, written by :func:`write_tables`, the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import schemas
from pipelines.ids import unit_id
from pipelines.release.spec import TABLES_FILE, ReleasedTable, ReleaseSpec, Rewrite, release_spec
from pipelines.warehouse import Warehouse

UNIT_REF = "unit:"  # a case_rubrics source_ref that points at an information unit


class ReleaseSpecError(ValueError):
    """The warehouse holds something data/tables.yaml does not say how to release."""


def released_frames(warehouse: Warehouse, spec: ReleaseSpec | None = None) -> dict[str, pl.DataFrame]:
    """Table name -> the frame a release writes for it, in data/tables.yaml order."""
    spec = spec or release_spec()
    kept = warehouse.read("cases")["case_id"]
    frames = {table.name: _select(warehouse, table, kept) for table in spec.tables}
    units: dict[str, str] = {}  # warehouse unit id -> released unit id
    for table in spec.tables:
        if table.rekey:
            frames[table.name], renamed = _rekey_units(frames[table.name])
            units.update(renamed)
    return {table.name: _conform(table, _rewrite(frames[table.name], table, spec.rewrites, units))
            for table in spec.tables}


def write_tables(frames: dict[str, pl.DataFrame], folder: Path) -> dict[str, Path]:
    """One ``<table>.parquet`` per frame in ``folder``."""
    written = {}
    for name, frame in frames.items():
        written[name] = folder / f"{name}.parquet"
        frame.write_parquet(written[name], compression="zstd", statistics=True)
    return written


def _select(warehouse: Warehouse, table: ReleasedTable, kept: pl.Series) -> pl.DataFrame:
    frame = warehouse.read(table.name)
    temporal = [c for c, dtype in frame.schema.items() if dtype.is_temporal() and c not in table.drop]
    if temporal:
        raise ReleaseSpecError(
            f"table {table.name!r} has date or time column(s) {', '.join(temporal)}: a release holds no dates; "
            f"drop them (or derive an offset from the case's index_time) in pipelines/release/{TABLES_FILE}")
    if table.kept_cases:
        frame = frame.filter(pl.col("case_id").is_in(kept.implode()))
    return frame.select(table.columns())


def _rekey_units(frame: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, str]]:
    """Unit ids from released content only (data/tables.yaml ``unit_ids``), and the old -> new map."""
    new = [unit_id(case, ordinal, category, text) for case, ordinal, category, text in
           frame.select("case_id", "ordinal", "category", "text").iter_rows()]
    if len(set(new)) != len(new):
        raise ReleaseSpecError("information_units: (case_id, ordinal, category, text) repeats, so released unit "
                               "ids would collide; the warehouse's ordinals should be unique per case")
    renamed = dict(zip(frame["unit_id"].to_list(), new))
    return frame.with_columns(pl.Series("unit_id", new, dtype=pl.Utf8)), renamed


def _rewrite(frame: pl.DataFrame, table: ReleasedTable, rules: tuple[Rewrite, ...],
             units: dict[str, str]) -> pl.DataFrame:
    """The table's rewritten columns with each distinct value rewritten once."""
    for column in table.rewrite:
        mapping = {value: _rewritten(table.name, column, value, rules, units)
                   for value in frame[column].unique().to_list() if value is not None}
        frame = frame.with_columns(pl.col(column).replace_strict(mapping, default=None, return_dtype=pl.Utf8))
    return frame


def _rewritten(table: str, column: str, value: str, rules: tuple[Rewrite, ...], units: dict[str, str]) -> str:
    if value.startswith(UNIT_REF):
        old = value.removeprefix(UNIT_REF)
        if old not in units:
            raise ReleaseSpecError(f"{table}.{column} {value!r} points at a unit that is not released")
        return UNIT_REF + units[old]
    return next((rule.becomes for rule in rules if rule.match.fullmatch(value)), value)


def _conform(table: ReleasedTable, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` validated against the table's schema less its dropped columns, sorted by its key."""
    frame = schemas.validate(table.name, frame, without=tuple(table.drop))
    if count := schemas.repeated(frame, table.key):
        raise ReleaseSpecError(f"table {table.name!r}: {count} value(s) of its key ({', '.join(table.key)}) occur "
                               f"more than once; fix its key in pipelines/release/{TABLES_FILE}")
    return frame.sort(list(table.key))
