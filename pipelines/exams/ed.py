"""MIMIC-IV-ED vital signs (triage and ``vitalsign``) as the exam_candidates partition ``mimic_ed_vitals``.

The vital signs of a case's ED stay (pipelines.content.ed_stays) are the first the doctor has:
temperature, heart rate, respiratory rate, SpO2, blood pressure and the pain score, under the names
the ICU chart vitals use (``ed_vitals.csv``), charted within the case's exam window
(pipelines.exams.window; triage rows have no charttime and chart at the ED registration). Per case
and exam the first possible value is the result; impossible values (``plausible_ranges.csv``) and
pain entries that are no score ("unable", "asleep") go to ``rejects`` (partition
:data:`REJECTS_PARTITION`). All of it is DuckDB SQL over the staged Parquet
(sql/exams_ed_*.sql), so the 1.5M ``vitalsign`` rows never pass through Python.
"""

from __future__ import annotations

from functools import cache

import polars as pl

from pipelines.content.ed_stays import case_stays
from pipelines.content.partitions import Written, write_query
from pipelines.datafiles import csv_records
from pipelines.exams.measurements import plausible_ranges
from pipelines.exams.mimic import case_windows
from pipelines.exams.vocabulary import exams
from pipelines.exams.window import ExamWindow
from pipelines.warehouse import Warehouse
from sql import connect

VITALS_FILE = "ed_vitals.csv"
PARTITION = "mimic_ed_vitals"
REJECTS_PARTITION = "exam_candidates_mimic_ed_vitals"
COLUMNS = ("temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp", "pain")  # sql/exams_ed_window.sql


@cache
def vital_columns() -> pl.DataFrame:
    """``column, exam_name, unit, up_to, ref_low, ref_high, low, high`` (low/high: the plausible range)."""
    names = {e.name for e in exams()}
    ranges = plausible_ranges()
    rows = []
    fields = ("column", "exam_name", "unit", "up_to", "ref_low", "ref_high")
    for record in csv_records(__package__, VITALS_FILE, fields):
        column, exam, unit = record.choice("column", COLUMNS), record.text("exam_name"), record.text("unit")
        if exam not in names:
            raise record.error("exam_name", f"{exam!r} is not a canonical name of exam_vocabulary.csv")
        if (exam, unit.lower()) not in ranges:
            raise record.error("unit", f"{exam!r} in {unit!r} has no range in plausible_ranges.csv")
        numbers = [record.number(f, None) for f in ("up_to", "ref_low", "ref_high")]
        rows.append((column, exam, unit, *(None if v is None else float(v) for v in numbers),
                     *ranges[(exam, unit.lower())]))
    frame = pl.DataFrame(rows, orient="row", schema={
        "column": pl.Utf8, "exam_name": pl.Utf8, "unit": pl.Utf8, "up_to": pl.Float64, "ref_low": pl.Float64,
        "ref_high": pl.Float64, "low": pl.Float64, "high": pl.Float64})
    if missing := sorted(set(COLUMNS) - set(frame["column"])):
        raise ValueError(f"{VITALS_FILE}: no row for the column(s) {', '.join(missing)}")
    return frame


def write_vitals(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow = ExamWindow()) -> Written:
    """exam_candidates partition :data:`PARTITION` and rejects partition :data:`REJECTS_PARTITION`."""
    with connect() as con:
        con.register("cases", case_windows(warehouse, cases, window))
        con.register("ed_stays", case_stays(warehouse, cases))
        con.register("vital_columns", vital_columns())
        con.execute("CREATE TEMP TABLE ed_readings AS "
                    + warehouse.sql("exams_ed_readings", triage="ed_triage", vitalsign="ed_vitalsign"))
        con.execute("CREATE TEMP TABLE ed_window AS " + warehouse.sql("exams_ed_window"))
        warehouse.write_query("rejects", con, warehouse.sql("exams_ed_rejects"), partition=REJECTS_PARTITION)
        return write_query(warehouse, "exam_candidates", con, warehouse.sql("exams_ed_vitals"), PARTITION)
