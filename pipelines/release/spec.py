"""What a release writes, read from ``data/tables.yaml`` and checked against ``schemas/`` on load.

The choice of tables and columns is data so the card can quote it and a reviewer can read it in one
place; a mistake in it (an unknown table or column, a key that is not a column, a bad pattern) fails
here, naming the file and entry, before anything is read from the warehouse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import schemas
from pipelines.datafiles import Record, yaml_record

PACKAGE = "pipelines.release"
TABLES_FILE = "data/tables.yaml"
REKEYABLE = ("unit_id",)


@dataclass(frozen=True)
class Rewrite:
    match: re.Pattern[str]  # matched against a whole value
    becomes: str
    why: str


@dataclass(frozen=True)
class ReleasedTable:
    name: str
    row: str  # what one row is
    key: tuple[str, ...]
    kept_cases: bool  # only rows of the cases the warehouse kept
    drop: dict[str, str]  # column -> why it is not released
    rewrite: tuple[str, ...]  # columns the rewrite rules apply to
    rekey: str | None  # "unit_id": unit ids derived anew from released content

    def columns(self) -> list[str]:
        """The released columns, in the warehouse schema's order."""
        return [c for c in schemas.get(self.name).columns if c not in self.drop]


@dataclass(frozen=True)
class ReleaseSpec:
    tables: tuple[ReleasedTable, ...]
    rewrites: tuple[Rewrite, ...]
    unit_ids: str  # how released unit ids are made (the card quotes it)
    not_released: dict[str, str]  # warehouse table -> why it is not released


@cache
def release_spec() -> ReleaseSpec:
    doc = yaml_record(PACKAGE, TABLES_FILE, ("tables", "rewrite", "unit_ids", "not_released"))
    tables = tuple(_table(name, record) for name, record in
                   doc.records("tables", ("row", "key", "kept_cases", "drop", "rewrite", "rekey")).items())
    rewrites = []
    for i, entry in enumerate(doc.get("rewrite")):
        rule = Record(doc.file, f"rewrite[{i}]", entry)
        rule.only(("match", "becomes", "why"))
        rewrites.append(Rewrite(rule.regex("match"), rule.text("becomes"), rule.text("why")))
    not_released = doc.text_mapping("not_released")
    for name in not_released:
        if not schemas.has(name) or name in {t.name for t in tables}:
            raise doc.error(f"not_released.{name}", "not a warehouse table of schemas/, or a released one")
    return ReleaseSpec(tables, tuple(rewrites), doc.text("unit_ids"), not_released)


def _table(name: str, record: Record) -> ReleasedTable:
    if not schemas.has(name) or schemas.restricted(name):
        raise record.error("", f"{name!r} is not a table of schemas/ that may be released (restricted or unknown)")
    columns = set(schemas.get(name).columns)
    key = record.texts("key")
    drop = record.text_mapping("drop", {})
    rewrite = record.texts("rewrite", ())
    rekey = record.choice("rekey", REKEYABLE, None)
    for field, named in (("key", key), ("drop", drop), ("rewrite", rewrite), ("rekey", [rekey] if rekey else [])):
        unknown = [c for c in named if c not in columns]
        if unknown:
            raise record.error(field, f"{', '.join(unknown)}: not a column of schemas/{name}.py")
    if set(key) & set(drop):
        raise record.error("key", "a key column cannot be dropped")
    return ReleasedTable(name, record.text("row"), key, record.flag("kept_cases", False), drop, rewrite, rekey)
