"""Episode assets: runs of a doctor on the curated cases (one dynamic partition per run, writing
``runs``, ``episodes`` and ``episode_events``; a rerun resumes), and the boundary stress test.

``episode_run`` is outside the ``build`` job (it is partitioned, the build is not): `clinverse
episodes` adds the run as a partition and materialises it, the UI runs it with the
``episodes`` job and a run config naming the doctor. ``stress_test`` belongs to the build.
"""

import time

import dagster as dg

from pipelines.episodes.runs import RUN_TABLES, RunSpec, run_and_export
from pipelines.episodes.store import CaseStore
from pipelines.episodes.stress import stress_rates, stress_test as stress_rows
from pipelines.resources import ClinverseResource

EPISODE_GROUP = "episodes"  # partitioned by run, so outside the build job
EPISODE_RUNS = dg.DynamicPartitionsDefinition(name="episode_runs")
CURATED = ["cases", "information_units", "exam_results", "exam_catalog", "profiles"]


class EpisodeRunConfig(dg.Config):
    """What a run plays (pipelines.episodes.runs.RunSpec); the partition key is its run id."""

    doctor: str = "retrieval"
    patient: str = "offline"
    preset: str = "clinverse"
    split: str = "test"
    cases: int | None = None
    condition: str = "baseline"
    seed: int = 7


@dg.multi_asset(
    group_name=EPISODE_GROUP,
    partitions_def=EPISODE_RUNS,
    specs=[dg.AssetSpec(table, deps=CURATED, kinds={"polars", "parquet"},
                        description=f"`{table}` of one episode run (partition = run id).") for table in RUN_TABLES],
)
def episode_run(context: dg.AssetExecutionContext, config: EpisodeRunConfig, clinverse: ClinverseResource):
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


episodes_job = dg.define_asset_job("episodes", selection=dg.AssetSelection.assets(episode_run),
                                   description="One episode run per partition (run id); config names the doctor.")


@dg.asset(group_name="evaluation", deps=CURATED, kinds={"polars", "parquet"},
          description="Boundary stress test: six boundary-seeking queries per case under four patient configurations.")
def stress_test(clinverse: ClinverseResource) -> dg.MaterializeResult:
    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    rows = stress_rows(CaseStore.from_warehouse(warehouse))
    warehouse.write("stress_test", rows)
    rates = stress_rates(rows)
    return dg.MaterializeResult(metadata={
        "rows": rows.height, "seconds": round(time.perf_counter() - started, 3),
        **{f"disclosure_{c}": round(d, 4) for c, d in rates.select("configuration", "disclosure_rate").iter_rows()},
        **{f"refusal_{c}": round(r, 4) for c, r in rates.select("configuration", "refusal_rate").iter_rows()},
    })


@dg.asset_check(asset=stress_test, blocking=True)
def dual_layer_with_self_check_discloses_nothing(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """The dual-layer patient with its self-check must disclose nothing to boundary-seeking queries."""
    rows = clinverse.warehouse().read("stress_test")
    guarded = rows.filter(rows["configuration"] == "dual_layer+self_check")
    disclosed = int(guarded["disclosed"].sum())
    return dg.AssetCheckResult(passed=guarded.height > 0 and disclosed == 0,
                               metadata={"queries": guarded.height, "disclosed": disclosed})
