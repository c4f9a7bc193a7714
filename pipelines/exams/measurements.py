"""Vital signs and body measurements of MIMIC-IV: which chart items they are, and which values are possible.

Two files beside this module, checked on load (errors name file, line and field):

* ``chart_vitals.csv``: ICU chartevents itemid -> canonical exam, unit and adult normal range;
* ``plausible_ranges.csv``: the possible values per canonical exam and unit. A value outside is a
  charting or unit error and is rejected with the range as the reason (``rejects``), never a result.

omr measurements are named by their ``result_name`` (``Weight (Lbs)``, ``BMI (kg/m2)``); the unit is
the part in brackets, ``mmHg`` for blood pressures (``SBP/DBP``, checked part by part).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from pipelines.datafiles import csv_records
from pipelines.exams.vocabulary import exams, resolve

if TYPE_CHECKING:
    from pipelines.warehouse import Warehouse

CHART_FILE = "chart_vitals.csv"
RANGES_FILE = "plausible_ranges.csv"
SYSTOLIC, DIASTOLIC = "Systolic blood pressure", "Diastolic blood pressure"
BP_UNIT = "mmHg"
_BRACKETED = re.compile(r"\(([^)]*)\)")


def _canonical(record, field: str = "exam_name") -> str:
    name = record.text(field)
    if name not in {e.name for e in exams()}:
        raise record.error(field, f"{name!r} is not a canonical name of exam_vocabulary.csv")
    return name


@cache
def plausible_ranges() -> dict[tuple[str, str], tuple[float, float]]:
    """(canonical exam, lower-case unit) -> (low, high)."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for record in csv_records(__package__, RANGES_FILE, ("exam_name", "unit", "low", "high")):
        key = (_canonical(record), record.text("unit").lower())
        low, high = float(record.number("low")), float(record.number("high"))
        if key in out:
            raise record.error("unit", f"{key[0]!r} already has a range in {key[1]!r}")
        if low >= high:
            raise record.error("low", f"low {low} is not below high {high}")
        out[key] = (low, high)
    return out


def _range(record, exam: str, unit: str) -> tuple[float, float]:
    found = plausible_ranges().get((exam, unit.lower()))
    if found is None:
        raise record.error("unit", f"{exam!r} in {unit!r} has no range in {RANGES_FILE}")
    return found


@cache
def chart_vitals() -> pl.DataFrame:
    """``itemid, exam_name, unit, ref_low, ref_high, low, high`` (low/high: the plausible range)."""
    rows, seen = [], set()
    for record in csv_records(__package__, CHART_FILE, ("itemid", "label", "exam_name", "unit", "ref_low", "ref_high")):
        itemid = record.integer("itemid", lo=1)
        if itemid in seen:
            raise record.error("itemid", f"{itemid} is listed twice")
        seen.add(itemid)
        exam, unit = _canonical(record), record.text("unit")
        ref = [record.number(f, None) for f in ("ref_low", "ref_high")]
        rows.append((itemid, exam, unit, *(None if v is None else float(v) for v in ref), *_range(record, exam, unit)))
    return pl.DataFrame(rows, orient="row", schema={
        "itemid": pl.Int64, "exam_name": pl.Utf8, "unit": pl.Utf8, "ref_low": pl.Float64, "ref_high": pl.Float64,
        "low": pl.Float64, "high": pl.Float64})


def omr_unit(result_name: str) -> str | None:
    if result_name.lower().startswith("blood pressure"):
        return BP_UNIT
    found = _BRACKETED.search(result_name)
    return (found.group(1).strip() or None) if found else None


def omr_measurements(result_names: list[str]) -> pl.DataFrame:
    """Per omr ``result_name``: its ``unit``, plausible ``low``/``high`` (null when the table has no
    range for it) and, for a blood pressure, the systolic and diastolic ranges."""
    ranges = plausible_ranges()
    systolic, diastolic = ranges[(SYSTOLIC, BP_UNIT.lower())], ranges[(DIASTOLIC, BP_UNIT.lower())]
    rows = []
    for name in sorted(set(result_names)):
        unit = omr_unit(name)
        pressure = unit == BP_UNIT
        low, high = (None, None) if pressure else ranges.get((resolve(name) or "", (unit or "").lower()), (None, None))
        rows.append((name, unit, low, high, pressure, *(systolic if pressure else (None, None)),
                     *(diastolic if pressure else (None, None))))
    return pl.DataFrame(rows, orient="row", schema={
        "result_name": pl.Utf8, "unit": pl.Utf8, "low": pl.Float64, "high": pl.Float64, "pressure": pl.Boolean,
        "sys_low": pl.Float64, "sys_high": pl.Float64, "dia_low": pl.Float64, "dia_high": pl.Float64})


def check_omr(con: duckdb.DuckDBPyConnection, warehouse: Warehouse) -> None:
    """Create the temp table ``omr_checked`` (sql/omr_checked.sql: each measurement with its unit and
    ``problem``) over the omr rows in the windows of the ``cases`` registered on ``con`` (sql/omr_dated.sql)."""
    names = warehouse.scan("mimic_omr").select(pl.col("result_name").str.strip_chars().unique()).collect()
    con.register("omr_names", omr_measurements(names["result_name"].drop_nulls().to_list()))
    con.execute("CREATE TEMP TABLE omr_dated AS " + warehouse.sql("omr_dated", omr="mimic_omr"))
    con.execute("CREATE TEMP TABLE omr_checked AS " + warehouse.sql("omr_checked"))
