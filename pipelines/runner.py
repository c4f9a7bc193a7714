"""Run the ``build`` job in-process, in one run, with progress drawn from Dagster's event stream.

Progress comes from a Dagster logger (:func:`event_logger`) added to the job for this run: Dagster
hands every event of the run to its loggers as it happens, in the thread executing the step, so
the callback sees STEP_START, ASSET_MATERIALIZATION, ASSET_CHECK_EVALUATION and STEP_FAILURE in
order, with nothing polling the run storage. A failed step or a failed blocking check stops what
depends on it (Dagster skips it) and fails the build with the root cause of each failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import dagster as dg
from dagster import DagsterEvent, DagsterEventType
from dagster._core.log_manager import get_log_record_metadata, has_log_record_metadata

from pipelines.build_plan import JOB

TRACKED = (DagsterEventType.STEP_START, DagsterEventType.ASSET_MATERIALIZATION,
           DagsterEventType.ASSET_CHECK_EVALUATION, DagsterEventType.STEP_FAILURE)


class BuildFailed(RuntimeError):
    pass


@dataclass
class BuildReport:
    """What a build selected and, as its events arrive, what it did."""

    groups: dict[str, list[str]]  # asset group -> selected assets, groups in graph order
    step_groups: dict[str, str] = field(default_factory=dict)  # step key -> its group
    succeeded: list[str] = field(default_factory=list)  # assets materialised, in order
    checks: dict[str, bool] = field(default_factory=dict)  # "asset:check" -> passed
    failures: list[str] = field(default_factory=list)  # "<step> failed: <root cause>"
    current: str = ""  # the step running now
    seconds: float = 0.0

    def done(self, group: str) -> int:
        wanted = set(self.groups.get(group, ()))
        return sum(1 for key in self.succeeded if key in wanted)

    @property
    def current_group(self) -> str | None:
        return self.step_groups.get(self.current)

    def observe(self, event: DagsterEvent) -> None:
        if event.event_type == DagsterEventType.STEP_START:
            self.current = event.step_key or ""
        elif event.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            self.succeeded.append(event.asset_key.to_user_string())
        elif event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.event_specific_data
            self.checks[f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"] = evaluation.passed
        elif event.event_type == DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            # The user's error is the cause; Dagster's wrapper only says which op raised it.
            root = (error.cause or error) if error else None
            self.failures.append(f"{event.step_key} failed: {root.message.strip() if root else 'no error recorded'}")

    def failure_message(self) -> str:
        lines = list(self.failures)
        failed_checks = [name for name, ok in self.checks.items() if not ok]
        if failed_checks:
            lines.append("blocking checks failed: " + ", ".join(failed_checks))
        return "; ".join(lines) or "run failed"


ProgressFn = Callable[[DagsterEvent, BuildReport], None]  # each tracked event, and the report after it


def event_logger(on_event: Callable[[DagsterEvent], None]) -> dg.LoggerDefinition:
    """A Dagster logger passing each DagsterEvent of the run to ``on_event``, synchronously."""
    class _Events(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if has_log_record_metadata(record):
                event = get_log_record_metadata(record).get("dagster_event")
                if event is not None:
                    on_event(event)

    @dg.logger(description="Passes the run's events to a callback (clinverse build's progress).")
    def _logger(_init_context) -> logging.Logger:
        events = logging.Logger("clinverse.events", level=logging.DEBUG)
        events.addHandler(_Events(level=logging.DEBUG))
        return events

    return _logger


def plan(defs: dg.Definitions, select: dg.AssetSelection | None = None, job: str = JOB) -> BuildReport:
    """The assets the job runs (narrowed by ``select``), by group in graph order, before any ran."""
    graph = defs.resolve_asset_graph()
    selected = set(defs.resolve_job_def(job).asset_layer.selected_asset_keys)
    if select is not None:
        selected &= select.resolve(graph)
    groups: dict[str, list[str]] = {}
    for key in graph.toposorted_asset_keys:
        if key in selected:
            groups.setdefault(graph.get(key).group_name, []).append(key.to_user_string())
    step_groups = {}
    for assets_def in [*(defs.assets or []), *(defs.asset_checks or [])]:
        keys = list(assets_def.keys) or [c.asset_key for c in assets_def.check_keys]
        if keys and graph.has(keys[0]):
            step_groups[assets_def.node_def.name] = graph.get(keys[0]).group_name
    return BuildReport(groups, step_groups)


def run(defs: dg.Definitions, select: dg.AssetSelection | None = None, progress: ProgressFn | None = None,
        log_level: str = "INFO", job: str = JOB, instance: dg.DagsterInstance | None = None) -> BuildReport:
    """Materialise the job (narrowed by ``select``) in one in-process run; raise BuildFailed on a
    failed step or blocking check. ``progress`` gets every tracked event as it happens."""
    report = plan(defs, select, job)
    selected = [dg.AssetKey.from_user_string(k) for keys in report.groups.values() for k in keys]
    if not selected:
        raise BuildFailed(f"{job}: the selection matches no asset of the job")

    def on_event(event: DagsterEvent) -> None:
        if event.event_type in TRACKED:
            report.observe(event)
            if progress:
                progress(event, report)

    job_def = defs.resolve_job_def(job).with_logger_defs(
        {"console": dg.colored_console_logger, "events": event_logger(on_event)})
    started = time.perf_counter()
    try:
        result = job_def.execute_in_process(
            run_config={"loggers": {"console": {"config": {"log_level": log_level}}, "events": {}}},
            instance=instance, raise_on_error=False, asset_selection=selected if select is not None else None)
    except Exception as exc:  # a framework error before any step: surfaced with its message
        raise BuildFailed(f"{job}: {exc}") from exc
    report.seconds = time.perf_counter() - started
    report.current = ""
    if not result.success:
        raise BuildFailed(report.failure_message())
    return report
