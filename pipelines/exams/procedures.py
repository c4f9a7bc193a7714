"""Results that reveal an in-stay procedure, and the procedure tests that return them.

A pleural fluid protein says a thoracentesis was done, a catheter-tip culture that a line came out:
listed as ordinary labs they would hand the doctor the course of the stay. So their results are
named after the specimen (``Pleural fluid: Protein``, ``Catheter tip: WOUND CULTURE``) and come back
only when the doctor orders the procedure's test (``Pleural fluid analysis``, ``thoracentesis``),
which returns them together, like a panel. Two files beside this module, checked on load:

* ``procedure_tests.csv``: the tests, the label their results are named with, their aliases;
* ``procedure_specimens.csv``: the source specimens of each test (``d_labitems.fluid``,
  ``microbiologyevents.spec_type_desc``).

>>> procedure_test("thoracentesis").test
'Pleural fluid analysis'
>>> procedure_test("Pleural fluid analysis").includes("Pleural fluid: Protein")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import csv_records, unique
from pipelines.exams.vocabulary import name_key, panel_name, resolve

TESTS_FILE = "procedure_tests.csv"
SPECIMENS_FILE = "procedure_specimens.csv"
TABLES = ("labevents", "microbiologyevents")


@dataclass(frozen=True)
class ProcedureTest:
    test: str
    label: str
    aliases: tuple[str, ...]

    def name(self, source_test: str) -> str:
        """The name of one of its results."""
        return f"{self.label}: {source_test}"

    def includes(self, exam_name: str) -> bool:
        return exam_name.startswith(f"{self.label}: ")


@dataclass(frozen=True)
class Specimen:
    table: str
    specimen: str
    test: ProcedureTest
    suffixes: tuple[str, ...]
    not_procedure: tuple[str, ...]


@cache
def tests() -> tuple[ProcedureTest, ...]:
    records = csv_records(__package__, TESTS_FILE, ("test", "label", "aliases"), key="test")
    unique(records, "test", name_key)
    unique(records, "label", name_key)
    out, owner = [], {}
    for record in records:
        test = ProcedureTest(record.text("test"), record.text("label"), record.items("aliases"))
        for name in (test.test, *test.aliases):
            key = name_key(name)
            clash = (f"names the exam {resolve(name)!r}" if resolve(name)
                     else f"names the panel {panel_name(name)!r}" if panel_name(name)
                     else f"already names {owner[key]!r}" if owner.get(key, test.test) != test.test else "")
            if clash:
                raise record.error("aliases", f"{name!r} {clash}")
            owner[key] = test.test
        out.append(test)
    return tuple(out)


@cache
def _index() -> dict[str, ProcedureTest]:
    return {name_key(name): t for t in tests() for name in (t.test, *t.aliases)}


def procedure_test(name: str | None) -> ProcedureTest | None:
    """The procedure test that ``name`` (the test, an alias, any spelling) orders, None when none."""
    return _index().get(name_key(name))


@cache
def specimens() -> tuple[Specimen, ...]:
    records = csv_records(__package__, SPECIMENS_FILE, ("table", "specimen", "test", "suffixes", "not_procedure"))
    by_test = {t.test: t for t in tests()}
    seen: dict[tuple[str, str], int] = {}
    out = []
    for record in records:
        table = record.choice("table", TABLES)
        specimen = record.text("specimen")
        test = record.ref("test", record.text("test"), by_test, "procedure test", f"add it to {TESTS_FILE}")
        key = (table, specimen.lower())
        if key in seen:
            raise record.error("specimen", f"{specimen!r} repeats line {seen[key]}")
        seen[key] = record.line
        out.append(Specimen(table, specimen, by_test[test], record.items("suffixes"), record.items("not_procedure")))
    return tuple(out)


@cache
def _lab_specimens() -> dict[str, Specimen]:
    return {s.specimen.lower(): s for s in specimens() if s.table == "labevents"}


def lab_name(label: str, fluid: str | None) -> str | None:
    """The name of a ``d_labitems`` item as a procedure result (its label without the ending that
    repeats the specimen), None when its fluid needs no procedure."""
    found = _lab_specimens().get((fluid or "").lower())
    if found is None or label in found.not_procedure:
        return None
    ending = "|".join(re.escape(s) for s in sorted(found.suffixes, key=len, reverse=True))
    test = re.sub(rf",\s*(?:{ending})\s*$", "", label, flags=re.I) if ending else label
    return found.test.name(test.strip())


def micro_specimens() -> pl.DataFrame:
    """``specimen_key`` (lower-case spec_type_desc) -> ``label`` of its procedure test."""
    rows = [(s.specimen.lower(), s.test.label) for s in specimens() if s.table == "microbiologyevents"]
    return pl.DataFrame(rows, schema={"specimen_key": pl.Utf8, "label": pl.Utf8}, orient="row")
