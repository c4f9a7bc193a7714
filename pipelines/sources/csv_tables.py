"""Stage one publisher CSV table (gzip or plain) into Parquet with DuckDB, streaming.

DuckDB reads with explicit column types (no sniffing, so every release reads the same
way) and ``store_rejects``: rows that fail to cast or have the wrong number of fields are
kept aside with their line number and DuckDB's message instead of failing the load or
vanishing.  Columns the spec does not list are kept as VARCHAR.
"""

from __future__ import annotations

import gzip
import logging
import zlib
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

import schemas
from pipelines.sources.errors import SourceError, hint, named
from pipelines.warehouse import Warehouse
from schemas.staging import SourceTable
from sql import connect

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StageResult:
    table: str
    file: Path | None
    rows: int
    rejects: pl.DataFrame
    skipped: str | None = None  # reason an optional table was not staged


def locate(spec: SourceTable, source_dir: Path | None) -> Path | None:
    """The table's file under ``source_dir`` (``.csv.gz`` as published, or unpacked ``.csv``)."""
    if source_dir is None:
        raise SourceError(f"{spec.source}: no source directory configured; {hint(spec.setting)}")
    if not source_dir.is_dir():
        raise SourceError(
            f"{spec.setting}={source_dir} is not a directory; point it at the {spec.source} release "
            f"as published (it must contain {spec.file}); {hint(spec.setting)}"
        )
    for candidate in (source_dir / spec.file, source_dir / spec.file.removesuffix(".gz")):
        if candidate.is_file():
            return candidate
    if spec.optional:
        return None
    raise SourceError(
        f"{source_dir / spec.file} not found: {spec.table} needs it ({spec.setting}={source_dir}); "
        f"check that {named(spec.setting)} points at the release root, not a sub-folder"
    )


def first_line(path: Path) -> bytes:
    """The file's first line as bytes (b"" for an empty file). Only this line is decoded as the
    header, so a bad byte further down is a rejected row, not a header error."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as fh:
            return fh.readline()
    except (OSError, EOFError, zlib.error) as exc:
        raise SourceError(f"{path}: cannot read the header ({exc}); the file looks truncated or corrupt — re-download it") from exc


def read_header(path: Path, spec: SourceTable, first: bytes) -> list[str]:
    try:
        text = first.decode("utf-8-sig")  # a UTF-8 byte-order mark is not part of the first column's name
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: the header line is not UTF-8 ({exc}); {spec.source} releases are UTF-8 — "
                          "re-download the file or convert it with iconv -t UTF-8") from exc
    header = [c.strip().strip('"') for c in text.rstrip("\r\n").split(",")]
    missing = [c for c in spec.columns if c not in header]
    if missing:
        raise SourceError(
            f"{path}: required column(s) {', '.join(missing)} missing (header has {', '.join(header) or 'nothing'}); "
            f"{named(spec.setting)} must point at an unmodified {spec.source} release"
        )
    return header


def stage_csv(spec: SourceTable, source_dir: Path | None, warehouse: Warehouse) -> StageResult:
    path = locate(spec, source_dir)
    first = first_line(path) if path is not None else b""
    if path is not None and not first:
        if not spec.optional:
            raise SourceError(f"{path}: empty file (0 bytes of content); {spec.table} needs it — re-download it "
                              f"({named(spec.setting)} = {source_dir})")
        reason = f"optional file {path} is an empty file (no header, no rows); treated as absent"
        path = None
    elif path is None:
        reason = f"optional file {spec.file} absent under {source_dir}"
    if path is None:
        log.info("%s skipped: %s", spec.table, reason)
        # An empty table with the spec's columns keeps downstream SQL uniform.
        empty = "SELECT " + ", ".join(f'CAST(NULL AS {t}) AS "{n}"' for n, t in spec.columns.items()) + " LIMIT 0"
        with connect() as con:
            warehouse.write_query(spec.table, con, empty)
        return StageResult(spec.table, None, 0, _rejects_frame([]), skipped=reason)
    header = read_header(path, spec, first)
    columns = {name: spec.columns.get(name, "VARCHAR") for name in header}
    columns_sql = "{" + ", ".join(f"'{n}': '{t}'" for n, t in columns.items()) + "}"
    reader = (
        f"SELECT * FROM read_csv('{path}', header=true, auto_detect=false, delim=',', quote='\"', "
        f"escape='\"', columns={columns_sql}, "
        f"store_rejects=true, rejects_table='rejected_rows', rejects_scan='rejected_scans')"
    )
    with connect() as con:
        try:
            rows = warehouse.write_query(spec.table, con, reader)
        except duckdb.Error as exc:
            raise SourceError(f"{path}: DuckDB could not read it ({exc}); if it is truncated or corrupt, re-download it "
                              f"(read through {named(spec.setting)} = {source_dir})") from exc
        # One row per rejected line: DuckDB reports a short row once per missing column.
        rejected = con.execute(
            "SELECT line, any_value(csv_line), string_agg(error_type::VARCHAR || coalesce(' in column ' || column_name, '') "
            "|| ': ' || split_part(error_message, chr(10), 1), '; ' ORDER BY column_idx) "
            "FROM rejected_rows GROUP BY line ORDER BY line"
        ).fetchall()
    records = [
        {
            "source": spec.source,
            "table": spec.table,
            "file": str(path),
            "row_number": int(line),
            "row_key": (csv_line or "").split(",", 1)[0] or None,
            "reason": reason,
            "raw": (csv_line or "")[:500],
        }
        for line, csv_line, reason in rejected
    ]
    return StageResult(spec.table, path, rows, _rejects_frame(records))


def _rejects_frame(records: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(records, schema=schemas.empty("rejects").schema) if records else schemas.empty("rejects")
