"""The small scored runs the report tests add to a copy of the session's demo warehouse, one of them
recording a staged case stream (what a protocol run writes into ``runs.config``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl

from pipelines.episodes.runs import RunSpec, run_and_export, run_cases
from pipelines.episodes.store import CaseStore
from pipelines.warehouse import Warehouse

CASES = 8
STAGES = 4
STAGED_RUN = "report-e0"
# E1 is played by two doctors, so its arms are "E1 (random)" and "E1 (retrieval)"
RUNS = (RunSpec(doctor="retrieval", preset="medevoeval", cases=CASES, condition="E0", run_id=STAGED_RUN),
        RunSpec(doctor="retrieval", preset="medevoeval", cases=CASES, condition="E1", run_id="report-e1"),
        RunSpec(doctor="random", preset="medevoeval", cases=CASES, condition="E1", run_id="report-e1-random"))
ARMS = ["E0", "E1 (random)", "E1 (retrieval)"]


def report_warehouse(demo_home: Path, folder: Path) -> Path:
    """A copy of ``demo_home`` in ``folder`` with :data:`RUNS` played and scored, the first one staged."""
    home = shutil.copytree(demo_home, folder / "home", symlinks=True)
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    for spec in RUNS:
        run_and_export(warehouse, store, spec)
    staged = warehouse.read_partition("runs", STAGED_RUN)
    study = {"protocol": "stream", "stages": STAGES, "stream": run_cases(store, RUNS[0])}
    config = json.loads(staged["config"].item()) | {"study": study}
    warehouse.write("runs", staged.with_columns(pl.lit(json.dumps(config, sort_keys=True)).alias("config")),
                    partition=STAGED_RUN)
    return home
