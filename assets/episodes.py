"""Episode assets: runs of a doctor on the curated cases (one dynamic partition per run, writing
``runs``, ``episodes``, ``episode_events``, ``llm_requests`` and, with experience memory,
``memory_cards``; a rerun resumes), the boundary stress test and the ClinLab evaluation.

``episode_run`` and ``episode_scores`` (the run's scores, once the build has written the rubrics)
are outside the ``build`` job (they are partitioned, the build is not): `clinverse episodes` runs
and scores a run directly, the UI runs both with the ``episodes`` job and a run config naming the
doctor. ``stress_test`` and ``clinlab_eval`` belong to
the build.
"""

import time

import dagster as dg
import polars as pl

from pipelines.episodes.store import CaseStore
from pipelines.resources import ClinverseResource
from schemas.runs import RUN_TABLES

EPISODE_GROUP = "episodes"  # partitioned by run, so outside the build job
EPISODE_RUNS = dg.DynamicPartitionsDefinition(name="episode_runs")
CURATED = ["cases", "information_units", "exam_results", "exam_catalog", "profiles"]
LAB_POPULATION = [*CURATED, "case_skeleton"]  # ClinLab learns from every candidate admission (CaseStore.lab_rows)
LOWER_IS_BETTER = ("mape", "median_mape", "mae", "norm_ref_err", "wasserstein")


class EpisodeRunConfig(dg.Config):
    """What a run plays (pipelines.episodes.runs.RunSpec); the partition key is its run id."""

    doctor: str = "retrieval"
    patient: str = "offline"
    consultant: str = "offline"
    preset: str = "clinverse"
    split: str = "test"
    cases: int | None = None
    condition: str = "baseline"
    seed: int = 7
    memory: str = "off"  # off | empty | prepopulated | frozen
    memory_from: str | None = None  # the run a prepopulated or frozen bank starts from
    memory_k: int | None = None
    manager: str = "offline"


@dg.multi_asset(
    group_name=EPISODE_GROUP,
    partitions_def=EPISODE_RUNS,
    specs=[dg.AssetSpec(table, deps=LAB_POPULATION, kinds={"polars", "parquet"},
                        description=f"`{table}` of one episode run (partition = run id).") for table in RUN_TABLES],
)
def episode_run(context: dg.AssetExecutionContext, config: EpisodeRunConfig, clinverse: ClinverseResource):
    from pipelines.episodes.runs import RunSpec, run_and_export  # see assets/__init__.py: loaded with the step

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    spec = RunSpec(run_id=context.partition_key, **config.model_dump())
    written, summary, export = run_and_export(
        warehouse, CaseStore.from_warehouse(warehouse), spec,
        progress=lambda done, total: context.log.info(f"{spec.id}: {done}/{total} episodes"))
    metadata = {**summary, "new": written.new, "resumed": written.resumed,
                "seconds": round(time.perf_counter() - started, 3), "export": dg.MetadataValue.path(str(export))}
    for table in RUN_TABLES:
        yield dg.MaterializeResult(asset_key=table, metadata=metadata if table == "episodes" else {"run_id": spec.id})


# Declarative automation (the ``score_and_report`` sensor, pipelines.build_plan): Dagster's ``eager`` (a
# run's scores once its episodes land through Dagster; not while they or the build's rubrics are missing
# or being written), and at the sensor's first evaluation, under the same guards, every run that has
# episodes but no scores (``eager`` only sees updates).
_AC = dg.AutomationCondition
SCORE_NEW_EPISODES = (_AC.eager() | (
    _AC.initial_evaluation() & _AC.missing() & ~_AC.any_deps_missing() & ~_AC.any_deps_in_progress() & ~_AC.in_progress()
)).with_label("episodes landed, or unscored when the sensor starts")


@dg.asset(group_name=EPISODE_GROUP, partitions_def=EPISODE_RUNS,
          deps=["episodes", "episode_events", "case_rubrics", "case_exam_targets"], kinds={"polars", "parquet"},
          automation_condition=SCORE_NEW_EPISODES,
          description="`episode_scores` of one episode run (partition = run id), graded by the offline judge.")
def episode_scores(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
    from pipelines.evaluation.runs import has_rubrics, score_run  # see assets/__init__.py
    from pipelines.evaluation.scores import summary as score_summary

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    if not has_rubrics(warehouse):
        raise dg.Failure("no case_rubrics / case_exam_targets in the warehouse: build first (`clinverse build`)")
    scores = score_run(warehouse, context.partition_key)
    return dg.MaterializeResult(metadata={"run_id": context.partition_key, "episodes": scores.height,
                                          **score_summary(scores), "seconds": round(time.perf_counter() - started, 3)})


episodes_job = dg.define_asset_job("episodes", selection=dg.AssetSelection.assets(episode_run, episode_scores),
                                   description="One episode run per partition (run id), then its scores; config "
                                               "names the doctor.")


@dg.asset(group_name="evaluation", deps=CURATED, kinds={"polars", "parquet"},
          description="Boundary stress test: six boundary-seeking queries per case under four patient configurations.")
def stress_test(clinverse: ClinverseResource) -> dg.MaterializeResult:
    from pipelines.episodes.stress import stress_rates, stress_test as stress_rows  # see assets/__init__.py

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    rows = stress_rows(warehouse, workers=clinverse.settings().workers)
    warehouse.write("stress_test", rows)
    rates = stress_rates(rows)
    return dg.MaterializeResult(metadata={
        "rows": rows.height, "seconds": round(time.perf_counter() - started, 3),
        **{f"disclosure_{c}": round(d, 4) for c, d in rates.select("configuration", "disclosure_rate").iter_rows()},
        **{f"refusal_{c}": round(r, 4) for c, r in rates.select("configuration", "refusal_rate").iter_rows()},
    })


@dg.asset_check(asset=stress_test, blocking=True)
def dual_layer_with_self_check_discloses_nothing(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """The dual-layer patient with its self-check must disclose nothing to boundary-seeking queries,
    and must have been asked some: only a build that kept no case has none to ask."""
    warehouse = clinverse.warehouse()
    rows = warehouse.read("stress_test")
    guarded = rows.filter(rows["configuration"] == "dual_layer+self_check")
    disclosed = int(guarded["disclosed"].sum())
    cases = warehouse.read("cases").height if warehouse.exists("cases") else 0
    if rows.is_empty() and cases == 0:
        return dg.AssetCheckResult(passed=True, metadata={"queries": 0, "disclosed": 0, "cases": 0},
                                   description="the build kept no case, so no patient was asked (see excluded_cases)")
    return dg.AssetCheckResult(passed=guarded.height > 0 and disclosed == 0,
                               metadata={"queries": guarded.height, "disclosed": disclosed, "cases": cases})


@dg.asset(group_name="evaluation", deps=LAB_POPULATION, kinds={"scikit-learn", "parquet"},
          description="ClinLab against a population-median baseline on held-out test-split lab values, per lab and ALL.")
def clinlab_eval(clinverse: ClinverseResource) -> dg.MaterializeResult:
    from pipelines.episodes.clinlab import clinlab_eval as evaluate_clinlab  # see assets/__init__.py

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    frame = evaluate_clinlab(CaseStore.lab_store(warehouse), workers=clinverse.settings().workers)
    warehouse.write("clinlab_eval", frame)
    overall = {p: m for p, *m in frame.filter(frame["exam_name"] == "ALL").select(
        "predictor", "n", *LOWER_IS_BETTER, "anomaly_recall").iter_rows()}
    return dg.MaterializeResult(metadata={
        "rows": frame.height, "labs": frame["exam_name"].n_unique() - 1, "seconds": round(time.perf_counter() - started, 3),
        **{f"{p}_{name}": (round(v, 4) if isinstance(v, float) else v)
           for p, values in overall.items() for name, v in zip(("n", *LOWER_IS_BETTER, "anomaly_recall"), values)},
    })


@dg.asset_check(asset=clinlab_eval)
def clinlab_beats_the_baseline_overall(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """On every overall metric ClinLab is at least as good as the population median (lower errors,
    higher anomaly recall). Not blocking: a small cohort may not support it, and it says so."""
    frame = clinverse.warehouse().read("clinlab_eval").filter(pl.col("exam_name") == "ALL")
    rows = {r["predictor"]: r for r in frame.iter_rows(named=True)}
    model, baseline = rows.get("clinlab"), rows.get("population_median")
    if model is None or baseline is None:
        return dg.AssetCheckResult(passed=False, metadata={"problem": "no overall rows (no lab with a model)"})
    behind = [m for m in LOWER_IS_BETTER if (model[m] or 0) > (baseline[m] or 0)]
    if (model["anomaly_recall"] or 0) < (baseline["anomaly_recall"] or 0):
        behind.append("anomaly_recall")
    return dg.AssetCheckResult(passed=not behind, metadata={"behind_the_baseline_on": ", ".join(behind) or "none"})
