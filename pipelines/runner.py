"""Run the ``build`` job in-process, in one run, with progress drawn from Dagster's event stream.

Progress comes from a Dagster logger (:func:`event_logger`) added to the job for this run: Dagster
hands every event of the run to its loggers as it happens, in the thread executing the step, so
the callback sees STEP_START, ASSET_MATERIALIZATION, ASSET_CHECK_EVALUATION and STEP_FAILURE in
order, with nothing polling the run storage. A failed step or a failed blocking check stops what
depends on it (Dagster skips it) and fails the build with the root cause of each failure.
"""

from __future__ import annotations

import logging
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg
from dagster import DagsterEvent, DagsterEventType
from dagster._core.log_manager import get_log_record_metadata, has_log_record_metadata

from pipelines.build_plan import JOB
from pipelines.warehouse import TEMP_SUFFIX

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
    # Where the time went (the bench reads them): Dagster's own duration of every step that succeeded,
    # the numeric metadata each asset's materialisation reported (rows, seconds, ...) and its step, and
    # time.perf_counter() when the first step started.
    step_seconds: dict[str, float] = field(default_factory=dict)
    asset_metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    asset_step: dict[str, str] = field(default_factory=dict)
    first_step_at: float | None = None

    def done(self, group: str) -> int:
        wanted = set(self.groups.get(group, ()))
        return sum(1 for key in self.succeeded if key in wanted)

    @property
    def current_group(self) -> str | None:
        return self.step_groups.get(self.current)

    def observe(self, event: DagsterEvent) -> None:
        if event.event_type == DagsterEventType.STEP_START:
            self.current = event.step_key or ""
            if self.first_step_at is None:
                self.first_step_at = time.perf_counter()
        elif event.event_type == DagsterEventType.STEP_SUCCESS:
            self.step_seconds[event.step_key or ""] = event.step_success_data.duration_ms / 1000
        elif event.event_type == DagsterEventType.ASSET_MATERIALIZATION:
            key = event.asset_key.to_user_string()
            self.succeeded.append(key)
            self.asset_step[key] = event.step_key or ""
            metadata = event.step_materialization_data.materialization.metadata
            self.asset_metrics[key] = {name: value.value for name, value in metadata.items()
                                       if isinstance(value.value, (int, float)) and not isinstance(value.value, bool)}
        elif event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.event_specific_data
            self.checks[f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"] = evaluation.passed
        elif event.event_type == DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            # The user's error is the cause; Dagster's wrapper only says which op raised it.
            root = (error.cause or error) if error else None
            self.failures.append(f"{event.step_key} failed: {_plain(root) if root else 'no error recorded'}")

    def failure_message(self) -> str:
        lines = list(self.failures)
        failed_checks = [name for name, ok in self.checks.items() if not ok]
        if failed_checks:
            lines.append("blocking checks failed: " + ", ".join(failed_checks))
        return "; ".join(lines) or "run failed"


def _plain(error) -> str:
    """An error's message; our own errors (``pipelines.sources.errors.SourceError``) are written for
    the user and lose their class path, any other keeps its class name (``ValueError: ...``)."""
    return re.sub(r"^pipelines\.[\w.]+: ", "", error.message.strip())


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


def quiet_console_logger(log_level: str) -> dg.LoggerDefinition:
    """The terminal's logger during `clinverse build`: the assets' own messages at ``log_level`` and
    above, none of Dagster's framework events (a failure would bury its cause under a hundred lines of
    step events and tracebacks; the CLI prints the root cause last, and the full log goes to a file)."""
    @dg.logger(description="Asset messages only, to stderr.")
    def _logger(_init_context) -> logging.Logger:
        console = logging.Logger("clinverse.console", level=logging.getLevelName(log_level.upper()))
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_AssetMessage())
        handler.addFilter(_is_asset_message)
        console.addHandler(handler)
        return console

    return _logger


def _is_asset_message(record: logging.LogRecord) -> bool:
    """An asset's own message up to WARNING: not a framework event, and not an engine error about a
    failed or skipped step (the CLI reports failures once, at the end)."""
    if not has_log_record_metadata(record):
        return record.levelno <= logging.WARNING
    return record.levelno <= logging.WARNING and get_log_record_metadata(record).get("dagster_event") is None


class _AssetMessage(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = (get_log_record_metadata(record)["orig_message"] if has_log_record_metadata(record)
                else record.getMessage())
        return f"{record.levelname.lower()}: {text}"


def file_logger(path: Path) -> dg.LoggerDefinition:
    """Every record of the run, Dagster's events and tracebacks included, to ``path``."""
    @dg.logger(description="The whole run log, to a file.")
    def _logger(_init_context) -> logging.Logger:
        path.parent.mkdir(parents=True, exist_ok=True)
        log = logging.Logger("clinverse.file", level=logging.DEBUG)
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        return log

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
        log_level: str = "INFO", job: str = JOB, instance: dg.DagsterInstance | None = None,
        log_file: Path | None = None, scratch: Path | None = None) -> BuildReport:
    """Materialise the job (narrowed by ``select``) in one in-process run; raise BuildFailed on a
    failed step or blocking check. ``progress`` gets every tracked event as it happens. With
    ``log_file``, the terminal gets only the assets' messages and the file gets the whole log.

    Without ``instance`` the run gets an ephemeral one, whose local artifact folder is a system
    temporary folder, or with ``scratch`` (the warehouse home) a hidden ``.partial`` folder in it:
    removed after the run, and if the run is killed, by the next build's sweep (pipelines.warehouse)."""
    report = plan(defs, select, job)
    selected = [dg.AssetKey.from_user_string(k) for keys in report.groups.values() for k in keys]
    if not selected:
        raise BuildFailed(f"{job}: the selection matches no asset of the job")

    def on_event(event: DagsterEvent) -> None:
        report.observe(event)  # STEP_SUCCESS too (step_seconds), which progress does not get
        if progress and event.event_type in TRACKED:
            progress(event, report)

    loggers = {"events": event_logger(on_event)}
    logger_config: dict = {"events": {}}
    if log_file is None:
        loggers["console"] = dg.colored_console_logger
        logger_config["console"] = {"config": {"log_level": log_level}}
    else:
        loggers |= {"console": quiet_console_logger(log_level), "file": file_logger(log_file)}
        logger_config |= {"console": {}, "file": {}}
    job_def = defs.resolve_job_def(job).with_logger_defs(loggers)
    started = time.perf_counter()
    with ExitStack() as stack:
        if instance is None and scratch is not None:
            artifacts = tempfile.mkdtemp(prefix=".dagster-", suffix=TEMP_SUFFIX, dir=scratch)
            stack.callback(shutil.rmtree, artifacts, ignore_errors=True)
            instance = stack.enter_context(dg.DagsterInstance.ephemeral(tempdir=artifacts))
        try:
            result = job_def.execute_in_process(
                run_config={"loggers": logger_config},
                instance=instance, raise_on_error=False, asset_selection=selected if select is not None else None)
        except Exception as exc:  # a framework error before any step: surfaced with its message
            raise BuildFailed(f"{job}: {exc}") from exc
    report.seconds = time.perf_counter() - started
    report.current = ""
    if not result.success:
        raise BuildFailed(report.failure_message())
    return report
