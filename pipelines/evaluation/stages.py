"""The stage of each episode of a protocol run (learning curves, stage trends).

A protocol run records its ordered case stream in ``runs.config`` (JSON) as
``"study": {"protocol": "stream", "stages": N, "stream": [case_id, ...]}``. The case at index i of
a stream of length L is in stage ``floor(i * N / L)``, so the N stages split the stream into runs
of consecutive cases whose sizes differ by at most one. Runs without a ``study`` have no stages.
"""

from __future__ import annotations

import json

import polars as pl

STUDY = "study"


def stream_stages(stages: int, stream: list[str]) -> dict[str, int]:
    """case_id -> stage of a stream of ``stages`` stages (a run plays each case once)."""
    return {case_id: i * stages // len(stream) for i, case_id in enumerate(stream)}


def episode_stages(runs: pl.DataFrame, episodes: pl.DataFrame) -> pl.DataFrame:
    """``episode_id``, ``stage`` of the episodes whose run records a study and whose case is in its stream."""
    rows = []
    for run_id, config in runs.select("run_id", "config").iter_rows():
        study = json.loads(config).get(STUDY)
        if study is None:
            continue
        stages, stream = int(study["stages"]), list(study["stream"])
        if stages < 1 or not stream:
            raise ValueError(f"run {run_id}: a study needs stages >= 1 and a non-empty stream, "
                             f"got {stages} stages over {len(stream)} cases")
        rows += [(run_id, case_id, stage) for case_id, stage in stream_stages(stages, stream).items()]
    staged = pl.DataFrame(rows, schema={"run_id": pl.Utf8, "case_id": pl.Utf8, "stage": pl.Int32}, orient="row")
    return episodes.join(staged, on=["run_id", "case_id"], how="inner").select("episode_id", "stage").sort("episode_id")
