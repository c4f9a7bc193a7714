"""Examination assets: one exam_candidates producer per entry of pipelines/content/producers.py,
then the published ``exam_results`` (canonical names, one result per case and name, leakage
guarded) and ``exam_catalog``. The MedQA producer (assets/medqa.py) is the asset ``exam_candidates_medqa``.
"""

from __future__ import annotations

import time

import dagster as dg
import polars as pl

import schemas
from assets.factories import leak_check, producer_assets
from pipelines.content import producers
from pipelines.content.leakage_guard import audit, case_terms
from pipelines.exams.results import publish
from pipelines.resources import ClinverseResource
from sql import connect

GROUP = "content"
TABLE = "exam_candidates"

EXAM_PRODUCERS = producer_assets(TABLE)


@dg.multi_asset(
    group_name=GROUP,
    specs=[
        dg.AssetSpec("exam_results", deps=[*producers.assets(TABLE), "case_skeleton"], kinds={"duckdb", "parquet"},
                     description="What the laboratory physician can return: one result per case and canonical exam."),
        dg.AssetSpec("exam_catalog", deps=[*producers.assets(TABLE), "case_skeleton"], kinds={"polars", "parquet"},
                     description="Canonical exam names with aliases (source names, abbreviations, German), LOINC, n_cases."),
    ],
)
def exam_results(clinverse: ClinverseResource):
    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    published = publish(warehouse, case_terms(warehouse.read("case_skeleton")))
    catalog_rows = warehouse.write("exam_catalog", published.catalog)
    kinds = dict(warehouse.scan("exam_results").group_by("kind").len().collect().iter_rows())
    yield dg.MaterializeResult(asset_key="exam_results", metadata={
        "rows": published.rows, "seconds": round(time.perf_counter() - started, 3),
        **{f"kind_{k}": n for k, n in sorted(kinds.items())},
        "withheld_exam_names": published.dropped_names, "scrubbed_reports": published.scrubbed_texts,
    })
    yield dg.MaterializeResult(asset_key="exam_catalog", metadata={
        "rows": catalog_rows, "in_use": published.catalog.filter(pl.col("n_cases") > 0).height,
        "with_loinc": published.catalog.filter(pl.col("loinc").is_not_null()).height,
    })


@dg.asset_check(asset="exam_results", blocking=True)
def exam_results_do_not_leak(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No exam name or report names the case's diagnosis (findings may be abnormal, never named)."""
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    hits = audit(warehouse.read("exam_results"), ["exam_name", "value_text"], case_terms(skeleton))
    return leak_check(hits, [f"{c} {col} {t}: {s}" for c, col, t, s in hits.head(10).iter_rows()], skeleton)


@dg.asset_check(asset="exam_results", blocking=True)
def exam_results_match_catalog(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """exam_results (streamed by DuckDB, so validated here) satisfies its schema, has one row per
    case and name, and every name is in exam_catalog with the same kind."""
    warehouse = clinverse.warehouse()
    results = warehouse.read("exam_results")
    problem = ""
    try:
        schemas.validate("exam_results", results)
    except schemas.ContractError as exc:
        problem = str(exc)[:4000]
    with connect() as con:
        duplicates, uncatalogued = con.sql(
            f"SELECT (SELECT count(*) - count(DISTINCT (case_id, exam_name)) FROM read_parquet('{warehouse.table_glob('exam_results')}')), "
            f"(SELECT count(*) FROM read_parquet('{warehouse.table_glob('exam_results')}') r "
            f"ANTI JOIN read_parquet('{warehouse.table_glob('exam_catalog')}') c USING (exam_name, kind))"
        ).fetchall()[0]
    return dg.AssetCheckResult(passed=not problem and duplicates == 0 and uncatalogued == 0, metadata={
        "schema": dg.MetadataValue.text(problem or "ok"), "duplicate_case_exam_rows": duplicates,
        "rows_not_in_catalog": uncatalogued,
    })
