"""Publish ``exam_results`` and ``exam_catalog`` from every exam_candidates partition.

1. Each distinct proposed name is mapped to its canonical name (pipelines.exams.catalog).
2. One result per case and canonical name is kept (sql/exams_first_per_name.sql).
3. The leakage guard drops exams whose name names the case's diagnosis and scrubs reports that
   do (only distinct (diagnosis, text) pairs are checked; numbers cannot leak).
4. The rows are streamed to ``exam_results`` (sql/exams_results.sql); the catalog counts the
   published rows and adds every curated name no case has (``n_cases = 0``), so a request for a
   known exam the case lacks is recognised as such.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import schemas
from pipelines.content import producers
from pipelines.content.leakage_guard import CaseTerms, scrub_pairs
from pipelines.exams.catalog import alias_table, canonical_names, catalog
from pipelines.warehouse import PARTITION_OF_PATH, Warehouse
from sql import connect, load

# Producer order breaks ties between equally early results (pipelines/content/producers.py:
# structured before text-derived).
PARTITION_ORDER = tuple(producers.order("exam_candidates"))
WITHHELD = "(withheld: the report names the diagnosis)"


@dataclass(frozen=True)
class Published:
    rows: int
    catalog: pl.DataFrame
    dropped_names: int  # (diagnosis, exam name) pairs withheld
    scrubbed_texts: int  # (diagnosis, report) pairs scrubbed


def publish(warehouse: Warehouse, terms: CaseTerms) -> Published:
    candidates = warehouse.table_glob("exam_candidates")
    with connect() as con:
        proposals = con.sql(f"SELECT DISTINCT exam_name, kind FROM read_parquet('{candidates}')").pl()
        con.register("names", canonical_names(proposals))
        con.register("partition_order", pl.DataFrame({"partition": PARTITION_ORDER,
                                                       "rank": range(len(PARTITION_ORDER))}))
        con.register("dx", terms.cases)
        con.execute("CREATE TEMP TABLE first AS " + load("exams_first_per_name").format(
            candidates=candidates, skeleton=warehouse.table_glob("case_skeleton"), partition_of_path=PARTITION_OF_PATH))
        names = con.sql("SELECT DISTINCT dx_key, canonical AS exam_name FROM first JOIN dx USING (case_id)").pl()
        # Only text with a word in it can name a diagnosis.
        texts = con.sql("SELECT DISTINCT dx_key, value_text FROM first JOIN dx USING (case_id) "
                        "WHERE regexp_matches(value_text, '[A-Za-z]{2}')").pl()
        dropped = scrub_pairs(names, "exam_name", terms).select("dx_key", "exam_name")
        scrubbed = scrub_pairs(texts, "value_text", terms).select(
            "dx_key", "value_text",
            pl.when(pl.col("leak_left")).then(pl.col("scrubbed")).otherwise(pl.lit(WITHHELD)).alias("scrubbed"),
        )
        con.register("dropped_names", dropped)
        con.register("scrubbed_texts", scrubbed)
        rows = warehouse.write_query("exam_results", con, load("exams_results"))
        counts = con.sql(warehouse.sql("exams_catalog_counts", results="exam_results")).pl()
    curated = alias_table().select("exam_name", "kind").unique(subset="exam_name", keep="first", maintain_order=True)
    unused = curated.join(counts, on="exam_name", how="anti").with_columns(
        pl.lit([], pl.List(pl.Utf8)).alias("raw_names"), pl.lit(None, pl.Utf8).alias("loinc"),
        pl.lit(0, pl.Int64).alias("n_cases"),
    )
    names_all = pl.concat([counts.with_columns(pl.col("n_cases").cast(pl.Int64)), unused.select(counts.columns)])
    table = schemas.conform("exam_catalog", catalog(names_all))
    return Published(rows, table, dropped.height, scrubbed.height)
