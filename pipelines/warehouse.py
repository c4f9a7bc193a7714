"""The warehouse: Parquet per table (the truth) and DuckDB views over it (the query layer).

Layout under ``home``::

    tables -> generations/<name>         the published build generation (a symlink)
    tables/<table>/data.parquet          one file per unpartitioned table
    tables/<table>/<partition>.parquet   one file per partition (e.g. synthea_pool)
    tables/<table>/<name>.<shard>.parquet  a per-case table's file of one subject shard (pipelines.shards)
    generations/<name>/                  build generations: the published one, the one it replaced,
                                         and while a build runs, the one it writes
    generations/<name>.previous          the generation <name> replaced when it was published
    generations/build.lock               held (flock) by the one build running in this home
    clinverse.duckdb                     one view per table over tables/<table>/*.parquet

Every write goes to a hidden temporary file in the table's folder, is validated against its
contract in ``schemas/`` (a pandera schema, or the staging spec of a source table), and is moved
into place with ``os.replace``, which is atomic on POSIX: a reader sees the old file or the new
one, never half of one; a write that fails removes its temporary file.

A build (:meth:`Warehouse.begin_build`) writes a generation of its own that readers cannot see and
publishes it by one atomic swap of the ``tables`` link. Killed at any point (kill -9 skips every
``finally``), it leaves the published tables as they were, and the next build removes what it left
(:meth:`Warehouse._sweep`): its generation, and every temporary (:func:`is_temporary`: a hidden
name ending in ``.partial``, the one naming rule of every temporary under a home). Readers never see
a temporary: they read ``*.parquet`` only. :meth:`Warehouse.content_hash` says whether two builds
made the same table.

Readers never take a lock a build holds: :meth:`Warehouse.connect` queries the Parquet files
through an in-memory DuckDB connection.  ``clinverse.duckdb`` (one view per table, for the
DuckDB CLI and other tools) is opened for writing only when a new table appears.  Restricted
tables (``schemas.restricted``) get no view there nor in a default connection; ``connect(restricted=True)``
(``clinverse query --restricted``) gives them one, for authorised use.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import time
import uuid
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import duckdb
import polars as pl
import pyarrow.parquet as pq

import schemas
from schemas.staging import cast_frame, column_problems, describe, staging_columns
from sql import connect, load

log = logging.getLogger(__name__)

DB_NAME = "clinverse.duckdb"
READ_ONLY_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


SHARD_SUFFIX = re.compile(r"\.(s\d{2,})$")  # pipelines.shards names: s00, s01, ... (two digits at least)


# A file path's partition (group 1) as a regular expression, for polars and DuckDB reading every file of
# a table at once: what partition_of says of the file's stem (batch and shard left off).
PARTITION_OF_PATH = r"([^/]+?)(?:-\d{5})?(?:\.s\d{2,})?\.parquet$"


def shard_of_file(stem: str) -> str | None:
    """The shard a file stem belongs to (``mimic_notes-00003.s01`` -> ``s01``), None for an unsharded file."""
    found = SHARD_SUFFIX.search(stem)
    return found.group(1) if found else None


def written_name(stem: str) -> str:
    """The name a file was written under, its shard left off: ``mimic_notes-00003.s01`` -> ``mimic_notes-00003``."""
    return SHARD_SUFFIX.sub("", stem)


def partition_of(stem: str) -> str:
    """File stem to partition: ``mimic_notes-00003`` (a batch) or ``mimic_notes-00003.s01`` (a batch of a
    shard) -> ``mimic_notes``."""
    return re.search(PARTITION_OF_PATH, f"{stem}.parquet").group(1)


class WarehouseError(RuntimeError):
    pass


GENERATIONS = "generations"
PREVIOUS_SUFFIX = ".previous"  # generations/<name>.previous names the generation <name> replaced
BUILD_LOCK = "build.lock"  # generations/build.lock: one build at a time per home
TEMP_SUFFIX = ".partial"
# Folders under a home that only `clinverse build` writes (assets/profiles.py's Synthea cache,
# pipelines/cli.py's generated demo sources): the build sweeps their temporaries too.
BUILD_CACHES = ("synthea", "demo-sources")


def is_temporary(name: str) -> bool:
    """Whether a file or folder name is an unfinished write's: hidden and ending in ``.partial``
    (table files, the publish link, Synthea's work folders, the demo generator's segments)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


class Warehouse:
    """The warehouse at ``home``; with ``generation``, the unpublished build generation of that name
    (reads and writes go to it; readers of ``home`` see it only once :meth:`publish_build` runs).

    With ``shard`` (:meth:`shard_view`), one subject shard of it: a table written in shards reads as
    that shard's files only, and every write is that shard's file. Tables not written in shards
    (staging, dictionaries, cohort-wide tables) read whole. A per-case step run for a shard sees
    exactly its shard's cases and writes exactly its shard, with no code of its own for it."""

    def __init__(self, home: Path | str, generation: str | None = None, shard: str | None = None):
        self.home = Path(home).resolve()
        self.public_tables = self.home / "tables"
        self.generation = generation
        self.shard = shard
        self.tables_dir = self.home / GENERATIONS / generation if generation else self.public_tables
        self.db_path = self.home / DB_NAME
        self._lock: IO | None = None  # a build generation's hold on the home's build lock

    def shard_view(self, shard: str) -> Warehouse:
        """This warehouse (or build generation) as one shard sees it."""
        return Warehouse(self.home, self.generation, shard)

    # -- locations -----------------------------------------------------------------
    def table_dir(self, table: str) -> Path:
        return self.tables_dir / table

    def _sharded(self, files: list[Path]) -> bool:
        """Whether this is a shard view and ``files`` (a table's) are written in shards."""
        return self.shard is not None and any(shard_of_file(p.stem) for p in files)

    def files(self, table: str) -> list[Path]:
        """The table's Parquet files as this view reads them (a shard's only, in a shard view of a sharded table)."""
        files = sorted(self.table_dir(table).glob("*.parquet"))
        if self._sharded(files):
            return [p for p in files if shard_of_file(p.stem) == self.shard]
        return files

    def table_glob(self, table: str) -> str:
        """The table's Parquet files, through the generation ``tables`` links to now: a reader's files
        all come from one generation even if a build publishes another while it reads (the one it
        replaced is kept). In a shard view of a sharded table, the shard's files."""
        sharded = self._sharded(list(self.table_dir(table).glob("*.parquet")))
        pattern = f"*.{self.shard}.parquet" if sharded else "*.parquet"
        return str(self.table_dir(table).resolve() / pattern)

    def exists(self, table: str) -> bool:
        return bool(self.files(table))

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
        """A partition's files: ``<partition>.parquet`` or its batches ``<partition>-00000.parquet``...,
        each of every shard (of this view's shard, in a shard view of a sharded table)."""
        return [p for p in self.files(table) if partition_of(p.stem) == partition]

    def read_partition(self, table: str, partition: str) -> pl.DataFrame:
        files = self.partition_files(table, partition)
        return pl.read_parquet(files) if files else schemas.empty(table)

    def rows(self, table: str) -> int:
        return self.scan(table).select(pl.len()).collect().item() if self.exists(table) else 0

    def content_hash(self, table: str) -> str:
        """SHA-256 of the table as a reader sees it (every partition together), so two builds can be
        compared: its columns (names and polars types, in order), then each row as the JSON of polars'
        ``struct.json_encode``, the rows sorted. How it was written does not count (row order, which
        DuckDB's threaded COPY does not fix, files, partitions, Parquet encoding); every value, row,
        column and type does. Hashes are comparable between builds run with the same polars."""
        frame = self.read(table)
        digest = hashlib.sha256(json.dumps([[name, str(kind)] for name, kind in frame.schema.items()]).encode())
        rows = frame.select(pl.struct(pl.all()).struct.json_encode().alias("row")).sort("row")
        for chunk in rows.iter_slices(100_000):
            digest.update("".join(f"\n{row}" for row in chunk["row"]).encode())  # JSON escapes newlines
        return digest.hexdigest()

    def sql(self, name: str, **tables: str) -> str:
        """sql/<name>.sql with each ``{placeholder}`` bound to a warehouse table's Parquet glob."""
        return load(name).format(**{placeholder: self.table_glob(table) for placeholder, table in tables.items()})

    def sql_frame(self, name: str, **tables: str) -> pl.DataFrame:
        """Run sql/<name>.sql (placeholders bound as in :meth:`sql`) on a fresh connection."""
        with connect() as con:
            return con.sql(self.sql(name, **tables)).pl()

    # -- writing -------------------------------------------------------------------
    def write(self, table: str, df: pl.DataFrame, partition: str | None = None) -> int:
        """Validate ``df`` against the table's contract and publish it."""
        _require_contract(table)
        df = schemas.conform(table, df) if schemas.has(table) else cast_frame(table, df)
        with self._publishing(table, partition) as tmp:
            df.write_parquet(tmp, compression="zstd", statistics=True)
            if not schemas.has(table):
                self._check_staging(table, tmp)
        return df.height

    def write_query(self, table: str, con: duckdb.DuckDBPyConnection, sql: str, partition: str | None = None) -> int:
        """Stream a DuckDB query into the table's Parquet file (for large tables), validated before
        it is published (:func:`schemas.validate_parquet`, in bounded batches)."""
        _require_contract(table)
        with self._publishing(table, partition) as tmp:
            con.execute(f"COPY ({sql}) TO '{tmp}' (FORMAT parquet, COMPRESSION zstd)")
            if schemas.has(table):
                schemas.validate_parquet(table, tmp)
            else:
                self._check_staging(table, tmp)
            rows = pq.ParquetFile(tmp).metadata.num_rows
        return rows

    def write_shards(self, table: str, shards: Mapping[str, pl.DataFrame]) -> int:
        """Each frame of ``shards`` (shard name -> rows, pipelines.shards.split) as that shard's file of
        the table; every other file of it (an unsharded one, a shard of another shard count) is removed."""
        rows = sum(self.shard_view(shard).write(table, frame) for shard, frame in shards.items())
        for path in self.table_dir(table).glob("*.parquet"):
            if shard_of_file(path.stem) not in shards:
                path.unlink(missing_ok=True)
        return rows

    def keep_shards(self, shards: Collection[str]) -> list[Path]:
        """Remove every table's files of a shard not in ``shards`` (left by a build with another shard
        count); returns what it removed."""
        stale = [p for p in self.tables_dir.glob("*/*.parquet") if shard_of_file(p.stem) not in (None, *shards)]
        for path in stale:
            path.unlink(missing_ok=True)
        return stale

    @contextmanager
    def _publishing(self, table: str, partition: str | None) -> Iterator[Path]:
        """A temporary path to write; moved over the target on success, removed on any failure. A shard's
        write removes the partition's unsharded files (an earlier build's), so no row is there twice."""
        new_table = not self.exists(table)
        target = self._target(table, partition)
        tmp = self._tmp(target)
        try:
            yield tmp
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        if self.shard is not None:
            name = partition_of(partition or "data")
            for path in self.table_dir(table).glob("*.parquet"):
                if shard_of_file(path.stem) is None and partition_of(path.stem) == name:
                    path.unlink(missing_ok=True)
        if self.generation is None and (new_table or not self.db_path.exists()):
            self.refresh_views()  # a build generation's views are made when it is published

    @staticmethod
    def _check_staging(table: str, path: Path) -> None:
        columns, _ = staging_columns(table)
        with connect() as con:
            problems = column_problems(describe(con, str(path)), columns)
        if problems:
            raise schemas.ContractError(f"staging table {table!r} violates schemas/staging.py: " + "; ".join(problems))

    def _target(self, table: str, partition: str | None) -> Path:
        folder = self.table_dir(table)
        folder.mkdir(parents=True, exist_ok=True)
        name = partition or "data"
        return folder / (f"{name}.{self.shard}.parquet" if self.shard is not None else f"{name}.parquet")

    @staticmethod
    def _tmp(target: Path) -> Path:
        """Beside the target, never matching the ``*.parquet`` readers glob, and :func:`is_temporary`
        so the next build sweeps it if the writer is killed before it is renamed or removed."""
        return target.with_name(f".{target.stem}.{uuid.uuid4().hex}{TEMP_SUFFIX}")

    # -- build generations -----------------------------------------------------------
    def begin_build(self) -> "Warehouse":
        """A new build generation holding (as hard links) every published table, so tables the build
        does not rewrite carry over. Nothing a reader sees changes until :meth:`publish_build`.

        The generation holds the home's build lock until it is published or discarded (or its
        process dies: the kernel releases a killed build's lock), so what :meth:`_sweep` removes
        first can only be left by a build that is gone: no build is swept from under a live one."""
        root = self.home / GENERATIONS
        root.mkdir(parents=True, exist_ok=True)
        lock = self._lock_builds()
        try:
            self._sweep()
            name = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
            build = Warehouse(self.home, generation=name)
            build.tables_dir.mkdir()
            if self.public_tables.exists():
                for table in self.tables():
                    (build.tables_dir / table).mkdir()
                    for path in self.table_dir(table).glob("*.parquet"):
                        _link_or_copy(path, build.tables_dir / table / path.name)
        except BaseException:
            lock.close()
            raise
        build._lock = lock
        return build

    def publish_build(self, build: "Warehouse") -> None:
        """Make ``build``'s generation the published tables in one atomic rename of ``tables`` (a
        symlink), then refresh the views; the replaced generation is kept as the previous one.

        Killed before the rename, nothing a reader sees has changed and the next build sweeps the
        generation; after it, the build is published. What records the replaced generation
        (``<build>.previous``) is written before the rename, so it is true from the instant it counts."""
        try:
            root = self.home / GENERATIONS
            previous = self._current_generation()
            if self.public_tables.exists() and not self.public_tables.is_symlink():
                previous = f"{time.strftime('%Y%m%dT%H%M%S')}-legacy"  # a warehouse from before generations
                os.rename(self.public_tables, root / previous)  # killed now: the next build relinks it
            _write_atomically(root / f"{build.generation}{PREVIOUS_SUFFIX}", previous or "")
            self._link_tables(build.generation)
            self._sweep()  # the generations before the previous one
        finally:
            build._unlock()
        self.refresh_views()

    def discard_build(self, build: "Warehouse") -> None:
        """Remove an unpublished generation (a failed build); the published tables are untouched."""
        try:
            shutil.rmtree(build.tables_dir, ignore_errors=True)
        finally:
            build._unlock()

    def published_at(self) -> str | None:
        """The published generation's name (its build start time), or None before the first build."""
        return self._current_generation()

    def _current_generation(self) -> str | None:
        return Path(os.readlink(self.public_tables)).name if self.public_tables.is_symlink() else None

    def _previous_generation(self) -> str | None:
        current = self._current_generation()
        marker = self.home / GENERATIONS / f"{current}{PREVIOUS_SUFFIX}"
        return (marker.read_text().strip() or None) if current and marker.exists() else None

    def _link_tables(self, generation: str) -> None:
        """Point ``tables`` at ``generation`` in one ``os.replace`` of a new link over the old one."""
        link = self.home / f".tables.{uuid.uuid4().hex}{TEMP_SUFFIX}"
        os.symlink(Path(GENERATIONS) / generation, link)
        os.replace(link, self.public_tables)

    def _sweep(self) -> None:
        """Remove what killed builds left (kill -9 skips every ``finally``): every generation but the
        published one and the one it replaced (a killed build's, or the remains of an interrupted
        clean-up), with their ``.previous`` records, and every temporary (:func:`is_temporary`) in
        the home itself (an interrupted publish's link) and in its :data:`BUILD_CACHES`. Run with the
        build lock held. Temporaries inside the kept generations are left: there they can belong to
        a live writer the lock does not cover (a Dagster UI run, `clinverse episodes`); readers never
        see them, and they go with their generation."""
        root = self.home / GENERATIONS
        legacy = sorted(root.glob("*-legacy"))
        if not self.public_tables.exists() and not self.public_tables.is_symlink() and legacy:
            self._link_tables(legacy[-1].name)  # a publish killed while converting a pre-generations home
        keep = {self._current_generation(), self._previous_generation()} - {None}
        for entry in root.iterdir():
            if entry.name != BUILD_LOCK and entry.name.removesuffix(PREVIOUS_SUFFIX) not in keep:
                _remove(entry)
        for folder in (self.home, *(self.home / cache for cache in BUILD_CACHES)):
            for entry in folder.iterdir() if folder.is_dir() else ():
                if is_temporary(entry.name):
                    _remove(entry)

    def _lock_builds(self) -> IO:
        """The home's build lock (an exclusive flock of ``generations/build.lock``), or WarehouseError
        naming the build that holds it."""
        path = self.home / GENERATIONS / BUILD_LOCK
        lock = open(path, "a+")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            lock.close()
            raise WarehouseError(f"another build is running in {self.home} ({holder} holds {path}): wait for it "
                                 "to finish, or build into another --home") from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}\n")
        lock.flush()
        return lock

    def _unlock(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    # -- the DuckDB query layer ----------------------------------------------------
    def query_tables(self) -> list[str]:
        """Tables with a default query view: every table but the restricted ones."""
        return [t for t in self.tables() if not schemas.restricted(t)]

    def _view_sql(self, table: str) -> str:
        glob = self.public_tables / table / "*.parquet"  # the published path, also from a build generation
        return f"CREATE OR REPLACE VIEW \"{table}\" AS SELECT * FROM read_parquet('{glob}')"

    def refresh_views(self) -> None:
        """(Re)create ``clinverse.duckdb``'s views: one per query table, none for restricted ones.
        Skipped with a warning while another process holds the file (the next new table retries)."""
        for attempt in range(3):
            try:
                with duckdb.connect(str(self.db_path)) as con:
                    present = {r[0] for r in con.execute(
                        "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
                    wanted = self.query_tables()
                    for table in present - set(wanted):
                        con.execute(f'DROP VIEW "{table}"')
                    for table in wanted:
                        con.execute(self._view_sql(table))
                return
            except duckdb.IOException as exc:  # another process holds the database file
                if attempt == 2:
                    log.warning("views in %s not refreshed (%s); they will be when the next table appears",
                                self.db_path, exc)
                    return
                time.sleep(0.5)

    def connect(self, restricted: bool = False) -> duckdb.DuckDBPyConnection:
        """An in-memory connection with a view per query table (``restricted``: per table, the
        restricted ones too, for authorised use). It never opens ``clinverse.duckdb``, so a running
        build (which may hold that file) cannot make a reader fail."""
        if not self.tables():
            raise WarehouseError(
                f"no warehouse at {self.home} (no tables under {self.tables_dir}): run "
                f"`clinverse build --home {self.home}` or set CLINVERSE_HOME to the warehouse folder"
            )
        con = connect()
        for table in self.tables() if restricted else self.query_tables():
            con.execute(self._view_sql(table))
        return con

    def query(self, sql: str, restricted: bool = False) -> pl.DataFrame:
        """Run read-only SQL (SELECT, WITH ..., DESCRIBE, SHOW, EXPLAIN, SUMMARIZE) over the views
        (``restricted``: the restricted tables' too, see :meth:`connect`)."""
        with self.connect(restricted) as con:
            statements = con.extract_statements(sql)
            if not statements:
                raise WarehouseError("no SQL statement given")
            for statement in statements:
                if statement.type not in READ_ONLY_STATEMENTS:
                    raise WarehouseError(
                        f"clinverse query is read-only: {statement.type.name} statements are refused "
                        "(write a SELECT; build the warehouse with `clinverse build`)")
            for statement in statements[:-1]:
                con.execute(statement)
            return con.sql(statements[-1].query).pl()


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}{TEMP_SUFFIX}")
    tmp.write_text(text)
    os.replace(tmp, path)


def _remove(path: Path) -> None:
    """Remove a file, link or folder tree; WarehouseError naming it if that fails."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError as exc:
        raise WarehouseError(f"cannot remove {path}, left by an interrupted build ({exc}): remove it by hand "
                             "and build again") from exc


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)  # free and instant; tables are only ever replaced, never edited in place
    except OSError:
        shutil.copy2(source, target)


def _require_contract(table: str) -> None:
    if not schemas.has(table) and staging_columns(table) is None:
        raise schemas.ContractError(f"table {table!r} has no contract: add schemas/{table}.py "
                                    "(or a staging spec in schemas/staging.py)")
