"""Evaluation assets of the build: the judge's references per case, ``case_exam_targets`` (the
exams that matter) and ``case_rubrics`` (evidence and management key points), from one
computation (pipelines/evaluation/rubrics.py). The scores of a run (``episode_scores``) are
partitioned by run like the episodes and live beside them (assets/episodes.py).
"""

import time

import dagster as dg
import polars as pl

import schemas
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.params import rubric_params
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

GROUP = "evaluation"
CURATED = ["cases", "information_units", "exam_results", "exam_catalog", "profiles"]
MIMIC = ("case_provenance", "mimic_admissions", "mimic_prescriptions")  # the management key points
DEPS = [*CURATED, "medqa_rubric", *MIMIC]


def _prescriptions(warehouse: Warehouse) -> pl.DataFrame:
    """The first-day prescriptions of the MIMIC-IV cases (empty without the source)."""
    from pipelines.evaluation.rubrics import first_day_prescriptions  # see assets/__init__.py

    if not all(warehouse.exists(t) for t in MIMIC):
        return pl.DataFrame(schema={"case_id": pl.Utf8, "starttime": pl.Datetime("us"), "drug": pl.Utf8,
                                    "route": pl.Utf8})
    return first_day_prescriptions(*(warehouse.scan(t) for t in MIMIC), rubric_params())


@dg.multi_asset(
    name="case_references",
    group_name=GROUP,
    specs=[
        dg.AssetSpec("case_exam_targets", deps=DEPS, kinds={"scikit-learn", "parquet"},
                     description="Per case, its recorded exams that matter (informative on the train split), ranked."),
        dg.AssetSpec("case_rubrics", deps=DEPS, kinds={"polars", "parquet"},
                     description="Per case, the evidence and management key points the judge grades against."),
    ],
)
def case_references(clinverse: ClinverseResource):
    from pipelines.evaluation.rubrics import build  # see assets/__init__.py

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    parts = CaseStore.parts_of(warehouse, optional=())  # not the scoring tables it writes
    medqa = warehouse.read("medqa_rubric") if warehouse.exists("medqa_rubric") else schemas.empty("medqa_rubric")
    targets, rubrics = build(parts, medqa, _prescriptions(warehouse))
    warehouse.write("case_exam_targets", targets)
    warehouse.write("case_rubrics", rubrics)
    cases = len(CaseStore.case_ids_of(warehouse))
    per_kind = {k: rubrics.filter(pl.col("kind") == k)["case_id"].n_unique() for k in ("evidence", "management")}
    yield dg.MaterializeResult(asset_key="case_exam_targets", metadata={
        "rows": targets.height, "cases_with_targets": targets["case_id"].n_unique(), "cases": cases,
        "exams_that_matter": targets["exam_name"].n_unique()})
    yield dg.MaterializeResult(asset_key="case_rubrics", metadata={
        "rows": rubrics.height, "cases": cases, "cases_with_evidence": per_kind["evidence"],
        "cases_with_management": per_kind["management"],
        "plan_redistributed_share": round(1 - per_kind["management"] / cases, 4) if cases else 0.0,
        "seconds": round(time.perf_counter() - started, 3)})
