"""stages.py: an episode's stage is floor(i N / L) for its case's index i in its run's stream of L cases."""

from __future__ import annotations

import json

import polars as pl
import pytest

from pipelines.evaluation.stages import episode_stages, stream_stages


def runs(**configs: dict) -> pl.DataFrame:
    return pl.DataFrame({"run_id": list(configs), "config": [json.dumps(c) for c in configs.values()]})


def episodes(run_id: str, cases: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"episode_id": [f"e_{run_id}_{c}" for c in cases], "run_id": run_id, "case_id": cases})


def test_ten_cases_in_three_stages_split_four_three_three():
    assert list(stream_stages(3, [f"c{i}" for i in range(10)]).values()) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert list(stream_stages(10, [f"c{i}" for i in range(10)]).values()) == list(range(10))


def test_episodes_take_the_stage_of_their_case_in_their_own_runs_stream():
    stream = ["c3", "c1", "c2", "c0"]  # the stream's order, not the case ids'
    table = runs(staged={"study": {"protocol": "stream", "stages": 2, "stream": stream}}, plain={"episode": {}})
    played = pl.concat([episodes("staged", ["c0", "c1", "c2", "c3", "c9"]), episodes("plain", ["c0", "c1"])])
    stages = dict(episode_stages(table, played).iter_rows())
    # c9 is not in the stream and the plain run records no study: neither has a stage
    assert stages == {"e_staged_c3": 0, "e_staged_c1": 0, "e_staged_c2": 1, "e_staged_c0": 1}


def test_no_study_gives_no_stages_and_a_broken_one_is_an_error():
    assert episode_stages(runs(plain={}), episodes("plain", ["c0"])).height == 0
    with pytest.raises(ValueError, match="run broken: a study needs stages >= 1"):
        episode_stages(runs(broken={"study": {"stages": 0, "stream": ["c0"]}}), episodes("broken", ["c0"]))
