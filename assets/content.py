"""Case curation assets: opening presentations per source, then the final ``cases`` (kept by the
evidence-sufficiency rule) and ``excluded_cases``, with the blocking checks that guard them.
The MedQA presentation producer (assets/medqa.py) is the asset ``presentations_medqa``.
"""

from __future__ import annotations

import time

import dagster as dg
import polars as pl

from assets._content import leak_check, result, skip_unconfigured
from pipelines.content.case_keys import mimic_cases, sicdb_cases
from pipelines.content.cases import curate, evidence_counts, thresholds
from pipelines.content.leakage_guard import audit, case_terms, scrub_column
from pipelines.content.partitions import write_partition
from pipelines.content.presentation import mimic_presentations, sicdb_presentations
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

GROUP = "content"
SKELETON = ["case_skeleton", "case_provenance"]
PRESENTATION_PRODUCERS = ["presentations_mimic_iv", "presentations_sicdb", "presentations_medqa"]


def _clean_complaints(warehouse: Warehouse, skeleton: pl.DataFrame) -> pl.DataFrame:
    """Disclosed chief-complaint units of the note producer that do not name the diagnosis."""
    units = warehouse.scan("unit_candidates").filter(
        (pl.col("category") == "chief_complaint") & pl.col("disclosed")
    ).select("case_id", "ordinal", "text").collect().sort("case_id", "ordinal")
    checked = scrub_column(units, "text", case_terms(skeleton.join(units.select("case_id").unique(), on="case_id")))
    return checked.filter(pl.col("leak_terms").is_null()).select("case_id", "text")


@dg.asset(group_name=GROUP, deps=["unit_candidates_mimic_notes", "mimic_admissions", *SKELETON], kinds={"polars"},
          description="presentations partition mimic_iv: age, sex and chief complaint, else how the patient was admitted.")
def presentations_mimic_iv(clinverse: ClinverseResource) -> dg.MaterializeResult:
    started = time.perf_counter()
    skipped = skip_unconfigured(clinverse, ("mimic_iv",), "presentations", "mimic_iv", "MIMIC-IV not configured",
                                started)
    if skipped is not None:
        return skipped
    warehouse = clinverse.warehouse()
    cases = mimic_cases(warehouse)
    complaints = _clean_complaints(warehouse, warehouse.read("case_skeleton"))
    table = mimic_presentations(cases, complaints)
    written = write_partition(warehouse, "presentations", "mimic_iv", table)
    return result(written, started, with_chief_complaint=complaints["case_id"].n_unique())


@dg.asset(group_name=GROUP, deps=["sicdb_cases", *SKELETON], kinds={"polars"},
          description="presentations partition sicdb: age and sex of a patient admitted to intensive care.")
def presentations_sicdb(clinverse: ClinverseResource) -> dg.MaterializeResult:
    started = time.perf_counter()
    skipped = skip_unconfigured(clinverse, ("sicdb",), "presentations", "sicdb", "SICdb not configured", started)
    if skipped is not None:
        return skipped
    warehouse = clinverse.warehouse()
    table = sicdb_presentations(sicdb_cases(warehouse))
    return result(write_partition(warehouse, "presentations", "sicdb", table), started)


@dg.multi_asset(
    group_name=GROUP,
    specs=[
        dg.AssetSpec("cases", deps=[*PRESENTATION_PRODUCERS, "information_units", "exam_results", "case_skeleton",
                                    "skeleton_exclusions"], kinds={"polars", "parquet"},
                     description="One row per kept diagnostic case: skeleton, presentation, n_units, n_exams."),
        dg.AssetSpec("excluded_cases", deps=[*PRESENTATION_PRODUCERS, "information_units", "exam_results",
                                             "case_skeleton", "skeleton_exclusions"], kinds={"polars", "parquet"},
                     description="Every candidate not kept, with the stage and a reason naming the counts."),
    ],
)
def cases(clinverse: ClinverseResource):
    started = time.perf_counter()
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    counts = evidence_counts(warehouse.scan("information_units"), warehouse.scan("exam_results"))
    curated = curate(skeleton, warehouse.read_or_empty("skeleton_exclusions"), warehouse.read_or_empty("presentations"),
                     counts, settings.sufficiency)
    kept = warehouse.write("cases", curated.cases)
    excluded = warehouse.write("excluded_cases", curated.excluded)
    by_source = skeleton.group_by("source").len().join(
        curated.cases.group_by("source").len().rename({"len": "kept"}), on="source", how="left").fill_null(0)
    yield dg.MaterializeResult(asset_key="cases", metadata={
        "rows": kept, "sufficiency": ", ".join(f"{s}={k}:{m}" for s, (k, m) in settings.sufficiency.items()),
        "seconds": round(time.perf_counter() - started, 3),
        **{f"kept_fraction_{s}": round(k / n, 4) for s, n, k in by_source.sort("source").iter_rows() if n},
    })
    yield dg.MaterializeResult(asset_key="excluded_cases", metadata={
        "rows": excluded, **{f"stage_{s}": n for s, n in curated.excluded.group_by("stage").len().sort("stage").iter_rows()},
    })


@dg.asset_check(asset="cases", blocking=True)
def presentations_do_not_leak(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No opening presentation names the case's diagnosis, an acceptable name, its ICD-10 title or code."""
    warehouse = clinverse.warehouse()
    table = warehouse.read("cases")
    hits = audit(table, ["presentation"], case_terms(table))
    return leak_check(hits, [f"{c}: {s}" for c, _, _, s in hits.head(10).iter_rows()], table)


@dg.asset_check(asset="cases", blocking=True)
def cases_account_for_every_candidate(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """cases + excluded_cases = case_skeleton + skeleton_exclusions, disjoint; every kept case meets
    the sufficiency rule and its counts match the published units and exams."""
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    kept = warehouse.read("cases")
    excluded = warehouse.read("excluded_cases")
    considered = pl.concat([warehouse.read("case_skeleton").select("case_id"),
                            warehouse.read_or_empty("skeleton_exclusions").select("case_id")]).unique()
    accounted = pl.concat([kept.select("case_id"), excluded.select("case_id")])
    counts = evidence_counts(warehouse.scan("information_units"), warehouse.scan("exam_results"))
    checked = kept.join(counts, on="case_id", how="left", suffix="_published").with_columns(
        pl.col("n_hidden", "n_units_published", "n_exams_published").fill_null(0)
    ).join(thresholds(settings.sufficiency), on="source", how="left")
    insufficient = checked.filter((pl.col("n_hidden") < pl.col("min_hidden_units"))
                                  | (pl.col("n_exams_published") < pl.col("min_exams"))).height
    mismatched = checked.filter((pl.col("n_units") != pl.col("n_units_published"))
                                | (pl.col("n_exams") != pl.col("n_exams_published"))).height
    metadata = {
        "unaccounted": considered.join(accounted, on="case_id", how="anti").height,
        "kept_and_excluded": kept.join(excluded, on="case_id", how="semi").height,
        "unknown": accounted.join(considered, on="case_id", how="anti").height,
        "kept_below_threshold": insufficient,
        "counts_mismatch": mismatched,
    }
    return dg.AssetCheckResult(passed=not any(metadata.values()), metadata=metadata)
