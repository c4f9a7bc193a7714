"""Run the ``build`` job in one run, with progress drawn from Dagster's event stream.

In-process (the default), progress comes from a Dagster logger (:func:`event_logger`) added to the
job for this run: Dagster hands every event of the run to its loggers as it happens, in the thread
executing the step, so the callback sees STEP_START, ASSET_MATERIALIZATION, ASSET_CHECK_EVALUATION
and STEP_FAILURE in order, with nothing polling the run storage. Under Dagster's multiprocess
executor (:class:`Processes`) loggers run in the step processes, so the same events are read back,
in order, from the run's persistent instance, where those processes store them. Either way a
failed step or a failed blocking check stops what depends on it (Dagster skips it) and fails the
build with the root cause of each failure.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
from dagster import DagsterEvent, DagsterEventType
from dagster._core.log_manager import get_log_record_metadata, has_log_record_metadata
from dagster._serdes import ConfigurableClassData

from assets.factories import register_shards, shard_tags
from pipelines.build_plan import JOB
from pipelines.shards import shard_names
from pipelines.warehouse import TEMP_SUFFIX
from pipelines.workers import kept_pools

TRACKED = (DagsterEventType.STEP_START, DagsterEventType.ASSET_MATERIALIZATION,
           DagsterEventType.ASSET_CHECK_EVALUATION, DagsterEventType.STEP_FAILURE)
# A multiprocess run's own instance: nothing but the run's storage (the ephemeral instance of an in-process
# run captures no step output either: the build log has every record).
LOCAL_INSTANCE = {"compute_logs": {"module": "dagster._core.storage.noop_compute_log_manager",
                                   "class": "NoOpComputeLogManager"},
                  "telemetry": {"enabled": False}}
POLL_S = 0.2  # how often a multiprocess run's events are read back from the instance


class BuildFailed(RuntimeError):
    pass


@dataclass
class BuildReport:
    """What a build selected and, as its events arrive, what it did."""

    groups: dict[str, list[str]]  # asset group -> selected assets, groups in graph order
    step_groups: dict[str, str] = field(default_factory=dict)  # step key -> its group
    succeeded: list[str] = field(default_factory=list)  # assets materialised, in order
    checks: dict[str, bool] = field(default_factory=dict)  # "asset:check" -> passed
    check_findings: dict[str, str] = field(default_factory=dict)  # failed "asset:check" -> what it found
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

    def absorb(self, later: BuildReport) -> None:
        """Add what a later run of the same build did (`clinverse build --incremental` makes two)."""
        for group, keys in later.groups.items():
            self.groups.setdefault(group, []).extend(k for k in keys if k not in self.groups[group])
        self.step_groups.update(later.step_groups)
        for key in later.succeeded:
            self.record(key)
        self.checks.update(later.checks)
        self.check_findings.update(later.check_findings)
        self.failures.extend(later.failures)
        self.step_seconds.update(later.step_seconds)
        self.asset_metrics.update(later.asset_metrics)
        self.asset_step.update(later.asset_step)
        self.seconds += later.seconds

    def record(self, key: str) -> None:
        """An asset materialised (a run of several shards reports one per shard: counted once)."""
        if key not in self.succeeded:
            self.succeeded.append(key)

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
            self.record(key)
            self.asset_step[key] = event.step_key or ""
            metadata = event.step_materialization_data.materialization.metadata
            self.asset_metrics[key] = {name: value.value for name, value in metadata.items() if _numeric(value.value)}
        elif event.event_type == DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.event_specific_data
            name = f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"
            self.checks[name] = evaluation.passed
            if not evaluation.passed:
                self.check_findings[name] = _findings(evaluation.metadata)
        elif event.event_type == DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            # The user's error is the cause; Dagster's wrapper only says which op raised it.
            root = (error.cause or error) if error else None
            self.failures.append(f"{event.step_key} failed: {_plain(root) if root else 'no error recorded'}")

    def failure_message(self) -> str:
        lines = list(self.failures)
        failed_checks = [name for name, ok in self.checks.items() if not ok]
        if failed_checks:
            lines.append("blocking checks failed: " + ", ".join(
                f"{name} ({self.check_findings[name]})" if self.check_findings.get(name) else name
                for name in failed_checks))
        return "; ".join(lines) or "run failed"


FINDING_EXAMPLES = 3  # example lines of a failed check quoted in the build's error


def _numeric(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _findings(metadata: Mapping[str, Any]) -> str:
    """A failed check's metadata in a line: its non-zero counts, then its first examples."""
    counts = [f"{name}={entry.value}" for name, entry in metadata.items() if _numeric(entry.value) and entry.value]
    text = metadata["examples"].value if "examples" in metadata else ""
    examples = [line for line in text.splitlines() if line.strip() and line != "none"][:FINDING_EXAMPLES]
    return "; ".join([", ".join(counts), *examples]).strip("; ")


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


@dataclass(frozen=True)
class Processes:
    """Run each step in a process of its own, Dagster's multiprocess executor, at most ``max_concurrent``
    at once. Definitions cannot cross a process boundary, so every process makes them again:
    ``definitions`` (``module:function``, at module level) called with ``kwargs`` (JSON values) must
    give the Definitions passed to :func:`run`.

    Step processes fork from a forkserver that has imported the runner, that module, ``preload`` and
    the instance's storage once (importing them in each process would cost seconds per step). The
    forkserver is started by the first multiprocess run of a process, with that run's imports, and
    serves every later one."""

    definitions: str
    kwargs: Mapping[str, Any]
    max_concurrent: int
    preload: tuple[str, ...] = ()


def materialize(assets: Sequence[Any], shards: Sequence[str] = shard_names(1),
                instance: dg.DagsterInstance | None = None, **kwargs: Any) -> dg.ExecuteInProcessResult:
    """``dg.materialize`` (same keywords) in one run over the subject shards ``shards``: the per-shard
    assets need their shards registered in the instance and the run's partition range."""
    instance = instance or dg.DagsterInstance.ephemeral()
    register_shards(instance, shards)
    return dg.materialize(assets, instance=instance, tags={**kwargs.pop("tags", {}), **shard_tags(shards)}, **kwargs)


def every_shard(defs: dg.Definitions) -> tuple[str, ...]:
    """Every shard of the settings of the definitions' ``clinverse`` resource (one shard for
    definitions without it, which hold no per-shard asset)."""
    clinverse = (defs.resources or {}).get("clinverse")
    return shard_names(clinverse.settings().shards if clinverse is not None else 1)


def run(defs: dg.Definitions, select: dg.AssetSelection | None = None, progress: ProgressFn | None = None,
        log_level: str = "INFO", job: str = JOB, instance: dg.DagsterInstance | None = None,
        log_file: Path | None = None, scratch: Path | None = None, processes: Processes | None = None,
        shards: Sequence[str] | None = None) -> BuildReport:
    """Materialise the job (narrowed by ``select``) in one run over the subject shards ``shards`` (a
    consecutive range: by default every shard of the build's settings, :func:`every_shard`; a rebuild
    passes the ones it needs); raise BuildFailed on a failed step or blocking check. ``progress`` gets every tracked event as it happens. With ``log_file``, the
    terminal gets only the assets' messages and the file gets the whole log. The run is in this
    process, or with ``processes``, under the multiprocess executor (the same events, read back from
    the instance's event log, which the step processes write).

    Without ``instance`` the run gets one of its own (in-process: ephemeral; multiprocess: persistent,
    which that executor needs) whose local artifact folder is a system temporary folder, or with
    ``scratch`` (the warehouse home) a hidden ``.partial`` folder in it: removed after the run, and if
    the run is killed, by the next build's sweep (pipelines.warehouse)."""
    report = plan(defs, select, job)
    selected = [dg.AssetKey.from_user_string(k) for keys in report.groups.values() for k in keys]
    if not selected:
        raise BuildFailed(f"{job}: the selection matches no asset of the job")

    def on_event(event: DagsterEvent) -> None:
        report.observe(event)  # STEP_SUCCESS too (step_seconds), which progress does not get
        if progress and event.event_type in TRACKED:
            progress(event, report)

    asset_selection = selected if select is not None else None
    started = time.perf_counter()
    with ExitStack() as stack:
        if instance is None:
            artifacts = tempfile.mkdtemp(prefix=".dagster-", suffix=TEMP_SUFFIX, dir=scratch)
            stack.callback(shutil.rmtree, artifacts, ignore_errors=True)
            instance = stack.enter_context(dg.DagsterInstance.ephemeral(tempdir=artifacts) if processes is None
                                           else dg.DagsterInstance.local_temp(artifacts, overrides=LOCAL_INSTANCE))
        shards = shards or every_shard(defs)
        try:
            register_shards(instance, shards)
            if processes is None:
                # The steps share the run's worker processes (the note NLP's, ClinLab's and the stress
                # test's pools), started once each, not once per step; they end with the run.
                with kept_pools():
                    succeeded = _run_here(defs.resolve_job_def(job), log_level, log_file, instance, on_event,
                                          asset_selection, shard_tags(shards))
            else:
                succeeded = _run_in_processes(processes, job, log_level, log_file, instance, on_event,
                                              asset_selection, shard_tags(shards))
        except Exception as exc:  # a framework error before any step: surfaced with its message
            raise BuildFailed(f"{job}: {exc}") from exc
    report.seconds = time.perf_counter() - started
    report.current = ""
    if not succeeded:
        raise BuildFailed(report.failure_message())
    return report


def _loggers(log_level: str, log_file: Path | None) -> tuple[dict[str, dg.LoggerDefinition], dict]:
    """The run's loggers and their run config: Dagster's console logger, or with ``log_file`` the
    assets' messages to the terminal and the whole log to the file."""
    if log_file is None:
        return {"console": dg.colored_console_logger}, {"console": {"config": {"log_level": log_level}}}
    return {"console": quiet_console_logger(log_level), "file": file_logger(log_file)}, {"console": {}, "file": {}}


def _run_here(job_def: dg.JobDefinition, log_level: str, log_file: Path | None, instance: dg.DagsterInstance,
              on_event: Callable[[DagsterEvent], None], asset_selection: list[dg.AssetKey] | None,
              tags: Mapping[str, str]) -> bool:
    """The run in this process; its events reach ``on_event`` through a logger, as they happen."""
    loggers, logger_config = _loggers(log_level, log_file)
    job_def = job_def.with_logger_defs({**loggers, "events": event_logger(on_event)})
    result = job_def.execute_in_process(run_config={"loggers": {**logger_config, "events": {}}}, instance=instance,
                                        raise_on_error=False, asset_selection=asset_selection, tags=dict(tags))
    return result.success


def _run_in_processes(processes: Processes, job: str, log_level: str, log_file: Path | None,
                      instance: dg.DagsterInstance, on_event: Callable[[DagsterEvent], None],
                      asset_selection: list[dg.AssetKey] | None, shards: Mapping[str, str]) -> bool:
    """The run under the multiprocess executor. Loggers run in the step processes, so its events reach
    ``on_event`` from the instance's event log, where those processes store them."""
    recon = dg.build_reconstructable_job(__name__, step_job.__name__, reconstructable_kwargs={
        "definitions": processes.definitions, "kwargs": json.dumps(dict(processes.kwargs)), "job": job,
        "log_level": log_level, "log_file": None if log_file is None else str(log_file)})
    preload = [__name__, processes.definitions.split(":")[0], *processes.preload, *_instance_modules(instance)]
    executor = {"max_concurrent": processes.max_concurrent,
                "start_method": {"forkserver": {"preload_modules": preload}}}
    tags = {"clinverse/run": uuid.uuid4().hex, **shards}  # the first finds this run in an instance that may hold others
    with _stored_events(instance, tags, on_event):
        result = dg.execute_job(recon, instance, tags=tags, asset_selection=asset_selection, run_config={
            "loggers": _loggers(log_level, log_file)[1], "execution": {"config": {"multiprocess": executor}}})
    return result.success


def _instance_modules(instance: dg.DagsterInstance) -> list[str]:
    """The modules of the instance's storage and services (its ref names them), which every step
    process loads to store its events."""
    return [data.module_name for data in instance.get_ref() if isinstance(data, ConfigurableClassData)]


@functools.cache  # Dagster asks a step process for the job more than once; the kwargs are JSON text to be a key
def step_job(definitions: str, kwargs: str, job: str, log_level: str, log_file: str | None) -> dg.JobDefinition:
    """The job as each process of a multiprocess run makes it (:class:`Processes`), with the run's loggers."""
    module, function = definitions.split(":")
    defs = getattr(importlib.import_module(module), function)(**json.loads(kwargs))
    loggers, _ = _loggers(log_level, None if log_file is None else Path(log_file))
    return defs.resolve_job_def(job).with_logger_defs(loggers)


@contextmanager
def _stored_events(instance: dg.DagsterInstance, tags: Mapping[str, str],
                   on_event: Callable[[DagsterEvent], None]) -> Iterator[None]:
    """While the block runs, pass each event stored for the run tagged ``tags`` to ``on_event`` in
    order, from a thread; once it ends, the rest. An error in the thread is raised here."""
    stop, failed = threading.Event(), []

    def follow() -> None:
        run_id, cursor = None, None
        try:
            while True:
                last = stop.wait(POLL_S)  # set before this read: everything was stored
                run_id = run_id or next(iter(instance.get_run_ids(dg.RunsFilter(tags=tags), limit=1)), None)
                if run_id is not None:
                    stored = instance.get_records_for_run(run_id, cursor=cursor)
                    cursor = stored.cursor
                    for record in stored.records:
                        if record.event_log_entry.dagster_event is not None:
                            on_event(record.event_log_entry.dagster_event)
                if last:
                    return
        except Exception as exc:  # noqa: BLE001 - raised in the caller's thread below
            failed.append(exc)

    thread = threading.Thread(target=follow, name="clinverse-run-events", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
    if failed:
        raise failed[0]
