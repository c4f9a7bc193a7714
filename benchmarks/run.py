"""`make bench`: time `clinverse build` on generated demo sources at several sizes, next to a
bare DuckDB scan of the same input files, and write benchmarks/results/latest.json.

A measurement, not a test: nothing here asserts. Each build and each episode measurement runs in
its own process, so that its peak RSS and its CPU time are its own (a process that has built and
profiled before carries a larger heap, which slows the allocation-heavy episode loop by a quarter).
Scales: CLINVERSE_BENCH_SCALES (default "500,5000" admissions; read by pipelines.config like every
setting).

Synthea's pool is a one-off cost per stratum, reused by every later build (that is the design),
so it is generated once in an untimed warm-up build and shared by the timed builds; its time is
reported on its own as ``synthea_pool_s``. The timed builds still read the pool and match profiles.

``episodes_per_s_per_core``: offline episodes (``retrieval`` doctor, offline patient) per second in
one process's CPU time, on every case of the first scale's warehouse, over three seeds as a
study plays them (issue goal: at least 200, 1,000), the best of :data:`EPISODE_REPEATS` processes
(:func:`best_of`; every reading in ``episodes.episodes_per_s_per_core_runs``, their median in
``episodes.episodes_per_s_per_core_median``); ``first_pass_episodes_per_s_per_core``: the first
seed alone, every cache cold. ``llm_overhead_ms_per_request``: the environment's own CPU time per
LLM request against a loopback server that answers at once, with 64 requests in flight
(benchmarks/llm_overhead.py; goal under 5 ms). ``evaluate_all_s``: `clinverse evaluate`'s whole
offline study (every protocol, the ``retrieval`` doctor) on the first scale's warehouse;
``scores_per_s``: episodes the offline judge scores per second, re-scoring that study's runs
(pipelines/evaluation/scores.py).

Where the time goes comes from the build itself: the runner's report of every step's Dagster
duration and every asset's materialisation metadata (pipelines/runner.py), not a second timer.
``assets``: per scale, seconds and rows of every step, slowest first. ``startup_s``: seconds from the
start of the build process to the first step starting. A build re-materialises every asset whatever
changed (only the Synthea pool is reused), so there is no build with nothing to do; this is the fixed
cost every build pays before any work. ``structured_ratio``: the steps of structured MIMIC-IV curation
(:data:`STRUCTURED_STEPS`: hosp/icu staging to cases, units and exams) over a bare DuckDB scan of the
hosp/icu files. ``discharge_notes_per_s_per_core``: discharge notes per CPU second of their NLP
(their section split, the unit step and their share of the exam step); ``radiology_reports_per_s_per_core``:
reports per CPU second of their section split, which extracts FINDINGS, and
``radiology_reports_judged_per_s_per_core`` with their share of the exam step too (each FINDINGS
scrubbed and judged abnormal or not, as an imaging result); all from the note assets' own CPU metadata
(worker processes included, their start-up left out; the exam step times the two kinds apart).
``projected_full_mimic_min``: the build of the full MIMIC-IV (:data:`FULL_MIMIC`) from the largest
scale's rates (:func:`projection`).
``multiprocess_speedup``: the first scale's in-process build time over a build of the same sources under
Dagster's multiprocess executor with as many steps at once as this process has CPUs
(:func:`multiprocess_speedup`). ``incremental_shard_ratio``: `clinverse build --incremental` after a
drop of one shard's MIMIC-IV admissions into a warehouse built without them, over that shard's share of
the largest scale's full build (:func:`incremental_shard`; goal at most 1.2).
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import polars as pl

from pipelines.build_plan import INPUTS, per_shard_keys
from pipelines.config import DEMO_ID_KEY, Settings, bench_scales, default_workers
from pipelines.definitions import defs
from pipelines.demo import generate_demo
from pipelines.demo.withhold import shard_subjects, withhold
from pipelines.episodes.controller import episode_frames, run_episode
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.protocols import run_study
from pipelines.evaluation.runs import references, run_conditions
from pipelines.evaluation.scores import score_traces, traces
from pipelines.profiles.bench import augmentation_scaling
from pipelines.shards import shard_names
from pipelines.warehouse import Warehouse

RESULTS = Path(__file__).resolve().parent / "results"
EPISODE_REPEATS = 5  # episode-throughput measurements, each in its own process: the best is the key

# Runs one build in a child (arguments: home, sources, MedQA file, then any further `clinverse build` flags)
# and reports its wall time, peak RSS, start-up and the runner's report of every step as JSON on the last
# line. Peak RSS is the build process's own; ``peak_worker_rss_mb`` that of its largest worker process
# (the note NLP's, ClinLab's and the stress test's), sampled as they run (benchmarks/process_peaks.py).
# `clinverse build` returns an exit code, so the child wraps the CLI's build function to keep the
# report of the very build the user runs.
_CHILD = """
import time
born = time.perf_counter()
import json, resource, sys
from benchmarks.process_peaks import DescendantPeak
from pipelines import cli
workers = DescendantPeak().start()
reports = []
build = cli.build
cli.build = lambda *args, **kwargs: reports.append(build(*args, **kwargs)) or reports[-1]
start = time.perf_counter()
code = cli.main(["build", "--home", sys.argv[1], "--mimic-iv", sys.argv[2] + "/mimic-iv",
                 "--mimic-note", sys.argv[2] + "/mimic-iv-note", "--sicdb", sys.argv[2] + "/sicdb",
                 "--medqa", sys.argv[3], *sys.argv[4:]])
seconds = time.perf_counter() - start
if code != 0 or not reports:
    sys.exit(f"clinverse build exited with {code}")
report = reports[0]
print(json.dumps({"code": code, "seconds": seconds,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "peak_worker_rss_mb": workers.mb,
                  "startup_s": report.first_step_at - born, "step_seconds": report.step_seconds,
                  "asset_metrics": report.asset_metrics, "asset_step": report.asset_step}))
"""

# Structured MIMIC-IV curation (hosp/icu to cases, units, exams): every staging step of a hosp/icu
# table (and its schema check) and the steps that turn them into cases, units and exams.
STRUCTURED_PREFIX = "mimic_"
STRUCTURED_STEPS = ("case_skeleton", "unit_candidates_mimic_structured", "exam_candidates_mimic_labs",
                    "exam_candidates_mimic_vitals", "exam_candidates_mimic_microbiology", "presentations_mimic_iv")
NOTE_STEPS = ("note_sections", "unit_candidates_mimic_notes", "exam_candidates_mimic_notes")
LAB_STEPS = ("mimic_labevents", "exam_candidates_mimic_labs")  # their work grows with lab rows
# The full MIMIC-IV the projection is for (MIMIC-IV 2.2 / MIMIC-IV-Note 2.2), built beside the full
# MedQA US (10,178 + 1,272 + 1,273 questions) and SICdb 1.0.4 (27,386 admissions).
FULL_MIMIC = {"admissions": 430_000, "lab_rows": 118_000_000, "discharge_notes": 330_000,
              "radiology_reports": 2_300_000, "medqa_questions": 12_723, "sicdb_admissions": 27_386}
# Steps named after another source grow with that source, not with MIMIC-IV: the generated demo has
# a MedQA question and a SICdb admission per four MIMIC-IV admissions, the real sources do not grow.
SOURCE_UNITS = {"medqa": "medqa_questions", "sicdb": "sicdb_admissions"}


def bare_scan_seconds(sources: Path) -> float:
    """Read every input file under ``sources`` once with DuckDB (count rows): the floor any curation pays."""
    files = sorted(str(p) for p in sources.rglob("*.csv.gz")) + sorted(str(p) for p in sources.rglob("*.jsonl"))
    start = time.perf_counter()
    with duckdb.connect() as con:
        for f in files:
            reader = "read_json_auto" if f.endswith(".jsonl") else "read_csv"
            con.execute(f"SELECT count(*) FROM {reader}('{f}', ignore_errors=true)").fetchall()
    return time.perf_counter() - start


# Runs one measurement function of a warehouse home in a child and prints its JSON result.
_MEASURE = """
import json, sys
from importlib import import_module
from pathlib import Path
module, name = sys.argv[1].rsplit(":", 1)
print(json.dumps(getattr(import_module(module), name)(Path(sys.argv[2]))))
"""


def _child(what: str, code: str, *args: str) -> dict:
    """Run ``code`` in a fresh interpreter; its last output line is the JSON result."""
    env = dict(os.environ, CLINVERSE_LOG_LEVEL="WARNING")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _build(home: Path, sources: Path, synthea: Path, *flags: str) -> dict:
    """One `clinverse build` (with ``flags``) in a child process, its home sharing the Synthea pool folder."""
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "synthea").exists():
        (home / "synthea").symlink_to(synthea, target_is_directory=True)
    medqa = next((sources / "medqa").glob("*.jsonl"))
    return _child(f"build into {home}", _CHILD, str(home), str(sources), str(medqa), *flags)


def measured_apart(function: str, home: Path) -> dict:
    """``function`` (``module:name``) of the warehouse at ``home``, run in a child process."""
    return _child(f"{function} on {home}", _MEASURE, function, str(home))


def measured_best(function: str, home: Path, key: str, times: int = EPISODE_REPEATS) -> dict:
    """``function`` measured ``times`` times apart (:func:`measured_apart`), summarised by :func:`best_of`."""
    return best_of([measured_apart(function, home) for _ in range(times)], key)


def best_of(runs: list[dict], key: str) -> dict:
    """The run with the highest rate ``key``, with every run's ``key`` in order (``<key>_runs``) and
    their median (``<key>_median``). On a shared machine a process's CPU rate varies by a fifth and
    more from one process to the next, and what varies is interference, which only slows the code
    down: as Python's ``timeit`` documentation says of its repeats, the best reading estimates what
    the code costs, the others what the neighbours did."""
    rates = sorted(run[key] for run in runs)
    best = max(runs, key=lambda run: run[key])
    return best | {f"{key}_runs": [run[key] for run in runs], f"{key}_median": rates[len(rates) // 2]}


def step_breakdown(child: dict) -> dict[str, dict]:
    """Seconds and rows (summed over the assets it materialised; None for checks) of every step, slowest first."""
    rows: dict[str, int] = {}
    for asset, step in child["asset_step"].items():
        if "rows" in child["asset_metrics"][asset]:
            rows[step] = rows.get(step, 0) + int(child["asset_metrics"][asset]["rows"])
    ordered = sorted(child["step_seconds"].items(), key=lambda item: -item[1])
    return {step: {"seconds": round(seconds, 3), "rows": rows.get(step)} for step, seconds in ordered}


def note_work(child: dict) -> dict:
    """Notes and CPU seconds of the note NLP, from the note assets' metadata (see the module docstring)."""
    metrics = child["asset_metrics"]
    sections = metrics.get("note_sections", {})
    units = metrics.get("unit_candidates_mimic_notes", {}).get("nlp_cpu_s", 0.0)
    exams = metrics.get("exam_candidates_mimic_notes", {})
    discharge_exams, radiology_exams = exams.get("discharge_nlp_cpu_s", 0.0), exams.get("radiology_nlp_cpu_s", 0.0)
    discharge, reports = int(sections.get("discharge_notes", 0)), int(sections.get("radiology_notes", 0))
    discharge_cpu = sections.get("discharge_cpu_s", 0.0) + units + discharge_exams
    radiology_cpu = sections.get("radiology_cpu_s", 0.0)
    return {
        "discharge_notes": discharge, "radiology_reports": reports,
        "discharge_split_cpu_s": sections.get("discharge_cpu_s", 0.0), "units_cpu_s": units,
        "discharge_exams_cpu_s": discharge_exams, "radiology_split_cpu_s": radiology_cpu,
        "radiology_exams_cpu_s": radiology_exams,
        "discharge_notes_per_s_per_core": round(discharge / discharge_cpu, 1) if discharge_cpu else None,
        "radiology_reports_per_s_per_core": round(reports / radiology_cpu, 1) if radiology_cpu else None,
        "radiology_reports_judged_per_s_per_core": (round(reports / (radiology_cpu + radiology_exams), 1)
                                                    if radiology_cpu + radiology_exams else None),
    }


def run_scale(admissions: int, workdir: Path, synthea: Path) -> tuple[dict, dict]:
    """The scale's row of ``scales`` and its step breakdown."""
    sources = workdir / f"sources-{admissions}"
    if not sources.exists():  # the warm-up may have generated it already (same seed, same bytes)
        generate_demo(sources, admissions=admissions, seed=0)
    child = _build(workdir / f"home-{admissions}", sources, synthea)
    scan = bare_scan_seconds(sources)
    structured_scan = sum(bare_scan_seconds(sources / "mimic-iv" / module) for module in ("hosp", "icu"))
    steps = step_breakdown(child)
    structured = sum(s["seconds"] for name, s in steps.items()
                     if name.startswith(STRUCTURED_PREFIX) or name in STRUCTURED_STEPS)
    row = {
        "admissions": admissions,
        "medqa_questions": sum(1 for f in (sources / "medqa").glob("*.jsonl") for line in f.open() if line.strip()),
        "sicdb_admissions": _csv_rows(sources / "sicdb" / "cases.csv.gz"),
        "curation_s": round(child["seconds"], 3),
        "scan_s": round(scan, 3),
        "ratio": round(child["seconds"] / scan, 2),
        "peak_rss_mb": round(child["peak_rss_mb"], 1),
        "peak_worker_rss_mb": round(child["peak_worker_rss_mb"], 1),
        "startup_s": round(child["startup_s"], 3),
        "step_s": round(sum(s["seconds"] for s in steps.values()), 3),
        "structured_s": round(structured, 3),
        "structured_scan_s": round(structured_scan, 3),
        "structured_ratio": round(structured / structured_scan, 2),
        "lab_rows": steps.get("mimic_labevents", {}).get("rows"),
        "note_nlp": note_work(child),
    }
    return row, steps


def _csv_rows(path: Path) -> int:
    with duckdb.connect() as con:
        return con.execute(f"SELECT count(*) FROM read_csv('{path}')").fetchone()[0]


def multiprocess_speedup(row: dict, workdir: Path, synthea: Path, cores: int) -> dict:
    """The wall time of the scale's in-process build (``row``) over that of a build of the same sources
    under Dagster's multiprocess executor, ``cores`` steps at once."""
    admissions = row["admissions"]
    child = _build(workdir / f"home-{admissions}-multiprocess", workdir / f"sources-{admissions}", synthea,
                   "--executor", "multiprocess", "--max-concurrent", str(cores))
    return {"admissions": admissions, "max_concurrent": cores, "in_process_s": row["curation_s"],
            "multiprocess_s": round(child["seconds"], 3), "speedup": round(row["curation_s"] / child["seconds"], 2)}


def incremental_shard(row: dict, workdir: Path, synthea: Path, shards: int) -> dict:
    """A drop of one shard's admissions into a built warehouse: the scale's sources without the MIMIC-IV
    patients of shard ``s01`` (pipelines/demo/withhold.py) are built in full, then the full sources are
    built with ``--incremental``. ``incremental_shard_ratio``: that build's wall time over the shard's
    share of the scale's full build (``row``: its wall time over ``shards``); its steps split into the
    inputs (staging, skeleton, digests), the re-run shard's steps and the cohort-wide steps after them."""
    admissions = row["admissions"]
    sources, before = workdir / f"sources-{admissions}", workdir / f"sources-{admissions}-before-drop"
    shard = shard_names(shards)[1]
    left_out = withhold(sources, before, shard_subjects(sources / "mimic-iv", DEMO_ID_KEY, shards, shard))
    home = workdir / f"home-{admissions}-incremental"
    first = _build(home, before, synthea)
    again = _build(home, sources, synthea, "--incremental")
    steps = step_breakdown(again)
    per_shard = {key.to_user_string() for key in per_shard_keys(defs.resolve_asset_graph())}
    inputs = {key.to_user_string() for key in INPUTS.resolve(defs.resolve_asset_graph())}
    kind = {step: "inputs" if asset in inputs else "shard" if asset in per_shard else "cohort"
            for asset, step in again["asset_step"].items()}
    seconds = {k: round(sum(s["seconds"] for n, s in steps.items() if kind.get(n, "cohort") == k), 3)
               for k in ("inputs", "shard", "cohort")}
    share = row["curation_s"] / shards
    return {"admissions": admissions, "shards": shards, "shard": shard,
            "new_admissions": left_out["mimic-iv/hosp/admissions.csv.gz"],
            "full_build_s": row["curation_s"], "shard_share_s": round(share, 3),
            "before_drop_build_s": round(first["seconds"], 3), "incremental_s": round(again["seconds"], 3),
            "ratio": round(again["seconds"] / share, 2), "step_s": seconds,
            "slowest_cohort_steps": {n: s["seconds"] for n, s in steps.items() if kind.get(n, "cohort") == "cohort"
                                     and s["seconds"] >= 1.0}}


def projection(rows: list[dict], assets: dict[str, dict[str, dict]], cores: int) -> dict:
    """Minutes of a build of :data:`FULL_MIMIC` on this machine from measured rates: start-up once; the
    note steps by their notes (CPU seconds per note of the largest scale, spread over ``cores`` worker
    processes as the build spreads them); the lab steps by lab rows and every other step by admissions,
    each at the slope between the two largest scales (which leaves per-step fixed costs out) or, with
    one scale, at its seconds per row or admission (fixed costs counted per unit: an upper bound); the
    steps of MedQA and SICdb likewise by their questions and admissions (:data:`SOURCE_UNITS`). The
    Synthea pool is a one-off per stratum (``synthea_pool_s``) and is left out."""
    last = rows[-1]
    notes = last["note_nlp"]
    note_rate = {
        "discharge": (notes["discharge_split_cpu_s"] + notes["units_cpu_s"]) / max(notes["discharge_notes"], 1),
        "radiology": notes["radiology_split_cpu_s"] / max(notes["radiology_reports"], 1),
        "discharge_exams": notes["discharge_exams_cpu_s"] / max(notes["discharge_notes"], 1),
        "radiology_exams": notes["radiology_exams_cpu_s"] / max(notes["radiology_reports"], 1),
    }
    lab_rate = _rate(rows, lambda r: _seconds(assets[str(r["admissions"])], LAB_STEPS), lambda r: r["lab_rows"] or 0)
    admission_rate = _rate(rows, lambda r: _other_seconds(assets[str(r["admissions"])]), lambda r: r["admissions"])
    parts = {
        "startup_s": last["startup_s"],
        "discharge_notes_s": FULL_MIMIC["discharge_notes"] * note_rate["discharge"] / cores,
        "radiology_reports_s": FULL_MIMIC["radiology_reports"] * note_rate["radiology"] / cores,
        "note_exams_s": (FULL_MIMIC["discharge_notes"] * note_rate["discharge_exams"]
                         + FULL_MIMIC["radiology_reports"] * note_rate["radiology_exams"]) / cores,
        "lab_rows_s": FULL_MIMIC["lab_rows"] * lab_rate,
        "admissions_s": FULL_MIMIC["admissions"] * admission_rate,
        **{f"{source}_s": FULL_MIMIC[unit] * _source_rate(rows, assets, source) for source, unit in SOURCE_UNITS.items()},
    }
    return {"minutes": round(sum(parts.values()) / 60, 1), "note_workers": cores, "from_admissions": last["admissions"],
            "rates": "slope" if len(rows) > 1 else "upper_bound",
            **{name: round(seconds, 1) for name, seconds in parts.items()}}


def _rate(rows: list[dict], seconds: Callable[[dict], float], count: Callable[[dict], int]) -> float:
    """Seconds per unit: the slope between the two largest scales (never below zero), else the one scale's ratio."""
    if len(rows) > 1:
        grown = count(rows[-1]) - count(rows[-2])
        return max((seconds(rows[-1]) - seconds(rows[-2])) / grown, 0.0) if grown > 0 else 0.0
    return seconds(rows[-1]) / max(count(rows[-1]), 1)


def _seconds(steps: dict[str, dict], names: tuple[str, ...]) -> float:
    return sum(steps.get(name, {}).get("seconds", 0.0) for name in names)


def _other_seconds(steps: dict[str, dict]) -> float:
    """Seconds of the steps that grow with admissions: neither note nor lab steps, nor another source's
    steps, nor the Synthea pool."""
    left_out = {*NOTE_STEPS, *LAB_STEPS, "synthea_pool"}
    return sum(s["seconds"] for name, s in steps.items() if name not in left_out and _source(name) is None)


def _source_rate(rows: list[dict], assets: dict[str, dict[str, dict]], source: str) -> float:
    """Seconds per unit of ``source`` (its questions or admissions) of the steps named after it."""
    return _rate(rows, lambda r: sum(s["seconds"] for name, s in assets[str(r["admissions"])].items()
                                     if _source(name) == source),
                 lambda r: r[SOURCE_UNITS[source]])


def _source(step: str) -> str | None:
    """The source (a key of :data:`SOURCE_UNITS`) a step is named after, if any."""
    return next((source for source in SOURCE_UNITS if source in step), None)


def episode_throughput(home: Path, doctor: str = "retrieval", seeds: int = 3) -> dict:
    """Episodes per second of CPU time (per core: one process, one thread of Python): the ``retrieval``
    doctor with the offline patient on every case of the warehouse at ``home``, once per seed of a
    study (``seeds`` runs, each framed and validated as a run's batch is), after the shared backends
    are fitted (timed apart). A further seed plays the same cases, so per-case and per-text caches
    carry over, but its patient and its episodes are its own: no run replays another. The first
    run alone (every cache cold) and the wall-clock rate are reported beside it."""
    store = CaseStore.from_home(home)
    started = time.perf_counter()
    backends = EpisodeSettings(store).backends
    backends.vocabulary, backends.knowledge, backends.consultant, backends.clinlab  # noqa: B018 - fit once
    fit = time.perf_counter() - started
    case_ids = store.case_ids()
    cpu, started = time.process_time(), time.perf_counter()
    first_pass_cpu = 0.0
    for seed in range(seeds):
        settings = EpisodeSettings(store, seed=seed)
        episode_frames([run_episode(settings, doctor, case_id, f"bench-{seed}") for case_id in case_ids])
        if seed == 0:
            first_pass_cpu = time.process_time() - cpu
    cpu, seconds = time.process_time() - cpu, time.perf_counter() - started
    episodes = seeds * len(case_ids)
    return {"doctor": doctor, "episodes": episodes, "seeds": seeds, "seconds": round(seconds, 3),
            "cpu_s": round(cpu, 3), "episodes_per_s_per_core": round(episodes / cpu, 1),
            "episodes_per_s_wall": round(episodes / seconds, 1),
            "first_pass_episodes_per_s_per_core": round(len(case_ids) / first_pass_cpu, 1),
            "backends_fit_s": round(fit, 3)}


def evaluation_speed(home: Path) -> dict:
    """The whole offline study on the warehouse at ``home`` (it writes its runs there), then the
    offline judge re-scoring every episode of it."""
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    started = time.perf_counter()
    study = run_study(warehouse, store, ["all"])
    seconds = time.perf_counter() - started
    run_ids = sorted(set(study.runs.values()))
    episodes = pl.concat([warehouse.read_partition("episodes", r) for r in run_ids])
    events = pl.concat([warehouse.read_partition("episode_events", r) for r in run_ids])
    refs = references(warehouse, store)
    conditions = {r: run_conditions(warehouse, r) for r in run_ids}
    found = traces(episodes, events)
    started = time.perf_counter()
    score_traces(found, refs, conditions, OfflineJudge())
    scoring = time.perf_counter() - started
    return {"evaluate_all_s": round(seconds, 3), "study_episodes": episodes.height,
            "scores_per_s": round(len(found) / scoring, 1)}


def scaling_exponent(rows: list[dict]) -> float | None:
    """Least-squares slope of log(curation time) on log(admissions): 1.0 is linear."""
    if len(rows) < 2:
        return None
    xs = [math.log(r["admissions"]) for r in rows]
    ys = [math.log(r["curation_s"]) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs), 3)


def main() -> None:
    scales = list(bench_scales())
    rows = []
    with tempfile.TemporaryDirectory(prefix="clinverse-bench-") as tmp:
        work = Path(tmp)
        synthea = work / "synthea-pool"
        synthea.mkdir()
        warmup_sources = work / f"sources-{scales[0]}"
        generate_demo(warmup_sources, admissions=scales[0], seed=0)
        warmup = _build(work / "home-warmup", warmup_sources, synthea)
        print(json.dumps({"warmup_build_s": round(warmup["seconds"], 3)}), flush=True)
        assets: dict[str, dict[str, dict]] = {}
        for admissions in scales:
            row, assets[str(admissions)] = run_scale(admissions, work, synthea)
            print(json.dumps(row), flush=True)
            rows.append(row)
        projected = projection(rows, assets, default_workers())
        print(json.dumps({"projected_full_mimic": projected}), flush=True)
        multiprocess = multiprocess_speedup(rows[0], work, synthea, default_workers())
        print(json.dumps({"multiprocess": multiprocess}), flush=True)
        incremental = incremental_shard(rows[-1], work, synthea, Settings.from_env().shards)
        print(json.dumps({"incremental": incremental}), flush=True)
        # Profile augmentation once the Synthea pool exists: 1x vs 10x the cases of the first build.
        augmentation = augmentation_scaling(work / f"home-{scales[0]}")
        print(json.dumps({"profile_augmentation": augmentation}), flush=True)
        episodes = measured_best("benchmarks.run:episode_throughput", work / f"home-{scales[0]}",
                                   "episodes_per_s_per_core")
        print(json.dumps({"episodes": episodes}), flush=True)
        llm = measured_apart("benchmarks.llm_overhead:measure", work / f"home-{scales[0]}")
        print(json.dumps({"llm": llm}), flush=True)
        evaluation = measured_apart("benchmarks.run:evaluation_speed", work / f"home-{scales[0]}")
        print(json.dumps({"evaluation": evaluation}), flush=True)
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "synthea_pool_s": round(warmup["seconds"] - rows[0]["curation_s"], 3),
        "scales": rows,
        "exponent": scaling_exponent(rows),
        "assets": assets,
        "startup_s": rows[-1]["startup_s"],
        "structured_ratio": rows[-1]["structured_ratio"],
        "discharge_notes_per_s_per_core": rows[-1]["note_nlp"]["discharge_notes_per_s_per_core"],
        "radiology_reports_per_s_per_core": rows[-1]["note_nlp"]["radiology_reports_per_s_per_core"],
        "radiology_reports_judged_per_s_per_core": rows[-1]["note_nlp"]["radiology_reports_judged_per_s_per_core"],
        "projected_full_mimic_min": projected["minutes"],
        "projected_full_mimic": projected,
        "multiprocess": multiprocess,
        "multiprocess_speedup": multiprocess["speedup"],
        "incremental": incremental,
        "incremental_shard_ratio": incremental["ratio"],
        "profile_augmentation": augmentation,
        "episodes": episodes,
        "episodes_per_s_per_core": episodes["episodes_per_s_per_core"],
        "llm": llm,
        "llm_overhead_ms_per_request": llm["llm_overhead_ms_per_request"],
        "evaluation": evaluation,
        "evaluate_all_s": evaluation["evaluate_all_s"],
        "scores_per_s": evaluation["scores_per_s"],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS / 'latest.json'}: exponent {result['exponent']}")


if __name__ == "__main__":
    main()
