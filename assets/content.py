"""Case curation assets: opening presentations per entry of pipelines/content/producers.py,
then the final ``cases`` (kept by the evidence-sufficiency rule) and ``excluded_cases``, with the
blocking checks that guard them, and ``leakage_removals``, gathered from every asset that writes a
partition of it. The MedQA presentation producer (assets/medqa.py) is the asset ``presentations_medqa``.
"""

import time

import dagster as dg
import polars as pl

from assets.factories import gathered_table_asset, leak_check, producer_assets
from pipelines.content import producers
from pipelines.content.cases import (
    OPENING_COMPLAINT,
    curate,
    evidence_counts,
    lacks_complaint,
    lacks_diagnosis_evidence,
    lacks_criteria,
    lacks_diagnostic_test,
    lacks_history,
    thresholds,
)
from pipelines.content import leakage_audit
from pipelines.content.leakage_guard import audit, case_terms
from pipelines.resources import ClinverseResource

GROUP = "content"
TABLE = "presentations"
CASES_DEPS = [*producers.assets(TABLE), "information_units", "exam_results", "case_skeleton", "skeleton_exclusions"]

PRESENTATION_PRODUCERS = producer_assets(TABLE)

leakage_removals = gathered_table_asset(
    "leakage_removals", producers.leakage_removal_writers(), GROUP,
    "Every diagnosis mention removed from patient- or exam-visible text, gathered from the partitions "
    "its writers (note producers, MedQA, the information_units guard) wrote.")


@dg.multi_asset(
    group_name=GROUP,
    specs=[
        dg.AssetSpec("cases", deps=CASES_DEPS, kinds={"polars", "parquet"},
                     description="One row per kept diagnostic case: skeleton, presentation, n_units, n_exams."),
        dg.AssetSpec("excluded_cases", deps=CASES_DEPS, kinds={"polars", "parquet"},
                     description="Every candidate not kept, with the stage and a reason naming the counts."),
    ],
)
def cases(context: dg.AssetExecutionContext, clinverse: ClinverseResource):
    started = time.perf_counter()
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    counts = evidence_counts(skeleton, warehouse.scan("information_units"), warehouse.scan("exam_results"))
    curated = curate(skeleton, warehouse.read_or_empty("skeleton_exclusions"), warehouse.read_or_empty("presentations"),
                     counts, settings.sufficiency, settings.structured_only)
    kept = warehouse.write("cases", curated.cases)
    no_complaint = curated.excluded.filter(pl.col("stage") == OPENING_COMPLAINT)
    if no_complaint.height:  # the commonest surprise: MIMIC-IV without its notes or ED module opens no case
        context.log.warning(
            f"cases: {no_complaint.height} candidate(s) have no opening complaint "
            f"({', '.join(sorted(set(no_complaint['source'])))}): "
            "add --mimic-note or --mimic-ed, or keep them as structured-only cases with "
            "CLINVERSE_STRUCTURED_ONLY=mimic_iv,sicdb")
    excluded = warehouse.write("excluded_cases", curated.excluded)
    by_source = skeleton.group_by("source").len().join(
        curated.cases.group_by("source").len().rename({"len": "kept"}), on="source", how="left").fill_null(0)
    yield dg.MaterializeResult(asset_key="cases", metadata={
        "rows": kept, "sufficiency": ", ".join(f"{s}={k}:{m}" for s, (k, m) in settings.sufficiency.items()),
        "structured_only": int(curated.cases["structured_only"].sum()),
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
def patient_texts_name_no_icd10_index_term(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No information unit and no opening presentation names the case's primary code by an ICD-10-CM
    title, inclusion term or abbreviation, found by a detector that shares nothing with the scrubber
    (pipelines/content/leakage_audit.py), so what the scrubber's own terms miss is caught here."""
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton").select("case_id", "source", "primary_icd10")
    units = warehouse.scan("information_units").select("case_id", "text").collect()
    hits = pl.concat([leakage_audit.audit(units, ["text"], skeleton),
                      leakage_audit.audit(warehouse.read("cases").select("case_id", "presentation"), ["presentation"],
                                          skeleton)])
    return leak_check(hits, [f"{c} {col} [{name}]: {s}" for c, col, name, s in hits.head(10).iter_rows()], skeleton)


@dg.asset_check(asset="cases", blocking=True)
def cases_account_for_every_candidate(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """cases + excluded_cases = case_skeleton + skeleton_exclusions, disjoint; every kept case meets
    the sufficiency rule (counts, diagnosis-associated evidence, an examination where only one
    establishes the diagnosis, results that meet the criteria of a diagnosis a measurement defines,
    a unit reporting the history a diagnosis presupposes, an opening complaint or a source
    whose structured-only cases are kept) and its counts and mark match the published units and exams."""
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    kept = warehouse.read("cases")
    excluded = warehouse.read("excluded_cases")
    skeleton = warehouse.read("case_skeleton")
    considered = pl.concat([skeleton.select("case_id"),
                            warehouse.read_or_empty("skeleton_exclusions").select("case_id")]).unique()
    accounted = pl.concat([kept.select("case_id"), excluded.select("case_id")])
    counts = evidence_counts(skeleton, warehouse.scan("information_units"), warehouse.scan("exam_results"))
    checked = kept.join(counts, on="case_id", how="left", suffix="_published").with_columns(
        pl.col("n_hidden", "n_units_published", "n_exams_published", "n_complaints", "n_key_complaints",
               "n_key_hidden", "n_associated_exams", "n_nonspecific_exams", "n_diagnostic_tests",
               "n_criteria_met", "n_history_units").fill_null(0)
    ).join(thresholds(settings.sufficiency), on="source", how="left")
    no_complaint = lacks_complaint()
    metadata = {
        "unaccounted": considered.join(accounted, on="case_id", how="anti").height,
        "kept_and_excluded": kept.join(excluded, on="case_id", how="semi").height,
        "unknown": accounted.join(considered, on="case_id", how="anti").height,
        "kept_below_threshold": checked.filter((pl.col("n_hidden") < pl.col("min_hidden_units"))
                                               | (pl.col("n_exams_published") < pl.col("min_exams"))).height,
        "kept_without_diagnosis_evidence": checked.filter(lacks_diagnosis_evidence()).height,
        "kept_without_diagnostic_test": checked.filter(lacks_diagnostic_test()).height,
        "kept_failing_diagnosis_criteria": checked.filter(lacks_criteria()).height,
        "kept_without_diagnosis_history": checked.filter(lacks_history()).height,
        "kept_without_complaint": checked.filter(
            no_complaint & ~pl.col("source").is_in(list(settings.structured_only))).height,
        "structured_only_mismarked": checked.filter(pl.col("structured_only") != no_complaint).height,
        "counts_mismatch": checked.filter((pl.col("n_units") != pl.col("n_units_published"))
                                          | (pl.col("n_exams") != pl.col("n_exams_published"))).height,
    }
    return dg.AssetCheckResult(passed=not any(metadata.values()), metadata=metadata)
