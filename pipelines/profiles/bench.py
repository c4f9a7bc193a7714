"""Timing of profile augmentation once the Synthea pool exists (``make bench``).

The issue's bar: with ten times the cases, augmentation after the pool exists may cost at most
1.2 times the wall time, i.e. no per-case Synthea run and no per-case work that compares with the
fixed costs.  ``augmentation_scaling`` measures, for the cases of a built warehouse (1x) and for
``factor`` copies of them (each copy a new case id):

* ``after_pool_s``: what a rebuild spends on profiles once Synthea's raw output exists: every
  needed ``synthea_pool`` partition re-made from the reused output (parse, map, write) and then the
  ``profiles`` table (match, personality, write);
* ``profiles_only_s``: ``build_profiles`` alone, in memory (``time_augmentation``).

Both are best of ``repeat`` runs; ``ratio`` is ``factor``x over 1x.  Nothing is written to the
measured warehouse: tables go to a temporary one, and the raw output is only read.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import polars as pl

from pipelines.config import Settings
from pipelines.ids import keyed_hash
from pipelines.profiles.augment import build_profiles
from pipelines.profiles.pool import stratum_pool
from pipelines.profiles.strata import needed_strata
from pipelines.profiles.synthea import SyntheaSettings, find_stratum
from pipelines.warehouse import Warehouse


def time_augmentation(cases: pl.DataFrame, pool: pl.DataFrame, seed: int, repeat: int = 3) -> float:
    """Seconds ``build_profiles`` takes, best of ``repeat`` runs (the first pays one-off loading)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        build_profiles(cases, pool, seed)
        best = min(best, time.perf_counter() - started)
    return best


def replicate_cases(cases: pl.DataFrame, factor: int) -> pl.DataFrame:
    """``factor`` copies of every case, each copy with its own valid, distinct case id."""
    copies = [
        cases.with_columns(case_id=pl.col("case_id").map_elements(
            lambda cid, k=copy: f"c_{keyed_hash('bench', cid, k)}", return_dtype=pl.Utf8))
        for copy in range(factor)
    ]
    return pl.concat(copies)


def _after_pool_seconds(cases: pl.DataFrame, root: Path, synthea: SyntheaSettings, seed: int, repeat: int) -> float:
    outputs = [find_stratum(synthea, root, stratum, seed) for stratum in needed_strata(cases)]
    best = float("inf")
    with tempfile.TemporaryDirectory(prefix="clinverse-profiles-bench-") as tmp:
        warehouse = Warehouse(tmp)
        for _ in range(repeat):
            started = time.perf_counter()
            for output in outputs:
                warehouse.write("synthea_pool", stratum_pool(output), partition=output.run.stratum)
            warehouse.write("profiles", build_profiles(cases, warehouse.read("synthea_pool"), seed))
            best = min(best, time.perf_counter() - started)
    return best


def augmentation_scaling(home: Path | None = None, factor: int = 10, repeat: int = 3) -> dict:
    """1x vs ``factor``x cases of the warehouse at ``home`` (default: CLINVERSE_HOME)."""
    settings = Settings.from_env()
    home = Path(home).resolve() if home else settings.home
    warehouse = Warehouse(home)
    synthea = SyntheaSettings.from_env()
    root = home / "synthea"
    if not warehouse.exists("cases"):
        return {"skipped": f"no cases in {home}: build the warehouse first (make demo)"}
    cases = warehouse.read("cases")
    missing = [s for s in needed_strata(cases) if find_stratum(synthea, root, s, settings.seed) is None]
    if missing:
        return {"skipped": f"no Synthea output in {root} for {', '.join(missing)}: build the warehouse first"}
    more = replicate_cases(cases, factor)
    pool = pl.concat([stratum_pool(find_stratum(synthea, root, s, settings.seed)) for s in needed_strata(cases)])
    after = {"1x": _after_pool_seconds(cases, root, synthea, settings.seed, repeat),
             f"{factor}x": _after_pool_seconds(more, root, synthea, settings.seed, repeat)}
    alone = {"1x": time_augmentation(cases, pool, settings.seed, repeat),
             f"{factor}x": time_augmentation(more, pool, settings.seed, repeat)}
    return {
        "cases": cases.height,
        "factor": factor,
        "strata": len(needed_strata(cases)),
        "pool_patients": pool.height,
        "after_pool_s": {k: round(v, 4) for k, v in after.items()},
        "ratio": round(after[f"{factor}x"] / after["1x"], 3),
        "profiles_only_s": {k: round(v, 4) for k, v in alone.items()},
        "profiles_only_ratio": round(alone[f"{factor}x"] / alone["1x"], 3),
        "profiles_only_us_per_extra_case": round(
            1e6 * (alone[f"{factor}x"] - alone["1x"]) / (more.height - cases.height), 2),
    }
