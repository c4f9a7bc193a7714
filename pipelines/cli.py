"""`clinverse`: generate demo sources, build the warehouse, query it.

Thin by design: the CLINVERSE_* variables are read once (pipelines.config), the flags override
them, and the result goes into the Dagster resources of one Definitions; the build runs the
``build`` job in-process, or under Dagster's multiprocess executor (pipelines.runner), and results
are printed. The environment is never written, so `dagster dev` and the CLI read the same
variables the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipelines import config
from pipelines.sources.registry import SOURCES

console = Console(stderr=True)

DEMO_ADMISSIONS = 200


def _generate_demo(out: Path, admissions: int, seed: int) -> dict[str, int]:
    """The embedded demo generator behind a progress bar (used by `demo-data` and by `build`)."""
    from pipelines.demo import generate_demo

    with Progress(TextColumn("demo sources"), BarColumn(), TextColumn("{task.completed}/{task.total} admissions"),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("generate", total=admissions)
        return generate_demo(out, admissions=admissions, seed=seed,
                             progress=lambda done, total: bar.update(task, completed=done, total=total))


def _demo_data(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    written = _generate_demo(out, args.admissions, args.seed)
    table = Table("file", "rows", title=f"demo sources in {out}")
    for name, rows in sorted(written.items()):
        table.add_row(name, f"{rows:,}")
    Console().print(table)
    return 0


def _flag_values(args: argparse.Namespace) -> dict[str, object]:
    """The settings the flags give (``field -> value``); unset flags give nothing."""
    values: dict[str, object] = {}
    if args.home:
        values["home"] = str(Path(args.home).resolve())
    for source in SOURCES:
        given = getattr(args, source.field)
        if given:
            paths = given if isinstance(given, list) else [given]
            values[source.field] = os.pathsep.join(str(Path(p).resolve()) for p in paths)
    if args.seed is not None:
        values["seed"] = args.seed
    return values


def _ensure_sources(values: dict[str, object], admissions: int) -> dict[str, object]:
    """With no source configured, generate the embedded demo under HOME/demo-sources and use it."""
    settings = config.Settings.from_values(values)
    if settings.configured_sources():
        return values
    out = settings.home / "demo-sources"
    marker = out / ".clinverse-demo"
    stamp = f"admissions={admissions} seed={settings.seed}"
    if not marker.exists() or marker.read_text() != stamp:
        console.print(f"[bold]no source configured[/]: generating the embedded demo ({admissions} admissions) in {out}")
        # The files are rewritten in place: the marker goes first, so a build killed part-way leaves
        # none and the next build regenerates instead of reading half of one demo and half of another.
        marker.unlink(missing_ok=True)
        _generate_demo(out, admissions, settings.seed)
        marker.write_text(stamp)
    return {**values, **{source.field: source.demo_location(out) for source in SOURCES}}


def build_log(home: Path, generation) -> Path:
    """Where a build's whole Dagster log goes (the terminal shows only the assets' own messages)."""
    return home / "logs" / f"build-{generation.generation}.log"


def build(clinverse, synthea, select: str | None = None, show_progress: bool = True, log_level: str = "INFO",
          executor: str = "in_process", max_concurrent: int | None = None, incremental: bool = False):
    """Materialise the ``build`` job (narrowed by ``select``) for the settings in the resources, with
    a progress bar per asset group; returns the runner's BuildReport (BuildFailed on a failed step or
    check). ``executor``: ``in_process`` (one process) or ``multiprocess`` (Dagster's multiprocess
    executor, at most ``max_concurrent`` steps at once, default the CPUs available).

    ``incremental``: stage the sources and make the case skeleton and every shard's input digest
    (pipelines.incremental) in a first run, then in a second run the per-shard steps of only the shards
    whose digest is not the published build's (their span: :func:`pipelines.incremental.span`) and the
    cohort-wide steps after them; the other shards' files stay as published. Without a published
    ``shard_inputs`` (a first build) every shard has changed.

    The run writes a new build generation of the warehouse (pipelines.warehouse), published in one
    atomic swap when every step and blocking check passed and discarded otherwise, so a build either
    publishes a consistent set of tables or leaves the previous good set in place."""
    import dagster as dg

    from pipelines import incremental as shard_changes
    from pipelines import runner
    from pipelines.build_plan import INPUTS, after_inputs, make_definitions
    from pipelines.warehouse import Warehouse

    if incremental and select:
        raise ValueError("--incremental decides what to run; leave out --select")
    settings = clinverse.settings()
    settings.home.mkdir(parents=True, exist_ok=True)
    published = Warehouse(settings.home)
    generation = published.begin_build()  # holds the home's build lock until published or discarded
    try:
        clinverse = type(clinverse)(**clinverse.field_values(), generation=generation.generation)
        resources = {"clinverse": clinverse, "synthea": synthea}
        defs = make_definitions(settings, resources)
        processes = _processes(resources, max_concurrent) if executor == "multiprocess" else None
        names = runner.every_shard(defs)

        def run(selection, shards):
            return _run_with_progress(defs, selection, shards, show_progress, log_level, settings.home,
                                      build_log(settings.home, generation), processes)

        if not incremental:
            report = run(dg.AssetSelection.from_string(select) if select else None, names)
        else:
            report = run(INPUTS, names)
            changed = shard_changes.changed_shards(shard_changes.digests(published.read_or_empty(shard_changes.TABLE)),
                                                   shard_changes.digests(generation.read(shard_changes.TABLE)))
            rerun = shard_changes.span(changed, names)
            console.print(f"shards with new inputs: {', '.join(changed) or 'none'} of {len(names)}"
                          + (f"; re-running {rerun[0]}..{rerun[-1]}" if rerun else ""))
            if rerun:
                report.absorb(run(after_inputs(defs.resolve_asset_graph()), rerun))
    except BaseException:  # a failed step or check, a bad selection, Ctrl-C: the published tables stay as they were
        published.discard_build(generation)
        raise
    published.publish_build(generation)
    return report


def _run_with_progress(defs, selection, shards, show_progress: bool, log_level: str, home: Path, log_file: Path,
                       processes):
    """One run of the build job over ``shards``, with a progress bar per asset group (its scratch
    folder in ``home``, its whole log in ``log_file``)."""
    from pipelines import runner

    planned = runner.plan(defs, selection)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total} assets"), TextColumn("{task.fields[current]}"),
                  TimeElapsedColumn(), console=console, disable=not show_progress) as bar:
        tasks = {group: bar.add_task(group, total=len(keys), current="") for group, keys in planned.groups.items()}

        def update(_event, report: runner.BuildReport) -> None:
            for group, task in tasks.items():
                bar.update(task, completed=report.done(group),
                           current=report.current if report.current_group == group else "")

        try:
            return runner.run(defs, selection, update, log_level, log_file=log_file,
                              scratch=home, processes=processes, shards=shards)
        finally:
            for task in tasks.values():
                bar.update(task, current="")


def _processes(resources: dict, max_concurrent: int | None):
    """The multiprocess executor's steps, each process making this build's Definitions again from the
    resources' values (the generation included, so every step writes the same unpublished tables).
    Preloaded: the asset modules, the libraries their steps import on use, and this one, which
    multiprocessing imports again in each process as the parent's main module (`python -m
    pipelines.cli`, or the `clinverse` script importing it)."""
    from pipelines import build_plan, runner
    from pipelines.resources import resource_values

    return runner.Processes(f"{build_plan.__name__}:{build_plan.definitions_from_values.__name__}",
                            {"resources": resource_values(resources)}, max_concurrent or config.default_workers(),
                            preload=(*build_plan.asset_module_names(), *build_plan.STEP_LIBRARIES, __name__))


def _build(args: argparse.Namespace) -> int:
    from pipelines.resources import ClinverseResource, SyntheaResource
    from pipelines.runner import BuildFailed
    from pipelines.sources.errors import location_problems
    from pipelines.warehouse import Warehouse, WarehouseError

    try:
        config.duckdb_memory()  # read by every step's DuckDB connection: a bad value stops the build here
        values = _ensure_sources({**config.environment_values("build"), **_flag_values(args)}, args.admissions)
        clinverse = ClinverseResource.from_values(values)
        synthea = SyntheaResource.from_values(config.environment_values("synthea"))
        settings = clinverse.settings()
        log_level = config.log_level()
        executor, max_concurrent = config.executor(args.executor), config.max_concurrent(args.max_concurrent)
    except config.SettingError as exc:
        console.print(f"[bold red]setting not readable[/]: {exc}")
        return 2
    problems = location_problems(settings)
    if problems:
        for problem in problems:
            console.print(f"[bold red]source not found[/]: {problem}")
        return 2
    how = f" ({max_concurrent} steps at once)" if executor == "multiprocess" else ""
    console.print(f"[bold]building[/] {', '.join(settings.configured_sources())} into {settings.home}{how}")
    try:
        report = build(clinverse, synthea, args.select, log_level=log_level, executor=executor,
                       max_concurrent=max_concurrent, incremental=args.incremental)
    except (BuildFailed, WarehouseError) as exc:  # WarehouseError: another build holds the home
        published = Warehouse(settings.home).published_at()
        kept = (f"nothing was published; the tables of the previous build ({published}) are still in place"
                if published else "nothing was published")
        logs = sorted((settings.home / "logs").glob("build-*.log"))
        console.print(f"[bold red]build failed[/]: {exc}\n{kept}"
                      + (f"\nthe whole log (Dagster events, tracebacks): {logs[-1]}" if logs else ""))
        return 1
    failed = [name for name, ok in report.checks.items() if not ok]
    console.print(f"materialised {len(report.succeeded)} assets in {report.seconds:.0f} s; "
                  f"{len(report.checks) - len(failed)}/{len(report.checks)} checks passed")
    _print_summary(Warehouse(settings.home))
    return 0


def _print_summary(warehouse) -> None:
    out = Console()
    tables = Table("table", "rows", title=f"warehouse {warehouse.home}")
    for name in warehouse.tables():
        tables.add_row(name, f"{warehouse.rows(name):,}")
    out.print(tables)
    if warehouse.exists("cases"):
        per_source = warehouse.query(
            "SELECT source, dataset, count(*) AS cases, count(DISTINCT primary_icd10_category) AS categories, "
            "sum(n_units) AS units, sum(n_exams) AS exams FROM cases GROUP BY ALL ORDER BY source"
        )
        out.print(_frame_table(per_source, "cases per source"))
    if warehouse.exists("stress_test"):
        _print_rates(out, warehouse)
    if warehouse.exists("clinlab_eval"):
        overall = warehouse.query("SELECT * EXCLUDE (exam_name) FROM clinlab_eval WHERE exam_name = 'ALL' "
                                  "ORDER BY predictor")
        out.print(_frame_table(overall, "ClinLab on held-out test-split lab values (all labs)", digits=4))
    out.print(f'query it: clinverse query --home {warehouse.home} "SELECT * FROM cases LIMIT 5"')


def _print_rates(out: Console, warehouse) -> None:
    from pipelines.episodes.stress import stress_rates

    out.print(_frame_table(stress_rates(warehouse.read("stress_test")), "boundary stress test (patient simulator)",
                           digits=3))


def _frame_table(frame, title: str | None = None, digits: int | None = None) -> Table:
    """A frame as a rich table: nulls empty, floats to ``digits`` places when given."""
    def cell(value) -> str:
        if value is None:
            return ""
        return f"{value:.{digits}f}" if digits is not None and isinstance(value, float) else str(value)

    table = Table(*frame.columns, title=title)
    for row in frame.iter_rows():
        table.add_row(*map(cell, row))
    return table


def _json_nested(frame):
    """CSV has no lists or structs: write them as JSON text (e.g. acceptable_names)."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return frame.with_columns(
        pl.Series(name, [json.dumps(v, default=str) for v in frame[name].to_list()], dtype=pl.Utf8) for name in nested
    )


def _query(args: argparse.Namespace) -> int:
    import schemas
    from pipelines.warehouse import Warehouse, WarehouseError

    warehouse = Warehouse(_home(args))
    try:
        frame = warehouse.query(args.sql, restricted=args.restricted)
    except WarehouseError as exc:
        console.print(f"[bold red]{exc}[/]")
        return 2
    except Exception as exc:  # DuckDB errors: bad SQL, write attempts on the read-only connection
        hidden = [t for t in warehouse.tables() if schemas.restricted(t) and t in args.sql]
        hint = (f"\n{', '.join(hidden)}: restricted (no view by default); --restricted opens them for authorised use"
                if hidden and not args.restricted else "")
        console.print(f"[bold red]query failed[/]: {exc}{hint}")
        return 1
    if args.format == "csv":
        sys.stdout.write(_json_nested(frame).write_csv())
    elif args.format == "json":
        sys.stdout.write(json.dumps(frame.to_dicts(), default=str, indent=1) + "\n")
    else:
        Console().print(_frame_table(frame))
        console.print(f"{frame.height} row(s)")
    return 0


def _show(args: argparse.Namespace) -> int:
    from pipelines.episodes.dossier import case_dossier
    from pipelines.episodes.store import CaseStore
    from pipelines.warehouse import WarehouseError

    if not args.case_ids and not args.split:
        console.print("[bold red]name case ids, or --split train|test for all of a split's cases[/]")
        return 2
    home = _home(args)
    try:
        store = CaseStore.from_home(home)
    except WarehouseError as exc:
        console.print(f"[bold red]{exc}[/]")
        return 2
    unknown = sorted(set(args.case_ids) - set(store.case_ids()))
    if unknown:
        console.print(f"[bold red]no kept case {', '.join(unknown)} in {home}[/] (excluded ones: "
                      "clinverse query \"SELECT * FROM excluded_cases WHERE case_id = '...'\")")
        return 2
    chosen = args.case_ids or store.case_ids(args.split)
    sys.stdout.write("\n".join(case_dossier(store.case(c)) for c in chosen))
    return 0


def _home(args: argparse.Namespace) -> Path:
    return Path(args.home or config.environment_values("build").get("home") or "warehouse").resolve()


def _episodes(args: argparse.Namespace) -> int:
    from pipelines.episodes.llm.config import LLMConfig
    from pipelines.episodes.llm.egress import EgressRefused
    from pipelines.episodes.runs import RunSpec, run_and_export
    from pipelines.episodes.store import CaseStore
    from pipelines.warehouse import Warehouse, WarehouseError

    try:
        spec = RunSpec(doctor=args.doctor, patient=args.patient, preset=args.preset, split=args.split, cases=args.cases,
                       condition=args.condition, seed=args.seed, run_id=args.run_id, consultant=args.consultant,
                       memory=args.memory, memory_from=args.memory_from, memory_k=args.memory_k,
                       manager=args.manager)
        llm = LLMConfig.from_env() if spec.llm_roles or spec.manager == "llm" else None
        if llm is not None:  # an unconfigured role fails before the cases load
            llm.models(spec.llm_roles + (("manager",) if spec.manager == "llm" else ()))
        warehouse = Warehouse(_home(args))
        store = CaseStore.from_warehouse(warehouse)
    except (ValueError, KeyError, config.SettingError, WarehouseError) as exc:
        console.print(f"[bold red]episodes not started[/]: {exc}")
        return 2
    with Progress(TextColumn(f"[bold]{spec.id}"), BarColumn(), TextColumn("{task.completed}/{task.total} episodes"),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("episodes", total=None)
        try:
            written, summary, export = run_and_export(
                warehouse, store, spec, progress=lambda done, total: bar.update(task, completed=done, total=total),
                llm=llm)
        except (ValueError, EgressRefused) as exc:
            console.print(f"[bold red]episodes not run[/]: {exc}")
            return 2
        bar.update(task, completed=written.total, total=written.total)
    table = Table("", "value", title=f"run {written.run_id} ({written.new} new, {written.resumed} resumed)")
    for name, value in summary.items():  # one row per figure: the scores make it too wide for one line
        table.add_row(name, str(value))
    Console().print(table)
    console.print(f"traces: {export}")
    return 0


def _cross_validate(args: argparse.Namespace) -> int:
    from pipelines.episodes.crossval import accuracy, cross_validate
    from pipelines.episodes.doctors import DOCTORS
    from pipelines.episodes.store import CaseStore
    from pipelines.warehouse import WarehouseError

    doctors = [d.strip() for d in args.doctors.split(",") if d.strip()]
    unknown = sorted(set(doctors) - set(DOCTORS))
    try:
        if unknown or not doctors:
            raise ValueError(f"unknown offline doctor(s) {unknown or doctors}; known: {sorted(DOCTORS)}")
        store = CaseStore.from_home(_home(args))
    except (ValueError, KeyError, WarehouseError) as exc:
        console.print(f"[bold red]cross-validation not run[/]: {exc}")
        return 2
    with Progress(TextColumn("[bold]cross-validation"), BarColumn(), TextColumn("{task.completed}/{task.total} runs"),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("folds", total=None)
        try:  # too many or too few folds fail first, before anything is fitted (CaseStore.folds)
            rewards = cross_validate(store, doctors, args.folds, tuple(range(1, args.seeds + 1)), args.preset,
                                     progress=lambda done, total: bar.update(task, completed=done, total=total))
        except ValueError as exc:
            console.print(f"[bold red]cross-validation not run[/]: {exc}")
            return 2
    table = Table("doctor", "cases", "episodes", "block accuracy", "per fold",
                  title=f"{args.folds}-fold cross-validation over patients, {args.seeds} seed(s), preset {args.preset}")
    for row in accuracy(rewards).iter_rows(named=True):
        table.add_row(row["doctor"], str(row["cases"]), str(row["episodes"]), f"{row['accuracy']:.4f}",
                      " ".join(f"{a:.3f}" for a in row["fold_accuracy"]))
    Console().print(table)
    return 0


def _stress_test(args: argparse.Namespace) -> int:
    from pipelines.resources import ClinverseResource, SyntheaResource
    from pipelines.runner import BuildFailed
    from pipelines.warehouse import Warehouse

    home = _home(args)
    clinverse = ClinverseResource.from_values({**config.environment_values("build"), "home": str(home)})
    try:
        build(clinverse, SyntheaResource.from_values(config.environment_values("synthea")), "key:stress_test",
              log_level=config.log_level())
    except BuildFailed as exc:
        console.print(f"[bold red]stress test failed[/]: {exc}")
        return 1
    _print_rates(Console(), Warehouse(home))
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    import polars as pl

    from pipelines.episodes.llm.config import LLMConfig
    from pipelines.episodes.llm.egress import EgressRefused
    from pipelines.episodes.store import CaseStore
    from pipelines.evaluation.protocols import run_study, study_order
    from pipelines.report.page import write_report
    from pipelines.warehouse import Warehouse, WarehouseError

    try:
        order = study_order([args.protocol])
        llm = None
        if args.doctor == "llm":
            llm = LLMConfig.from_env()
            llm.role("doctor")  # an unconfigured doctor fails here, before any episode
        warehouse = Warehouse(_home(args))
        store = CaseStore.from_warehouse(warehouse)
    except (KeyError, ValueError, WarehouseError, config.SettingError) as exc:
        console.print(f"[bold red]evaluation not started[/]: {exc}")
        return 2
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task(", ".join(order), total=None)

        def progress(label: str, done: int, total: int) -> None:
            bar.update(task, description=f"{label} ({args.doctor})", completed=done, total=total)

        try:
            study = run_study(warehouse, store, order, doctor=args.doctor, preset=args.preset, seed=args.seed,
                              stages=args.stages, progress=progress, llm=llm, models=args.model or (),
                              cases=args.cases)
        except (ValueError, EgressRefused) as exc:
            console.print(f"[bold red]evaluation not run[/]: {exc}")
            return 2
    arms = Table("condition", "run", "episodes", "S", "U", "block accuracy", title=f"study: {', '.join(order)}")
    for label, summary in study.summaries.items():
        arms.add_row(label, study.runs[label], str(summary["episodes"]), str(summary.get("mean_s", "")),
                     str(summary.get("mean_u", "")), str(summary["block_accuracy"]))
    tests = Table("family", "comparison", "endpoint", "n", "effect", "95 % interval", "p (Holm)",
                  title="paired statistics (stat_tests)")
    shown = ["score_s", "utility_u", "n_error_turns", "any_error_turn"]
    for row in study.stat_tests.filter(pl.col("endpoint").is_in(shown)).iter_rows(named=True):
        interval = "" if row["ci_low"] is None else f"{row['ci_low']:.3f} .. {row['ci_high']:.3f}"
        tests.add_row(row["family"], row["comparison"], row["endpoint"], str(row["n"]),
                      "" if row["effect"] is None else f"{row['effect']:.3f}", interval,
                      "" if row["p_holm"] is None else f"{row['p_holm']:.3g}")
    out = Console()
    out.print(arms)
    out.print(tests)
    if study.bwt.height:
        out.print(_frame_table(study.bwt, title="backward transfer (BWT)", digits=3))
    written = write_report(warehouse.home, warehouse.home / "reports" / "evaluation.html")
    console.print(f"report: {written.path}")
    return 0


def _rejudge(args: argparse.Namespace) -> int:
    from pipelines.episodes.llm.config import LLMConfig
    from pipelines.episodes.llm.egress import EgressRefused
    from pipelines.evaluation.rejudge import rejudge
    from pipelines.warehouse import Warehouse, WarehouseError

    try:
        llm = None
        if args.judge == "llm":
            llm = LLMConfig.from_env()
            llm.role("judge")  # an unconfigured judge fails here, before any trace is read
        row = rejudge(Warehouse(_home(args)), args.run, args.judge, repeat=args.repeat, llm=llm)
    except (KeyError, ValueError, config.SettingError, WarehouseError, EgressRefused) as exc:
        console.print(f"[bold red]rejudge not run[/]: {exc}")
        return 2
    table = Table("statistic", "value", title=f"judge agreement ({row['kind']}): {row['first']} vs {row['second']}")
    for key, value in row.items():
        table.add_row(key, "" if value is None else str(value))
    Console().print(table)
    return 0


def _export(args: argparse.Namespace) -> int:
    import polars as pl

    from pipelines.training.export import DataUseNotAcknowledged, ExportSettings, export
    from pipelines.warehouse import Warehouse, WarehouseError

    out = Path(args.out).resolve()
    threshold = {} if args.min_score is None else {"min_score": args.min_score}
    try:
        settings = ExportSettings(tuple(args.run or ()), acknowledge_data_use=args.acknowledge_data_use, **threshold)
        with Progress(TextColumn("[bold]export"), BarColumn(), TextColumn("{task.completed}/{task.total} episodes"),
                      TimeElapsedColumn(), console=console) as bar:
            task = bar.add_task("episodes", total=None)
            written = export(Warehouse(_home(args)), out, settings,
                             progress=lambda done, total: bar.update(task, completed=done, total=total))
    except DataUseNotAcknowledged as exc:
        console.print(f"[bold red]export refused[/]: {exc}")
        return 2
    except (ValueError, WarehouseError) as exc:
        console.print(f"[bold red]export not written[/]: {exc}")
        return 2
    runs = written.trajectories["run_id"].n_unique()
    table = Table("split", "trajectories", "step samples", title=f"export: {runs} run(s), samples from S >= "
                  f"{settings.min_score}")
    for split in ("train", "test"):
        table.add_row(split, str(written.trajectories.filter(pl.col("split") == split).height),
                      str(written.samples.filter(pl.col("split") == split).height))
    Console().print(table)
    if written.excluded:
        console.print("episodes without step samples: "
                      + ", ".join(f"{n} {why}" for why, n in sorted(written.excluded.items())))
    return _written(out, written.restricted)


def _written(out: Path, restricted) -> int:
    """The closing lines of an export or a release: its data-use restriction, where it is."""
    if restricted:
        console.print(f"[bold]data use restriction[/]: content derived from {', '.join(restricted)}; "
                      f"share it only as {out / 'README.md'} says")
    console.print(f"files and dataset card: {out}")
    return 0


def _release(args: argparse.Namespace) -> int:
    from pipelines.release.release import IdentifiersFound, ReleaseRefused, release
    from pipelines.training.export import DataUseNotAcknowledged
    from pipelines.warehouse import Warehouse, WarehouseError

    try:
        written = release(Warehouse(_home(args)), Path(args.out), acknowledge_data_use=args.acknowledge_data_use)
    except (DataUseNotAcknowledged, ReleaseRefused) as exc:
        console.print(f"[bold red]release refused[/]: {exc}")
        return 2
    except IdentifiersFound as exc:
        console.print(f"[bold red]release not published[/]: {exc}")
        return 1
    except (FileExistsError, ValueError, WarehouseError) as exc:
        console.print(f"[bold red]release not written[/]: {exc}")
        return 2
    table = Table("table", "rows", title=f"release {written.out}")
    for name, rows in written.rows.items():
        table.add_row(name, f"{rows:,}")
    Console().print(table)
    searched = written.scan.searched
    console.print(f"scan: {sum(searched['anywhere']) + sum(searched['own_case']):,} source identifiers looked for in "
                  f"{len(written.scan.files)} files, none found")
    return _written(written.out, written.restricted)


def _report(args: argparse.Namespace) -> int:
    from pipelines.report.page import write_report
    from pipelines.warehouse import Warehouse

    home = _home(args)
    if not Warehouse(home).tables():
        console.print(f"[bold red]no warehouse at {home}[/]: run `clinverse build --home {home}` first")
        return 2
    written = write_report(home, args.out)
    console.print(f"wrote {written.path} ({written.with_data} of {written.sections} sections with data)")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="clinverse", description="ClinPatient cases from EHRs and exam questions.")
    sub = p.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo-data", help="write the embedded demo sources in publisher layouts")
    demo.add_argument("out")
    demo.add_argument("--admissions", type=int, default=DEMO_ADMISSIONS)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo_data)

    b = sub.add_parser("build", help="materialise the assets for the sources given (the embedded demo if none)")
    b.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    for source in SOURCES:
        b.add_argument(source.flag, dest=source.field, metavar=source.metavar,
                       action="append" if source.layout == "files" else "store",
                       help=f"{source.description.replace('`', '')} (env {source.setting}), e.g. {source.example}")
    b.add_argument("--select", help="Dagster asset selection, e.g. 'group:cases' or 'key:case_skeleton+'")
    b.add_argument("--incremental", action="store_true",
                   help="re-run the per-case steps only of the subject shards whose inputs changed since the "
                        "published build (and the cohort-wide steps after them)")
    b.add_argument("--seed", type=int, help=f"seed for the demo and sampling (env {config.ENV_SEED})")
    b.add_argument("--admissions", type=int, default=DEMO_ADMISSIONS,
                   help="size of the generated demo when no source is given")
    b.add_argument("--executor", choices=config.EXECUTORS,
                   help="in_process (default): every step in this process; multiprocess: each step in a process of "
                        f"its own, Dagster's multiprocess executor (env {config.ENV_EXECUTOR})")
    b.add_argument("--max-concurrent", metavar="N", help="steps a multiprocess build runs at once (env "
                   f"{config.ENV_MAX_CONCURRENT}, default the CPUs available)")
    b.set_defaults(func=_build)

    e = sub.add_parser("episodes", help="run a doctor on the warehouse's cases (resumes an interrupted run)")
    e.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    # Names are checked by RunSpec: importing the episode engine here would slow every command.
    e.add_argument("--doctor", required=True, help="full_info, retrieval, random, or llm (its endpoint from "
                   "CLINVERSE_LLM_DOCTOR_* or CLINVERSE_LLM_*)")
    e.add_argument("--patient", default="offline", help="patient simulator: offline (default) or llm")
    e.add_argument("--consultant", default="offline", help="the MDT consultant: offline (default) or llm")
    e.add_argument("--preset", default="clinverse", choices=["medevoeval", "clinverse"])
    e.add_argument("--split", default="test", choices=["test", "train"])
    e.add_argument("--cases", type=int, help="the first N cases of the split (default: all)")
    e.add_argument("--condition", default="baseline", help="a free label for the run's episodes, e.g. E0")
    e.add_argument("--seed", type=int, default=7)
    e.add_argument("--run-id", help="name of the run (default: derived from the settings, so a rerun resumes)")
    e.add_argument("--memory", default="off", choices=["off", "empty", "prepopulated", "frozen"],
                   help="experience memory: off (default); empty (a new bank the run writes into); prepopulated "
                        "(a copy of --memory-from's bank, written into); frozen (--memory-from's bank, never written)")
    e.add_argument("--memory-from", metavar="RUN_ID",
                   help="the run whose bank a prepopulated or frozen memory starts from")
    e.add_argument("--memory-k", type=int, help="memory cards shown per doctor decision (default 3)")
    e.add_argument("--manager", default="offline", choices=["offline", "llm"],
                   help="who writes the memory cards: offline templates (default) or llm (CLINVERSE_LLM_MANAGER_* "
                        "or CLINVERSE_LLM_*)")
    e.set_defaults(func=_episodes)

    cv = sub.add_parser("cross-validate", help="the offline doctors' block accuracy over every kept case by k-fold "
                        "cross-validation of patients (for builds whose test split is too small to rank them)")
    cv.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    cv.add_argument("--doctors", default="full_info,retrieval,random", help="comma-separated offline doctors")
    cv.add_argument("--folds", type=int, default=4)
    cv.add_argument("--seeds", type=int, default=3, help="seeds 1..N per fold and doctor")
    cv.add_argument("--preset", default="clinverse", choices=["medevoeval", "clinverse"])
    cv.set_defaults(func=_cross_validate)

    st = sub.add_parser("stress-test", help="the boundary stress test of the patient simulator over every case")
    st.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    st.set_defaults(func=_stress_test)

    ev = sub.add_parser("evaluate", help="the evaluation protocols (stream, held-out, MDT): runs, scores, paired "
                                        "statistics (stat_tests) and the report")
    ev.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    ev.add_argument("--protocol", default="all",
                    help="a protocol of pipelines/evaluation/data/protocols.yaml (stream, heldout, update, mdt, "
                         "static, interface, clinlab), each with the ones it starts from; default all")
    ev.add_argument("--doctor", default="retrieval", choices=["full_info", "retrieval", "random", "llm"],
                    help="llm: the doctor role of CLINVERSE_LLM_* (its egress guard applies)")
    ev.add_argument("--model", action="append", help="an LLM doctor model to play every arm (repeatable; default "
                                                     "the doctor role's model)")
    ev.add_argument("--cases", type=int, help="at most N cases per arm (a quick study)")
    ev.add_argument("--preset", default="clinverse", choices=["medevoeval", "clinverse"])
    ev.add_argument("--stages", type=int, default=10, help="stages of the case stream (learning curves; default 10)")
    ev.add_argument("--seed", type=int, default=7)
    ev.set_defaults(func=_evaluate)

    r = sub.add_parser("report", help="the evaluation report: one self-contained HTML file")
    r.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    r.add_argument("--out", required=True, help="where to write the HTML file, e.g. report.html")
    r.set_defaults(func=_report)

    j = sub.add_parser("rejudge", help="grade a stored run again without replaying it: another judge against its "
                                       "scores, or the same judge twice (judged_scores, judge_agreement)")
    j.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    j.add_argument("--run", required=True, help="the run id whose traces to grade")
    j.add_argument("--judge", default="offline", choices=["offline", "llm"],
                   help="llm: the judge role of CLINVERSE_LLM_* (its egress guard applies)")
    j.add_argument("--repeat", action="store_true", help="the same judge twice, instead of against the run's scores")
    j.set_defaults(func=_rejudge)

    x = sub.add_parser("export", help="training datasets: trajectories and step-level decision samples, and their "
                                      "dataset card")
    x.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    x.add_argument("--out", required=True, help="folder for trajectories.jsonl/.parquet, step_samples.jsonl/.parquet, "
                   "README.md")
    x.add_argument("--run", action="append", metavar="RUN_ID", help="a run to export (repeatable; default: every run)")
    x.add_argument("--min-score", type=float, help="outcome score S an episode needs to give step samples "
                   "(default: the judge's pass threshold, 0.7)")
    x.add_argument("--acknowledge-data-use", action="store_true",
                   help="write content derived from MIMIC-IV or SICdb: its recipients must hold credentialed access "
                        "and be bound by the PhysioNet data use agreement")
    x.set_defaults(func=_export)

    rel = sub.add_parser("release", help="the curated case tables as a dataset to share (Parquet and a dataset "
                                         "card), without source identifiers or dates, checked by a scan")
    rel.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    rel.add_argument("--out", required=True, help="a new (or empty) folder for the tables' Parquet files and README.md")
    rel.add_argument("--acknowledge-data-use", action="store_true",
                     help="write content derived from MIMIC-IV or SICdb: its recipients must hold credentialed access "
                          "and be bound by the PhysioNet data use agreement")
    rel.set_defaults(func=_release)

    sh = sub.add_parser("show", help="kept cases as an auditor reads them: presentation, the patient's units, the "
                                     "exam results and the answer")
    sh.add_argument("case_ids", nargs="*", metavar="CASE_ID")
    sh.add_argument("--split", choices=["train", "test"], help="every kept case of the split (in case id order)")
    sh.add_argument("--home", help=f"warehouse folder (env {config.ENV_HOME}, default ./warehouse)")
    sh.set_defaults(func=_show)

    q = sub.add_parser("query", help="read-only SQL over the warehouse")
    q.add_argument("sql")
    q.add_argument("--home")
    q.add_argument("--restricted", action="store_true",
                   help="give the restricted tables a view too (case_provenance: raw source keys; note_sections and "
                        "the note_* staging tables: note text): for credentialed, authorised use only")
    q.add_argument("--format", choices=["table", "csv", "json"], default="table")
    q.set_defaults(func=_query)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
