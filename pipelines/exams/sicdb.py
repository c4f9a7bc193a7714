"""SICdb laboratory results as the ``sicdb_labs`` partition of exam_candidates.

``laboratory.LaboratoryID`` is a ``d_references.ReferenceGlobalID``; the reference's
``ReferenceValue`` is the (German) name, ``ReferenceUnit`` the unit and, where the release ships
a LOINC column, its code is kept. Offsets are seconds from ICU admission; results keep the
first value per laboratory id (sql/exams_sicdb_labs.sql). SICdb ships no reference ranges, so
``abnormal`` stays unknown.
"""

from __future__ import annotations

import polars as pl

from pipelines.content.partitions import Written, write_query
from pipelines.exams.catalog import is_exam
from pipelines.warehouse import Warehouse
from sql import connect


def lab_names(d_references: pl.DataFrame) -> pl.DataFrame:
    """reference_id -> proposed name, unit and LOINC (a column whose name contains 'loinc')."""
    loinc = next((c for c in d_references.columns if "loinc" in c.lower()), None)
    name = pl.coalesce(pl.col("ReferenceValue").str.strip_chars(), pl.col("ReferenceName").str.strip_chars())
    names = d_references.select(
        pl.col("ReferenceGlobalID").cast(pl.Int64).alias("reference_id"),
        name.alias("exam_name"),
        name.alias("raw_name"),
        pl.col("ReferenceUnit").str.strip_chars().alias("unit"),
        pl.lit(None, pl.Float64).alias("ref_low"),
        pl.lit(None, pl.Float64).alias("ref_high"),
        (pl.col(loinc).cast(pl.Utf8).str.strip_chars() if loinc else pl.lit(None, pl.Utf8)).alias("loinc"),
    )
    names = names.with_columns(
        pl.when(pl.col("loinc").str.contains(r"^[0-9]{1,7}-[0-9]$")).then(pl.col("loinc")).alias("loinc")
    )
    return names.filter(pl.col("exam_name").map_elements(is_exam, return_dtype=pl.Boolean))


def write_labs(warehouse: Warehouse, cases: pl.DataFrame) -> Written:
    query = warehouse.sql("exams_sicdb_labs", laboratory="sicdb_laboratory")
    with connect() as con:
        con.register("cases", cases.select("case_id", "sicdb_case_id"))
        con.register("lab_names", lab_names(warehouse.read("sicdb_d_references")))
        return write_query(warehouse, "exam_candidates", con, query, "sicdb_labs")
