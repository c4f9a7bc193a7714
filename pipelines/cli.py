"""`clinverse`: generate demo sources, build the warehouse, query it.

Thin by design: flags become CLINVERSE_* variables (so the Dagster UI and CLI see the same
configuration), the build runs the Dagster graph in-process, and results are printed.
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


def _configure(args: argparse.Namespace) -> None:
    """Flags win over variables already set; unset flags leave the environment alone."""
    paths = {
        config.ENV_HOME: args.home,
        config.ENV_MIMIC_IV: args.mimic_iv,
        config.ENV_MIMIC_NOTE: args.mimic_note,
        config.ENV_SICDB: args.sicdb,
    }
    for name, value in paths.items():
        if value:
            os.environ[name] = str(Path(value).resolve())
    if args.medqa:
        os.environ[config.ENV_MEDQA] = os.pathsep.join(str(Path(p).resolve()) for p in args.medqa)
    if args.seed is not None:
        os.environ[config.ENV_SEED] = str(args.seed)


def _ensure_sources(settings: config.Settings, admissions: int) -> config.Settings:
    """With no source configured, generate the embedded demo under HOME/demo-sources and use it."""
    if settings.configured_sources():
        return settings
    out = settings.home / "demo-sources"
    marker = out / ".clinverse-demo"
    stamp = f"admissions={admissions} seed={settings.seed}"
    if not marker.exists() or marker.read_text() != stamp:
        console.print(f"[bold]no source configured[/]: generating the embedded demo ({admissions} admissions) in {out}")
        _generate_demo(out, admissions, settings.seed)
        marker.write_text(stamp)
    os.environ[config.ENV_MIMIC_IV] = str(out / "mimic-iv")
    os.environ[config.ENV_MIMIC_NOTE] = str(out / "mimic-iv-note")
    os.environ[config.ENV_SICDB] = str(out / "sicdb")
    os.environ[config.ENV_MEDQA] = os.pathsep.join(str(p) for p in sorted((out / "medqa").glob("*.jsonl")))
    return config.Settings.from_env()


def build(settings: config.Settings, select: str | None = None, show_progress: bool = True):
    """Materialise the configured sources and everything downstream; returns the stage reports."""
    import dagster as dg
    from dagster import DagsterInstance

    from pipelines.build_plan import build_selection
    from pipelines.definitions import make_definitions, planned_partitions
    from pipelines.runner import plan, run_stage

    settings.home.mkdir(parents=True, exist_ok=True)
    defs = make_definitions()
    selection = build_selection(settings.configured_sources())
    if select:
        selection = selection & dg.AssetSelection.from_string(select)
    reports = []
    with DagsterInstance.ephemeral() as instance:
        stages = plan(defs, selection, planned_partitions)
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} assets"),
                      TextColumn("{task.fields[current]}"), TimeElapsedColumn(), console=console,
                      disable=not show_progress) as bar:
            for label, stage_selection, partition in stages:
                task = bar.add_task(label, total=None, current="")

                def update(_label: str, done: int, total: int, current: str, task=task) -> None:
                    bar.update(task, completed=done, total=total, current=current)

                reports.append(run_stage(defs, label, stage_selection, partition, instance, update))
    return reports


def _build(args: argparse.Namespace) -> int:
    from pipelines.runner import BuildFailed
    from pipelines.sources.errors import location_problems
    from pipelines.warehouse import Warehouse

    _configure(args)
    settings = _ensure_sources(config.Settings.from_env(), args.admissions)
    problems = location_problems(settings)
    if problems:
        for problem in problems:
            console.print(f"[bold red]source not found[/]: {problem}")
        return 2
    console.print(f"[bold]building[/] {', '.join(settings.configured_sources())} into {settings.home}")
    try:
        reports = build(settings, args.select)
    except BuildFailed as exc:
        console.print(f"[bold red]build failed[/]: {exc}")
        return 1
    failed = [name for r in reports for name, ok in r.checks.items() if not ok]
    checks = sum(len(r.checks) for r in reports)
    console.print(f"materialised {sum(len(r.succeeded) for r in reports)} assets; "
                  f"{checks - len(failed)}/{checks} checks passed")
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
        summary = Table(*per_source.columns, title="cases per source")
        for row in per_source.iter_rows():
            summary.add_row(*map(str, row))
        out.print(summary)
    out.print(f'query it: clinverse query --home {warehouse.home} "SELECT * FROM cases LIMIT 5"')


def _json_nested(frame):
    """CSV has no lists or structs: write them as JSON text (e.g. acceptable_names)."""
    import polars as pl

    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    return frame.with_columns(
        pl.Series(name, [json.dumps(v, default=str) for v in frame[name].to_list()], dtype=pl.Utf8) for name in nested
    )


def _query(args: argparse.Namespace) -> int:
    from pipelines.warehouse import Warehouse, WarehouseError

    home = Path(args.home or os.environ.get(config.ENV_HOME) or "warehouse")
    try:
        frame = Warehouse(home).query(args.sql)
    except WarehouseError as exc:
        console.print(f"[bold red]{exc}[/]")
        return 2
    except Exception as exc:  # DuckDB errors: bad SQL, write attempts on the read-only connection
        console.print(f"[bold red]query failed[/]: {exc}")
        return 1
    if args.format == "csv":
        sys.stdout.write(_json_nested(frame).write_csv())
    elif args.format == "json":
        sys.stdout.write(json.dumps(frame.to_dicts(), default=str, indent=1) + "\n")
    else:
        table = Table(*frame.columns)
        for row in frame.iter_rows():
            table.add_row(*("" if v is None else str(v) for v in row))
        Console().print(table)
        console.print(f"{frame.height} row(s)")
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
    b.add_argument("--mimic-iv", help=f"MIMIC-IV release root with hosp/ and icu/ (env {config.ENV_MIMIC_IV})")
    b.add_argument("--mimic-note", help=f"MIMIC-IV-Note root with note/ (env {config.ENV_MIMIC_NOTE})")
    b.add_argument("--sicdb", help=f"SICdb folder with cases.csv.gz etc. (env {config.ENV_SICDB})")
    b.add_argument("--medqa", action="append", help=f"MedQA JSONL file; repeatable (env {config.ENV_MEDQA})")
    b.add_argument("--select", help="Dagster asset selection, e.g. 'group:cases' or 'key:case_skeleton+'")
    b.add_argument("--seed", type=int, help=f"seed for the demo and sampling (env {config.ENV_SEED})")
    b.add_argument("--admissions", type=int, default=DEMO_ADMISSIONS, help="size of the generated demo when no source is given")
    b.set_defaults(func=_build)

    q = sub.add_parser("query", help="read-only SQL over the warehouse")
    q.add_argument("sql")
    q.add_argument("--home")
    q.add_argument("--format", choices=["table", "csv", "json"], default="table")
    q.set_defaults(func=_query)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
