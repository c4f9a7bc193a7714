"""Materialise the asset graph in-process, in the order partitions require, with progress.

Dagster cannot run unpartitioned and partitioned assets in one in-process run, so a build is
planned as stages: assets upstream of any partitioned asset, then each partitioned asset
once per needed partition, then everything downstream.  Each stage is one `materialize`
call on a shared ephemeral instance; a failed step or a failed blocking check stops the build.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import dagster as dg
from dagster import DagsterEventType, DagsterInstance

from pipelines.build_plan import split_at_partitions


# Step-level DEBUG chatter would drown the progress bar; assets log what matters at INFO.
LOG_LEVEL = os.environ.get("CLINVERSE_LOG_LEVEL", "INFO")


class BuildFailed(RuntimeError):
    pass


@dataclass
class StageReport:
    label: str
    succeeded: list[str] = field(default_factory=list)
    checks: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0


ProgressFn = Callable[[str, int, int, str], None]  # (stage label, steps done, steps total, current step)


def plan(defs: dg.Definitions, selection: dg.AssetSelection,
         planned: Callable[[dg.AssetKey], list[str] | None]) -> Iterator[tuple[str, dg.AssetSelection, str | None]]:
    """Yield (label, selection, partition) stages. Partitions are asked for only when their stage
    comes up, after the upstream stage ran, so planners can look at the cases just built; an
    asset without a planner gets every partition."""
    graph = defs.resolve_asset_graph()
    partitioned = [k for k in selection.resolve(graph) if graph.get(k).partitions_def is not None]
    before, _, after = split_at_partitions(selection, partitioned)
    if before.resolve(graph):
        yield ("sources and cases" if partitioned else "build"), before, None
    for key in sorted(partitioned, key=lambda k: k.to_user_string()):
        partitions = planned(key)
        if partitions is None:
            partitions = graph.get(key).partitions_def.get_partition_keys()
        for partition in partitions:
            yield f"{key.to_user_string()} [{partition}]", dg.AssetSelection.assets(key), partition
    if after.resolve(graph):
        yield "downstream", after, None


def run_stage(defs: dg.Definitions, label: str, selection: dg.AssetSelection, partition: str | None,
              instance: DagsterInstance, progress: ProgressFn | None = None) -> StageReport:
    assets = list(defs.assets or []) + list(defs.asset_checks or [])
    total = len(selection.resolve(defs.resolve_asset_graph()))
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["result"] = dg.materialize(assets, selection=selection, partition_key=partition,
                                               resources=defs.resources, instance=instance, raise_on_error=False,
                                               run_config={"loggers": {"console": {"config": {"log_level": LOG_LEVEL}}}})
        except Exception as exc:  # surfaced to the caller below
            outcome["error"] = exc

    started = time.perf_counter()
    runs_before = {r.run_id for r in instance.get_runs()}
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(0.5)
        if progress:
            done, current = _progress(instance, runs_before)
            progress(label, done, total, current)
    if "error" in outcome:
        raise BuildFailed(f"{label}: {outcome['error']}") from outcome["error"]
    result = outcome["result"]
    report = StageReport(label, seconds=time.perf_counter() - started)
    for event in result.all_events:
        if event.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            report.succeeded.append(event.asset_key.to_user_string())
        elif event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.event_specific_data
            report.checks[f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"] = evaluation.passed
    if progress:
        progress(label, total, total, "")
    if not result.success:
        raise BuildFailed(_failure_message(result, report))
    return report


def _progress(instance: DagsterInstance, runs_before: set[str]) -> tuple[int, str]:
    runs = [r for r in instance.get_runs(limit=5) if r.run_id not in runs_before]
    if not runs:
        return 0, ""
    done, current = 0, ""
    kinds = {DagsterEventType.STEP_START, DagsterEventType.ASSET_MATERIALIZATION}
    for record in instance.all_logs(runs[0].run_id, of_type=kinds):
        event = record.dagster_event
        if event.event_type == DagsterEventType.STEP_START:
            current = event.step_key or ""
        elif event.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            done += 1
    return done, current


def _failure_message(result: dg.ExecuteInProcessResult, report: StageReport) -> str:
    lines = []
    for event in result.all_events:
        if event.event_type == DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            # The user's error is the cause; Dagster's wrapper only says which op raised it.
            root = (error.cause or error) if error else None
            lines.append(f"{event.step_key} failed: {root.message.strip() if root else 'no error recorded'}")
    failed_checks = [name for name, ok in report.checks.items() if not ok]
    if failed_checks:
        lines.append("blocking checks failed: " + ", ".join(failed_checks))
    return f"{report.label}: " + ("; ".join(lines) or "run failed")
