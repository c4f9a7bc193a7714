"""The release scan: every source identifier of the build, looked for in every cell of an export.

An independent detector: it knows nothing of what the writer meant to drop or rewrite. It collects
the identifiers from the warehouse (every column that ``data/identifiers.yaml`` names, in every table,
restricted and staging tables included) into an in-memory DuckDB database, then reads each exported
file (Parquet, and the card as text) and reports, per table, column and kind of identifier:

* a column named like an identifier column (``subject_id``, ``CaseID`` ...), whatever it holds;
* a date or time column, and text that holds a date;
* a restricted table (``schemas.restricted``);
* an identifier value in a cell: integer cells by value, whole-number floats as integers, every
  other cell as the tokens of its text, long identifiers anywhere and short ones in the rows of their
  own case (identifiers.yaml ``search`` says which, and why).

Hash joins of tokens against identifiers: it scales with the export, not with the identifiers'
number times the cells'.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

import schemas
from pipelines.release.identifiers import IdentifierRules, identifier_rules
from pipelines.warehouse import Warehouse
from schemas.staging import describe
from sql import connect

INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT", "UHUGEINT"}
FLOAT_TYPES = ("FLOAT", "DOUBLE", "DECIMAL")
TEMPORAL_TYPES = ("DATE", "TIME", "TIMESTAMP", "INTERVAL")
WORDS = "[A-Za-z0-9]+"  # runs of letters and digits
JOINED = "[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+"  # those runs joined by '-' or '_' (10001166-DS-2, p_0a1b...)
# Identifiers and tokens compared: digits without leading zeros, anything else without case.
NORMALISE = ("CREATE TEMP MACRO norm(x) AS CASE WHEN regexp_full_match(x, '[0-9]+') THEN ltrim(x, '0') "
             "ELSE lower(x) END")


@dataclass(frozen=True)
class Finding:
    table: str  # the exported table (a Parquet file's stem; the name of another file, such as README.md)
    column: str
    kind: str  # the identifier kind, or what else was found (a date column, a restricted table)
    cells: int  # matching cells (tokens), or the file's rows where the column or table is the finding
    example: str  # one matching value, to find the leak (empty where the column itself is the finding)

    def describe(self) -> str:
        if not self.example:  # the column or table itself
            return f"{self.table}.{self.column}: {self.kind} ({self.cells} rows)"
        return f"{self.table}.{self.column}: {self.kind} in {self.cells} cell(s), e.g. {self.example}"


@dataclass(frozen=True)
class ScanReport:
    files: tuple[str, ...]  # the files scanned
    findings: tuple[Finding, ...]
    searched: pl.DataFrame  # per identifier kind: how many were looked for anywhere, in their case, not by value

    @property
    def clean(self) -> bool:
        return not self.findings


class IdentifierIndex:
    """The build's identifiers in an in-memory DuckDB database (``ids_anywhere``, ``ids_same_case``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, rules: IdentifierRules):
        self.con, self.rules = con, rules

    @classmethod
    @contextmanager
    def of(cls, warehouse: Warehouse, rules: IdentifierRules | None = None) -> Iterator[IdentifierIndex]:
        rules = rules or identifier_rules()
        with connect() as con:
            index = cls(con, rules)
            index._collect(warehouse)
            yield index

    # -- the identifiers -------------------------------------------------------------------------
    def _collect(self, warehouse: Warehouse) -> None:
        con, rules = self.con, self.rules
        con.execute(NORMALISE)
        con.execute("CREATE TEMP TABLE found (kind VARCHAR, id VARCHAR, case_id VARCHAR)")
        for table in warehouse.tables():
            glob = warehouse.table_glob(table)
            columns = describe(con, glob)
            linked = table == rules.case_links and "case_id" in columns
            for name, duck_type in columns.items():
                spec = rules.column_named(name)
                if spec is None or not spec.values:
                    continue
                value = f'unnest("{name}")' if duck_type.endswith("[]") else f'"{name}"'
                case_id = "case_id" if linked else "NULL"
                con.execute(f"INSERT INTO found SELECT DISTINCT ?, norm(CAST(v AS VARCHAR)), c FROM "
                            f"(SELECT {value} AS v, {case_id} AS c FROM read_parquet('{glob}')) WHERE v IS NOT NULL",
                            [spec.kind])
        digits = "regexp_full_match(id, '[0-9]+')"
        con.execute(f"""CREATE TEMP TABLE ids_anywhere AS SELECT DISTINCT kind, id FROM found
                        WHERE ({digits} AND length(id) >= {rules.anywhere_min_digits})
                           OR (NOT {digits} AND length(id) >= {rules.min_string_length})""")
        con.execute(f"""CREATE TEMP TABLE ids_same_case AS SELECT DISTINCT kind, id, case_id FROM found
                        WHERE {digits} AND length(id) >= {rules.same_case_min_digits}
                          AND length(id) < {rules.anywhere_min_digits} AND case_id IS NOT NULL""")

    def searched(self) -> pl.DataFrame:
        """Per identifier kind: distinct identifiers looked for anywhere, in their own case's rows, and
        not by value (too short to tell from other numbers)."""
        return self.con.sql("""
            WITH ids AS (SELECT DISTINCT kind, id FROM found),
                 own AS (SELECT DISTINCT kind, id FROM ids_same_case)
            SELECT ids.kind,
                   count(*) FILTER (WHERE a.id IS NOT NULL)::BIGINT AS anywhere,
                   count(*) FILTER (WHERE a.id IS NULL AND o.id IS NOT NULL)::BIGINT AS own_case,
                   count(*) FILTER (WHERE a.id IS NULL AND o.id IS NULL)::BIGINT AS not_by_value
            FROM ids LEFT JOIN ids_anywhere a USING (kind, id) LEFT JOIN own o USING (kind, id)
            GROUP BY ids.kind ORDER BY ids.kind""").pl()

    # -- the export --------------------------------------------------------------------------------
    def scan(self, folder: Path) -> ScanReport:
        """Every file under ``folder`` looked through: Parquet files cell by cell, any other file (the
        card) as text (see the module docstring)."""
        findings: list[Finding] = []
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        for path in files:
            if path.suffix == ".parquet":
                source = f"read_parquet('{path}')"
                columns = describe(self.con, str(path))
                findings += self._structure(path.stem, source, columns)
                findings += self._values(path.stem, source, columns)
            else:  # the card, or anything else: its text
                findings += self._values(path.name, f"read_text('{path}')", {"content": "VARCHAR"})
        return ScanReport(tuple(str(p.relative_to(folder)) for p in files), tuple(findings), self.searched())

    def _structure(self, table: str, source: str, columns: dict[str, str]) -> list[Finding]:
        """Findings in the file's make-up: a restricted table, identifier-named or temporal columns."""
        rows = self.con.execute(f"SELECT count(*) FROM {source}").fetchall()[0][0]
        found = [Finding(table, "*", "a restricted table", rows, "")] if schemas.restricted(table) else []
        for name, duck_type in columns.items():
            spec = self.rules.column_named(name)
            if spec is not None:
                found.append(Finding(table, name, f"a column named like {spec.kind}", rows, ""))
            if duck_type.startswith(TEMPORAL_TYPES):
                found.append(Finding(table, name, f"a date or time column ({duck_type})", rows, ""))
        return found

    def _values(self, table: str, source: str, columns: dict[str, str]) -> list[Finding]:
        """Identifier values in the cells, and dates in the text cells."""
        tokens = {name: _tokens(name, duck_type) for name, duck_type in columns.items()}
        tokens = {name: expr for name, expr in tokens.items() if expr is not None}
        if not tokens:
            return []
        case_id = "case_id" if "case_id" in columns else "NULL"
        cells = " UNION ALL ".join(f"SELECT {case_id} AS case_id, '{name}' AS col, unnest({expr}) AS token "
                                   f"FROM {source}" for name, expr in tokens.items())
        hits = self.con.sql(f"""
            WITH cells AS (SELECT case_id, col, norm(token) AS token FROM ({cells}))
            SELECT col, kind, count(*)::BIGINT AS cells, min(id) AS example FROM (
                SELECT c.col, i.kind, i.id FROM cells c JOIN ids_anywhere i ON c.token = i.id
                UNION ALL
                SELECT c.col, i.kind, i.id FROM cells c JOIN ids_same_case i
                    ON c.token = i.id AND c.case_id = i.case_id)
            GROUP BY ALL ORDER BY ALL""").fetchall()
        found = [Finding(table, col, kind, n, example) for col, kind, n, example in hits]
        return found + self._dates(table, source, columns)

    def _dates(self, table: str, source: str, columns: dict[str, str]) -> list[Finding]:
        texts = [name for name, duck_type in columns.items() if _is_text(duck_type)]
        if not texts:
            return []
        matches = " OR ".join(f"regexp_matches(v, '{p}')" for p in self.rules.date_patterns)
        parts = " UNION ALL ".join(f"SELECT '{name}' AS col, CAST(\"{name}\" AS VARCHAR) AS v FROM {source}"
                                   for name in texts)
        rows = self.con.sql(f"SELECT col, count(*)::BIGINT, min(v) FROM ({parts}) WHERE {matches} "
                            "GROUP BY col ORDER BY col").fetchall()
        return [Finding(table, col, "a date in text", n, example[:80]) for col, n, example in rows]


def scan_release(folder: Path, warehouse: Warehouse, rules: IdentifierRules | None = None) -> ScanReport:
    """Scan the export in ``folder`` for the identifiers of ``warehouse``'s build."""
    with IdentifierIndex.of(warehouse, rules) as index:
        return index.scan(folder)


def _is_text(duck_type: str) -> bool:
    return not (duck_type in INTEGER_TYPES or duck_type.startswith(FLOAT_TYPES) or duck_type == "BOOLEAN")


def _tokens(name: str, duck_type: str) -> str | None:
    """SQL for the list of tokens of column ``name``'s cell (None: a boolean holds none)."""
    column = f'"{name}"'
    if duck_type == "BOOLEAN":
        return None
    if duck_type in INTEGER_TYPES:
        return f"[CAST({column} AS VARCHAR)]"
    if duck_type.startswith(FLOAT_TYPES):
        number = f"CAST({column} AS DOUBLE)"
        return (f"CASE WHEN isfinite({number}) AND {number} = trunc({number}) AND abs({number}) < 1e18 "
                f"THEN [CAST(CAST({number} AS BIGINT) AS VARCHAR)] END")
    text = f"CAST({column} AS VARCHAR)"
    return f"list_concat(regexp_extract_all({text}, '{WORDS}'), regexp_extract_all({text}, '{JOINED}'))"
