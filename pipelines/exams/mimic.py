"""MIMIC-IV examination results of a case's own admission, as exam_candidates partitions.

Every producer is one DuckDB query over the staged Parquet (sql/exams_mimic_*.sql) streamed
to its partition, so the 118M-row ``labevents`` and 430M-row ``chartevents`` never pass
through Python: only the small dictionaries (``d_labitems``, ``d_items``) and the case list are
registered beside them.

* ``mimic_labs``          first result per lab item by ``storetime`` (when it became known).
* ``mimic_vitals``        first ICU chartevents value per vital-sign item (items whose label is
                          an alias of a ``vital`` in the catalog) and omr measurements dated
                          within the admission.
* ``mimic_microbiology``  first specimen per test and specimen type, organisms or comment.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipelines.content.partitions import Written, write_empty, write_query
from pipelines.exams.catalog import canonical_names, is_exam
from pipelines.warehouse import Warehouse

BLOOD = "blood"


def lab_items(d_labitems: pl.DataFrame) -> pl.DataFrame:
    """itemid -> proposed exam name: the label, qualified by its fluid unless blood or already named."""
    items = d_labitems.filter(pl.col("label").map_elements(is_exam, return_dtype=pl.Boolean))
    fluid = pl.col("fluid").fill_null("").str.strip_chars()
    qualified = (
        pl.when((fluid == "") | (fluid.str.to_lowercase() == BLOOD)
                | pl.col("label").str.to_lowercase().str.contains(fluid.str.to_lowercase(), literal=True))
        .then(pl.col("label").str.strip_chars())
        .otherwise(pl.format("{} ({})", pl.col("label").str.strip_chars(), fluid))
    )
    return items.select(
        pl.col("itemid").cast(pl.Int64), qualified.alias("exam_name"), pl.col("label").str.strip_chars().alias("raw_name")
    )


def vital_items(d_items: pl.DataFrame) -> pl.DataFrame:
    """chartevents items whose label is an alias of a vital sign, with d_items' normal range."""
    charted = d_items.filter(pl.col("linksto") == "chartevents").select(
        pl.col("itemid").cast(pl.Int64),
        pl.col("label").str.strip_chars().alias("exam_name"),
        pl.col("label").str.strip_chars().alias("raw_name"),
        pl.col("lownormalvalue").cast(pl.Float64).alias("ref_low"),
        pl.col("highnormalvalue").cast(pl.Float64).alias("ref_high"),
    )
    names = canonical_names(charted.with_columns(pl.lit("vital").alias("kind")))
    vitals = names.filter(pl.col("known") & (pl.col("canonical_kind") == "vital"))
    return charted.join(vitals.select("exam_name"), on="exam_name", how="semi")


def _write(warehouse: Warehouse, partition: str, cases: pl.DataFrame, queries: list[str],
           registered: dict[str, pl.DataFrame]) -> Written:
    with duckdb.connect() as con:
        con.register("cases", cases.select("case_id", "subject_id", "hadm_id", "admittime", "dischtime"))
        for name, frame in registered.items():
            con.register(name, frame)
        return write_query(warehouse, "exam_candidates", con, " UNION ALL ".join(f"({q})" for q in queries), partition)


def write_labs(warehouse: Warehouse, cases: pl.DataFrame) -> Written:
    query = warehouse.sql("exams_mimic_labs", labevents="mimic_labevents")
    items = lab_items(warehouse.read("mimic_d_labitems"))
    return _write(warehouse, "mimic_labs", cases, [query], {"lab_items": items})


def write_vitals(warehouse: Warehouse, cases: pl.DataFrame) -> Written:
    """ICU chartevents when staged, and omr measurements taken during the admission."""
    queries, registered = [], {}
    if warehouse.exists("mimic_chartevents") and warehouse.exists("mimic_d_items"):
        queries.append(warehouse.sql("exams_mimic_vitals", chartevents="mimic_chartevents"))
        registered["vital_items"] = vital_items(warehouse.read("mimic_d_items"))
    if warehouse.exists("mimic_omr"):
        queries.append(warehouse.sql("exams_mimic_omr", omr="mimic_omr"))
    if not queries:
        return write_empty(warehouse, "exam_candidates", "mimic_vitals", "neither chartevents nor omr is staged")
    return _write(warehouse, "mimic_vitals", cases, queries, registered)


def write_microbiology(warehouse: Warehouse, cases: pl.DataFrame) -> Written:
    if not warehouse.exists("mimic_microbiologyevents"):
        return write_empty(warehouse, "exam_candidates", "mimic_microbiology", "microbiologyevents is not staged")
    query = warehouse.sql("exams_mimic_microbiology", microbiologyevents="mimic_microbiologyevents")
    return _write(warehouse, "mimic_microbiology", cases, [query], {})
