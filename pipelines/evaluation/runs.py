"""Scoring runs in the warehouse: the ``episode_scores`` partition of a run (partition = run id),
and the re-scoring of a run's exported JSON lines (pipelines/episodes/runs.py ``export_jsonl``).

Both read the same things: each episode's trace, the run's conditions (``runs.config``) and the
references built from ``cases``, ``information_units``, ``exam_results``, ``case_rubrics`` and
``case_exam_targets``; so re-scoring an export gives the stored scores exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from pipelines.episodes.store import CaseStore
from pipelines.evaluation.judges import Judge, OfflineJudge
from pipelines.evaluation.reference import References
from pipelines.evaluation.scores import Conditions, score_traces, traces
from pipelines.evaluation.trace import trace_of
from pipelines.warehouse import Warehouse

SCORES = "episode_scores"


def has_rubrics(warehouse: Warehouse) -> bool:
    return warehouse.exists("case_rubrics") and warehouse.exists("case_exam_targets")


def references(warehouse: Warehouse, store: CaseStore | None = None) -> References:
    store = store or CaseStore.from_warehouse(warehouse)
    return References(store, warehouse.read("case_rubrics"), warehouse.read("case_exam_targets"))


def run_conditions(warehouse: Warehouse, run_id: str) -> Conditions:
    runs = warehouse.read_partition("runs", run_id)
    if runs.height != 1:
        raise KeyError(f"no run {run_id!r} in the warehouse at {warehouse.home}")
    return Conditions.of_run(runs["config"].item())


def score_run(warehouse: Warehouse, run_id: str, judge: Judge | None = None,
              refs: References | None = None) -> pl.DataFrame:
    """Score every episode of ``run_id`` (offline judge by default) and write its partition."""
    episodes = warehouse.read_partition("episodes", run_id)
    events = warehouse.read_partition("episode_events", run_id)
    scores = score_traces(traces(episodes, events), refs or references(warehouse),
                          {run_id: run_conditions(warehouse, run_id)}, judge or OfflineJudge())
    warehouse.write(SCORES, scores, partition=run_id)
    return scores


def rescore_jsonl(path: Path, refs: References, conditions: Conditions, judge: Judge | None = None) -> pl.DataFrame:
    """The scores of an exported run (one episode per line, its events inside), recomputed."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    found = [trace_of(line, line["events"]) for line in lines]
    return score_traces(found, refs, {t.run_id: conditions for t in found}, judge or OfflineJudge())
