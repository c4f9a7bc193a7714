"""MIMIC-IV examination results of a case's exam window, as exam_candidates partitions.

Every producer is DuckDB SQL over the staged Parquet (sql/exams_mimic_*.sql) streamed to its
partition, so the 118M-row ``labevents`` and 430M-row ``chartevents`` never pass through Python:
only the small dictionaries (``d_labitems``, the data files beside this module) and the case
windows (:mod:`pipelines.exams.window`: charted in the window, stored before it closes) are
registered beside them.

* ``mimic_labs``          first result per lab item by ``storetime``; values recorded only as the
                          ``___`` placeholder with a number, or only in ``comments``, are results
                          (``lab_comments.csv`` lists the comments and values that are not); an
                          unflagged text value is read by ``qualitative_values.csv`` or stays
                          of unknown abnormality.
* ``mimic_vitals``        first ICU chartevents value per vital item (``chart_vitals.csv``) and omr
                          measurements dated within the window; impossible values
                          (``plausible_ranges.csv``) go to ``rejects`` (partition
                          :data:`REJECTS_PARTITION`) instead.
* ``mimic_microbiology``  first specimen per test and specimen type, organisms or comment.

Specimens that only an in-stay procedure yields (pleural fluid, CSF, a catheter tip, ...) are
named after it (:mod:`pipelines.exams.procedures`).
"""

from __future__ import annotations

import re
from functools import cache

import duckdb
import polars as pl

import schemas
from pipelines.content.partitions import Written, write_empty, write_query
from pipelines.datafiles import csv_patterns, csv_records
from pipelines.exams.catalog import is_exam
from pipelines.exams.measurements import chart_vitals, check_omr
from pipelines.exams.monitoring import STARTS_SCHEMA, treatment_starts
from pipelines.exams.procedures import lab_name, micro_specimens
from pipelines.exams.window import ExamWindow
from pipelines.warehouse import Warehouse
from sql import connect

BLOOD = "blood"
COMMENTS_FILE = "lab_comments.csv"
QUALITATIVE_FILE = "qualitative_values.csv"
READINGS = {"normal": False, "abnormal": True}
REJECTS_PARTITION = "exam_candidates_mimic_vitals"  # the rejects partition the vitals producer writes


def lab_items(d_labitems: pl.DataFrame) -> pl.DataFrame:
    """itemid -> proposed exam name: the label, qualified by its fluid unless blood or already named,
    or a procedure result's name (``Pleural fluid: Total Protein``). ``raw_name`` (an alias in the
    catalog) keeps the fluid for procedure results, so that no bare label reaches them."""
    items = d_labitems.filter(pl.col("label").map_elements(is_exam, return_dtype=pl.Boolean)).with_columns(
        pl.col("label").str.strip_chars(), pl.col("fluid").fill_null("").str.strip_chars())
    fluid = pl.col("fluid")
    qualified = (
        pl.when((fluid == "") | (fluid.str.to_lowercase() == BLOOD)
                | pl.col("label").str.to_lowercase().str.contains(fluid.str.to_lowercase(), literal=True))
        .then(pl.col("label"))
        .otherwise(pl.format("{} ({})", pl.col("label"), fluid))
    )
    procedure = pl.struct("label", "fluid").map_elements(lambda r: lab_name(r["label"], r["fluid"]),
                                                         return_dtype=pl.Utf8)
    return items.with_columns(qualified.alias("qualified"), procedure.alias("procedure")).select(
        pl.col("itemid").cast(pl.Int64),
        pl.coalesce("procedure", "qualified").alias("exam_name"),
        pl.when(pl.col("procedure").is_null()).then(pl.col("label")).otherwise(pl.col("qualified")).alias("raw_name"),
    )


@cache
def no_result_macro() -> str:
    """``CREATE MACRO no_result(text)``: whether a comment (a lab comment's first sentence, a
    microbiology comment) or a lab value says there is no result (lab_comments.csv), its patterns
    searched as one alternation. A literal pattern is compiled once, when DuckDB binds the query;
    patterns read from a table's column were tried row against pattern, which took 0.5 s of the
    labs' 2.5 s at 32,000 generated admissions."""
    pattern = "|".join(f"(?:{p})" for p in csv_patterns(__package__, COMMENTS_FILE))
    return "CREATE MACRO no_result(text) AS regexp_matches(text, '{}', 'i')".format(pattern.replace("'", "''"))


@cache
def qualitative_readings() -> pl.DataFrame:
    """``pattern, abnormal, ord``: how an unflagged text value reads (qualitative_values.csv), in
    file order (the first matching pattern wins)."""
    rows = []
    for ord_, record in enumerate(csv_records(__package__, QUALITATIVE_FILE, ("pattern", "reading", "why"))):
        record.regex("pattern", re.IGNORECASE)
        record.text("why")
        rows.append((record.text("pattern"), READINGS[record.choice("reading", tuple(READINGS))], ord_))
    return pl.DataFrame(rows, schema={"pattern": pl.Utf8, "abnormal": pl.Boolean, "ord": pl.Int64}, orient="row")


def case_windows(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow) -> pl.DataFrame:
    registration = warehouse.scan("mimic_admissions").select("hadm_id", "edregtime").collect()
    return window.bounds(cases, registration)


def _connect(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow,
             registered: dict[str, pl.DataFrame]) -> duckdb.DuckDBPyConnection:
    con = connect()
    con.register("cases", case_windows(warehouse, cases, window))
    for name, frame in registered.items():
        con.register(name, frame)
    con.execute(no_result_macro())
    return con


def _union(queries: list[str]) -> str:
    return " UNION ALL ".join(f"({q})" for q in queries)


def write_labs(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow = ExamWindow()) -> tuple[Written, int]:
    """The labs of each case's window, and how many results were left out as monitoring a
    treatment the stay began (pipelines/exams/monitoring.py)."""
    d_labitems = warehouse.read("mimic_d_labitems")
    registered = {"lab_items": lab_items(d_labitems), "qualitative": qualitative_readings(),
                   "monitored": _treatment_starts(warehouse, cases, d_labitems)}
    with _connect(warehouse, cases, window, registered) as con:
        monitored = con.execute(warehouse.sql("exams_mimic_labs_monitored", labevents="mimic_labevents")).fetchone()[0]
        query = warehouse.sql("exams_mimic_labs", labevents="mimic_labevents")
        return write_query(warehouse, "exam_candidates", con, query, "mimic_labs"), int(monitored)


def _treatment_starts(warehouse: Warehouse, cases: pl.DataFrame, d_labitems: pl.DataFrame) -> pl.DataFrame:
    """When each case's monitoring treatments began: the admission's orders, and the ED's
    dispensations (ed/pyxis by stay, hence admission) when the ED module is staged."""
    if not warehouse.exists("mimic_prescriptions"):
        return pl.DataFrame(schema=STARTS_SCHEMA)
    hadm = cases.select("hadm_id").unique()
    prescriptions = warehouse.scan("mimic_prescriptions").select("hadm_id", "drug", "route", "starttime").join(
        hadm.lazy(), on="hadm_id", how="semi").collect()
    dispensed = None
    if warehouse.exists("ed_pyxis") and warehouse.exists("ed_edstays"):
        stays = warehouse.scan("ed_edstays").select("stay_id", "hadm_id").join(hadm.lazy(), on="hadm_id", how="semi")
        dispensed = warehouse.scan("ed_pyxis").select("stay_id", pl.col("name").alias("drug"), "charttime").join(
            stays, on="stay_id").collect()
    return treatment_starts(cases, d_labitems, prescriptions, dispensed)


def write_vitals(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow = ExamWindow()) -> Written:
    """ICU chartevents and omr measurements in the window; impossible values to ``rejects``."""
    chart = warehouse.exists("mimic_chartevents")
    omr = warehouse.exists("mimic_omr")
    if not (chart or omr):
        warehouse.write("rejects", schemas.empty("rejects"), partition=REJECTS_PARTITION)
        return write_empty(warehouse, "exam_candidates", "mimic_vitals", "neither chartevents nor omr is staged")
    registered = {"vital_items": chart_vitals()} if chart else {}
    with _connect(warehouse, cases, window, registered) as con:
        queries, rejects = [], []
        if chart:
            con.execute("CREATE TEMP TABLE chart_window AS "
                        + warehouse.sql("exams_mimic_chart_window", chartevents="mimic_chartevents"))
            queries.append(warehouse.sql("exams_mimic_chart_vitals"))
            rejects.append(warehouse.sql("exams_mimic_chart_rejects"))
        if omr:
            check_omr(con, warehouse)
            queries.append(warehouse.sql("exams_mimic_omr"))
            rejects.append(warehouse.sql("omr_rejects"))
        warehouse.write_query("rejects", con, _union(rejects), partition=REJECTS_PARTITION)
        return write_query(warehouse, "exam_candidates", con, _union(queries), "mimic_vitals")


def write_microbiology(warehouse: Warehouse, cases: pl.DataFrame, window: ExamWindow = ExamWindow()) -> Written:
    if not warehouse.exists("mimic_microbiologyevents"):
        return write_empty(warehouse, "exam_candidates", "mimic_microbiology", "microbiologyevents is not staged")
    registered = {"procedure_specimens": micro_specimens()}
    with _connect(warehouse, cases, window, registered) as con:
        query = warehouse.sql("exams_mimic_microbiology", microbiologyevents="mimic_microbiologyevents")
        return write_query(warehouse, "exam_candidates", con, query, "mimic_microbiology")
