"""`make bench`: time `clinverse build` on generated demo sources at several sizes, next to a
bare DuckDB scan of the same input files, and write benchmarks/results/latest.json.

A measurement, not a test: nothing here asserts. Each build and each episode measurement runs in
its own process, so that its peak RSS and its CPU time are its own (a process that has built and
profiled before carries a larger heap, which slows the allocation-heavy episode loop by a quarter). Scales: CLINVERSE_BENCH_SCALES (default "500,5000" admissions; read by
pipelines.config like every setting).

Synthea's pool is a one-off cost per stratum, reused by every later build (that is the design),
so it is generated once in an untimed warm-up build and shared by the timed builds; its time is
reported on its own as ``synthea_pool_s``. The timed builds still read the pool and match profiles.

``episodes_per_s_per_core``: offline episodes (``retrieval`` doctor, offline patient) per second in
this one process's CPU time, on every case of the first scale's warehouse (issue goal: at least 200,
1,000). ``llm_overhead_ms_per_request``: the environment's own CPU time per LLM request against a
loopback server that answers at once, with 64 requests in flight (benchmarks/llm_overhead.py; goal
under 5 ms). ``evaluate_all_s``: `clinverse evaluate`'s whole offline study (every protocol, the
``retrieval`` doctor) on the first scale's warehouse; ``scores_per_s``: episodes the offline judge
scores per second, re-scoring that study's runs (pipelines/evaluation/scores.py).
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
from pathlib import Path

import duckdb
import polars as pl

from pipelines.config import bench_scales
from pipelines.demo import generate_demo
from pipelines.episodes.controller import episode_frames, run_episode
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.protocols import run_study
from pipelines.evaluation.runs import references, run_conditions
from pipelines.evaluation.scores import score_traces, traces
from pipelines.profiles.bench import augmentation_scaling
from pipelines.warehouse import Warehouse

RESULTS = Path(__file__).resolve().parent / "results"

# Runs one build in a child and reports its wall time and peak RSS as JSON on the last line.
_CHILD = """
import json, resource, sys, time
from pipelines.cli import main
start = time.perf_counter()
code = main(["build", "--home", sys.argv[1], "--mimic-iv", sys.argv[2] + "/mimic-iv",
             "--mimic-note", sys.argv[2] + "/mimic-iv-note", "--sicdb", sys.argv[2] + "/sicdb",
             "--medqa", sys.argv[3]])
print(json.dumps({"code": code, "seconds": time.perf_counter() - start,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bare_scan_seconds(sources: Path) -> float:
    """Read every input file once with DuckDB (count rows): the floor any curation pays."""
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


def _build(home: Path, sources: Path, synthea: Path) -> dict:
    """One `clinverse build` in a child process, its home sharing the Synthea pool folder."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "synthea").symlink_to(synthea, target_is_directory=True)
    medqa = next((sources / "medqa").glob("*.jsonl"))
    return _child(f"build into {home}", _CHILD, str(home), str(sources), str(medqa))


def measured_apart(function: str, home: Path) -> dict:
    """``function`` (``module:name``) of the warehouse at ``home``, run in a child process."""
    return _child(f"{function} on {home}", _MEASURE, function, str(home))


def run_scale(admissions: int, workdir: Path, synthea: Path) -> dict:
    sources = workdir / f"sources-{admissions}"
    if not sources.exists():  # the warm-up may have generated it already (same seed, same bytes)
        generate_demo(sources, admissions=admissions, seed=0)
    child = _build(workdir / f"home-{admissions}", sources, synthea)
    scan = bare_scan_seconds(sources)
    return {
        "admissions": admissions,
        "curation_s": round(child["seconds"], 3),
        "scan_s": round(scan, 3),
        "ratio": round(child["seconds"] / scan, 2),
        "peak_rss_mb": round(child["peak_rss_mb"], 1),
    }


def episode_throughput(home: Path, doctor: str = "retrieval", repeats: int = 3) -> dict:
    """Episodes per second of CPU time (per core: one process, one thread of Python): the ``retrieval``
    doctor with the offline patient on every case of the warehouse at ``home`` (``repeats`` passes,
    each framed and validated as a run's batch is), after the shared backends are fitted (timed
    apart). The wall-clock rate is reported beside it."""
    store = CaseStore.from_home(home)
    settings = EpisodeSettings(store)
    started = time.perf_counter()
    settings.backends.vocabulary, settings.backends.knowledge, settings.backends.consultant  # noqa: B018 - fit once
    settings.backends.clinlab  # noqa: B018
    fit = time.perf_counter() - started
    case_ids = store.case_ids()
    cpu, started = time.process_time(), time.perf_counter()
    for repeat in range(repeats):
        episode_frames([run_episode(settings, doctor, case_id, f"bench-{repeat}") for case_id in case_ids])
    cpu, seconds = time.process_time() - cpu, time.perf_counter() - started
    episodes = repeats * len(case_ids)
    return {"doctor": doctor, "episodes": episodes, "seconds": round(seconds, 3), "cpu_s": round(cpu, 3),
            "episodes_per_s_per_core": round(episodes / cpu, 1), "episodes_per_s_wall": round(episodes / seconds, 1),
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
        for admissions in scales:
            row = run_scale(admissions, work, synthea)
            print(json.dumps(row), flush=True)
            rows.append(row)
        # Profile augmentation once the Synthea pool exists: 1x vs 10x the cases of the first build.
        augmentation = augmentation_scaling(work / f"home-{scales[0]}")
        print(json.dumps({"profile_augmentation": augmentation}), flush=True)
        episodes = measured_apart("benchmarks.run:episode_throughput", work / f"home-{scales[0]}")
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
