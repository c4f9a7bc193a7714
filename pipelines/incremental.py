"""Which subject shards a rebuild must re-run.

A shard's per-case steps (the assets partitioned by ``assets.factories.SHARDS``) read its cases
(``case_skeleton`` and ``case_provenance``, written in shards), the staged rows of its patients and
the staged tables that belong to no patient (dictionaries), under the build's settings. The digest
of all that, per shard (:func:`shard_inputs`, the table ``shard_inputs``), changes exactly when one of
them does: a new admission, a corrected lab value, a new dictionary entry, another exam window.
:func:`changed_shards` compares two builds' digests; `clinverse build --incremental` and the
``new_source_data`` sensor re-run the per-case steps of those shards and the cohort-wide steps
downstream, and leave every other shard's files as the published build wrote them.

A staged row belongs to a shard through the first of :data:`KEY_COLUMNS` its table has, looked up in
``case_provenance``: rows of patients who have no candidate case reach no shard (no step reads them).
Row digests are DuckDB's ``hash`` of the whole row, summed, so neither row order nor file layout
counts; a DuckDB upgrade that changed ``hash`` would make every shard look changed (a full re-run,
never a missed one). Code changes are not seen: the ``full_rebuild`` schedule is for them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence

import duckdb
import polars as pl
import pyarrow.parquet as pq

import schemas
from pipelines.config import Settings
from pipelines.shards import shard_column
from pipelines.warehouse import SHARD_SUFFIX, Warehouse, shard_of_file
from sql import connect

TABLE = "shard_inputs"
ROOTS = ("case_skeleton", "case_provenance")  # the per-case tables' roots, written in shards
# How a staged row finds its patient: the case_provenance column of the same name.
KEY_COLUMNS = ("subject_id", "PatientID", "CaseID", "medqa_hash")
# Settings that change no per-case output: where things are and how many processes do the work.
UNREAD_SETTINGS = ("home", "locations", "workers")
# pipelines.warehouse.shard_of_file of a file's path (group 1), for DuckDB's ``filename`` column and polars'
SHARD_OF_PATH = SHARD_SUFFIX.pattern.removesuffix("$") + r"\.parquet$"
SHARD_OF_FILE = f"regexp_extract(filename, '{SHARD_OF_PATH}', 1)"


def settings_digest(settings: Settings) -> str:
    """A digest of the settings the per-case steps read (the shard count included: it moves cases)."""
    values = {k: v for k, v in dataclasses.asdict(settings).items() if k not in UNREAD_SETTINGS}
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()


def shard_inputs(warehouse: Warehouse, staged: Iterable[str], settings: Settings) -> pl.DataFrame:
    """One row per shard of ``case_skeleton``: the digest of what its per-case steps read (the roots,
    the ``staged`` tables' rows of its patients and their patient-less tables, the settings), its
    candidate cases and its staged rows."""
    # shard -> (table, rows, row-hash sum) of what it reads; every shard case_skeleton has, empty ones too
    parts: dict[str, list[tuple[str, int, int]]] = {
        shard: [] for shard in sorted({shard_of_file(p.stem) for p in warehouse.files(ROOTS[0])} - {None})}
    shared: list[tuple[str, int, int]] = []  # patient-less staged tables: every shard reads them
    with connect() as con:
        for table in ROOTS:
            counted = {shard: (rows, int(total)) for shard, rows, total in con.sql(
                f"SELECT shard, count(*), sum(hash(t)::HUGEINT)::VARCHAR FROM (SELECT * EXCLUDE (filename), "
                f"{SHARD_OF_FILE} AS shard FROM read_parquet('{warehouse.table_glob(table)}', filename = true)) t "
                "GROUP BY shard").fetchall()}
            for shard, part in parts.items():
                part.append((table, *counted.get(shard, (0, 0))))
        cases = {shard: part[0][1] for shard, part in parts.items()}  # ROOTS[0]: case_skeleton
        _keys(con, warehouse)
        staged_rows = dict.fromkeys(parts, 0)
        for table in sorted(t for t in staged if warehouse.exists(t)):
            glob = warehouse.table_glob(table)
            key = next((c for c in KEY_COLUMNS if c in _columns(warehouse, table)), None)
            if key is None:
                rows, total = con.sql(f"SELECT count(*), coalesce(sum(hash(t)::HUGEINT), 0)::VARCHAR "
                                      f"FROM read_parquet('{glob}') t").fetchall()[0]
                shared.append((table, rows, int(total)))
                continue
            for shard, rows, total in con.sql(
                    f"SELECT k.shard, count(*), sum(hash(t)::HUGEINT)::VARCHAR FROM read_parquet('{glob}') t "
                    f"JOIN keys_{key} k ON t.{key} = k.key GROUP BY k.shard").fetchall():
                if shard in parts:
                    parts[shard].append((table, rows, int(total)))
                    staged_rows[shard] += rows
    config = settings_digest(settings)
    rows = [{"shard": shard, "digest": _digest(sorted(part) + sorted(shared), config),
             "cases": cases[shard], "rows": staged_rows[shard]} for shard, part in sorted(parts.items())]
    return pl.DataFrame(rows, schema=schemas.empty(TABLE).schema) if rows else schemas.empty(TABLE)


def changed_shards(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """The shards of ``after`` whose digest is not the one ``before`` (an earlier build's, as
    :func:`digests` gives them) has for them: new shards and changed ones, in order."""
    return [shard for shard, digest in sorted(after.items()) if before.get(shard) != digest]


def span(shards: Sequence[str], names: Sequence[str]) -> list[str]:
    """The consecutive run of ``names`` from the first to the last of ``shards`` (one Dagster run holds
    a range of partitions; shards between two changed ones are re-run too)."""
    if not shards:
        return []
    positions = sorted(names.index(s) for s in shards)
    return list(names[positions[0]:positions[-1] + 1])


def digests(frame: pl.DataFrame) -> dict[str, str]:
    """``shard -> digest`` of a ``shard_inputs`` frame (what the sensor keeps in its cursor)."""
    return dict(frame.select("shard", "digest").iter_rows())


def _keys(con: duckdb.DuckDBPyConnection, warehouse: Warehouse) -> None:
    """A temporary table ``keys_<column>`` (key, shard) per key column: which shard each patient,
    stay or question of ``case_provenance`` is in."""
    provenance = warehouse.table_glob("case_provenance")
    for column in KEY_COLUMNS:
        con.execute(f"CREATE OR REPLACE TEMP TABLE keys_{column} AS SELECT DISTINCT {column} AS key, "
                    f"{SHARD_OF_FILE} AS shard FROM read_parquet('{provenance}', filename = true) "
                    f"WHERE {column} IS NOT NULL")


def _columns(warehouse: Warehouse, table: str) -> list[str]:
    return pq.read_schema(warehouse.files(table)[0]).names


def _digest(parts: Sequence[tuple[str, int, int]], config: str) -> str:
    return hashlib.sha256(json.dumps([config, *parts]).encode()).hexdigest()[:16]


def misplaced_rows(warehouse: Warehouse, names: Sequence[str]) -> dict[str, int]:
    """Per table written in shards, what is not where an incremental rebuild expects it: files of a
    shard not in ``names`` (another shard count's), ``case_skeleton`` rows whose patient key is of
    another shard than their file's, cases in two shards, and rows in a shard file that is not their
    case's shard (as ``case_skeleton`` and ``case_provenance`` place it). A rebuild re-runs a shard's
    steps and keeps the other shards' files, so a row in the wrong file would outlive its case."""
    if not all(warehouse.exists(t) for t in ROOTS):
        return {}
    found: dict[str, int] = {}
    skeleton = pl.scan_parquet(warehouse.table_glob(ROOTS[0]), include_file_paths="file").select(
        "patient_key", pl.col("file").str.extract(SHARD_OF_PATH).alias("in_file")
    ).collect()
    found[ROOTS[0]] = skeleton.filter(
        skeleton.select(shard_column(len(names)))["shard"] != skeleton["in_file"]).height
    roots = " UNION ALL ".join(f"SELECT case_id, {SHARD_OF_FILE} AS shard FROM read_parquet("
                               f"'{warehouse.table_glob(t)}', filename = true)" for t in ROOTS)
    with connect() as con:
        con.execute(f"CREATE TEMP TABLE case_shards AS SELECT DISTINCT case_id, shard FROM ({roots})")
        found[ROOTS[1]] = con.sql("SELECT count(*) FROM (SELECT case_id FROM case_shards GROUP BY case_id "
                                  "HAVING count(*) > 1)").fetchall()[0][0]
        for table in warehouse.tables():
            files = [p for p in warehouse.files(table) if shard_of_file(p.stem)]
            found[table] = found.get(table, 0) + sum(1 for p in files if shard_of_file(p.stem) not in names)
            if files and "case_id" in _columns(warehouse, table):
                found[table] += con.sql(
                    f"SELECT count(*) FROM read_parquet('{warehouse.table_glob(table)}', filename = true) t "
                    f"LEFT JOIN case_shards c ON t.case_id = c.case_id AND {SHARD_OF_FILE} = c.shard "
                    f"WHERE c.case_id IS NULL AND t.case_id IS NOT NULL AND {SHARD_OF_FILE} <> ''").fetchall()[0][0]
    return {table: n for table, n in found.items() if n}
