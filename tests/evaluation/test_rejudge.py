"""Re-judging stored traces (pipelines/evaluation/rejudge.py): the offline judge agrees perfectly with
itself and with the run's own scores; an LLM judge on the loopback server that grades some episodes
otherwise gives the kappa and correlation computed here by hand; a same-judge repeat of an LLM
judge whose second pass differs measures that; and no episode is played again."""

from __future__ import annotations

import hashlib
import json
import re
import shutil

import numpy as np
import polars as pl
import pytest

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, last_user
from pipelines.episodes.runs import RunSpec, run_and_export
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.rejudge import AGREEMENT, JUDGED, STORED, make_judge, rejudge
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow  # the session's demo warehouse

PRESET = "medevoeval"  # no results predictor to fit
RUN_TABLES = ("runs", "episodes", "episode_events", "episode_scores", "llm_requests")
SUBMITTED = re.compile(r"Submitted diagnosis: .* \(ICD-10 ([^)]*)\)")


@pytest.fixture(scope="module")
def run(demo_home, tmp_path_factory):
    """A copy of the demo warehouse holding one scored run of the retrieval doctor on 8 cases."""
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("rejudge") / "home", symlinks=True)
    warehouse = Warehouse(home)
    written, _, _ = run_and_export(warehouse, CaseStore.from_warehouse(warehouse),
                                   RunSpec(doctor="retrieval", preset=PRESET, cases=8))
    return warehouse, written.run_id


def _files(warehouse: Warehouse) -> dict[str, str]:
    """Every file of the run tables, by path, with its content's hash."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for t in RUN_TABLES
            for p in sorted(warehouse.table_dir(t).glob("*.parquet"))}


def _judge(base_url: str) -> LLMConfig:
    return LLMConfig({"judge": RoleConfig("judge", base_url, "judge-model", max_attempts=3, backoff_s=0.01)},
                     max_in_flight=4)


def _grades(level: str) -> Reply:
    return Reply(json.dumps({"diagnosis_level": level, "evidence_matched": [], "evidence_unsupported": [],
                             "plan_matched": [], "plan_unsupported": []}))


def _codes(warehouse: Warehouse, run_id: str) -> pl.DataFrame:
    """Each episode's submitted code beside its stored scores, in case order."""
    episodes = warehouse.read_partition("episodes", run_id).select("episode_id", "final_icd10")
    return warehouse.read_partition(STORED, run_id).join(episodes, on="episode_id").sort("case_id")


def _kappa(a: list[bool], b: list[bool]) -> float:
    """Cohen's kappa from its definition: (p_o - p_e) / (1 - p_e)."""
    x, y = np.array(a, dtype=float), np.array(b, dtype=float)
    observed = np.mean(x == y)
    expected = x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean())
    return (observed - expected) / (1 - expected)


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    da, db = a - a.mean(), b - b.mean()
    return float((da * db).sum() / np.sqrt((da ** 2).sum() * (db ** 2).sum()))


def test_the_offline_judge_agrees_perfectly_with_itself_and_with_the_stored_scores(run):
    warehouse, run_id = run
    before = _files(warehouse)
    stored = warehouse.read_partition(STORED, run_id).sort("episode_id")
    assert stored.height == 8 and set(stored["strict"]) == {True, False}  # kappa is defined

    repeat = rejudge(warehouse, run_id, "offline", repeat=True)
    alternative = rejudge(warehouse, run_id, "offline")
    for row, first, second in ((repeat, "offline#1", "offline#2"), (alternative, STORED, "offline")):
        assert (row["first"], row["second"], row["n"]) == (first, second, 8)
        assert row["strict_agreement"] == row["strict_kappa"] == row["s_pearson"] == row["s_spearman"] == 1.0
        assert row["mean_s_first"] == row["mean_s_second"] and row["fallbacks_first"] == row["fallbacks_second"] == 0
    assert (repeat["kind"], alternative["kind"]) == ("repeat", "alternative")

    judged = warehouse.read_partition(JUDGED, run_id)
    assert sorted(judged["judging"].unique()) == ["offline", "offline#1", "offline#2"]
    for label in ("offline", "offline#1", "offline#2"):
        assert judged.filter(pl.col("judging") == label).drop("judging").sort("episode_id").equals(stored)
    rejudge(warehouse, run_id, "offline")  # a judging done again replaces its rows
    assert warehouse.read_partition(JUDGED, run_id).height == 24
    assert warehouse.read_partition(AGREEMENT, run_id).height == 2
    assert _files(warehouse) == before  # no episode played, no score of the run rewritten


def test_an_llm_judge_that_grades_some_episodes_otherwise_gives_the_kappa_computed_by_hand(run):
    warehouse, run_id = run
    before = _files(warehouse)
    stored = _codes(warehouse, run_id)
    # The LLM judge calls a diagnosis right exactly when its code is one of the first half's codes.
    right = set(stored["final_icd10"].head(4))
    expected = [code in right for code in stored["final_icd10"]]
    assert expected != stored["strict"].to_list() and len(set(expected)) == 2

    def answer(body):
        return _grades("code" if SUBMITTED.search(last_user(body)).group(1) in right else "none")

    with FakeOpenAI(answer) as server:
        row = rejudge(warehouse, run_id, "llm", llm=_judge(server.base_url))
    assert len(server.requests) == stored.filter(pl.col("final_icd10").is_not_null()).height

    judged = warehouse.read_partition(JUDGED, run_id).filter(pl.col("judging") == "llm:judge-model").sort("case_id")
    assert judged["judge"].unique().to_list() == ["llm"] and judged["judge_error"].null_count() == judged.height
    assert judged["strict"].to_list() == expected
    assert judged["turns_t"].to_list() == stored["turns_t"].to_list()  # the trace is the stored one
    offline = stored["strict"].to_list()
    assert (row["kind"], row["first"], row["second"], row["n"]) == ("alternative", STORED, "llm:judge-model", 8)
    assert row["strict_agreement"] == pytest.approx(np.mean(np.array(offline) == np.array(expected)), abs=1e-4)
    assert row["strict_kappa"] == pytest.approx(_kappa(offline, expected), abs=1e-4)
    assert row["s_pearson"] == pytest.approx(_pearson(stored["score_s"].to_numpy(), judged["score_s"].to_numpy()),
                                             abs=1e-4)
    assert row["mean_s_second"] == pytest.approx(judged["score_s"].mean(), abs=1e-4)
    assert _files(warehouse) == before


def test_a_same_judge_repeat_measures_an_llm_judges_self_consistency(run):
    warehouse, run_id = run
    stored = _codes(warehouse, run_id)
    right = set(stored["final_icd10"].head(4))
    wavering = stored["final_icd10"][0]  # graded right in the first pass only
    per_pass = stored.filter(pl.col("final_icd10").is_not_null()).height
    asked = []

    def answer(body):
        asked.append(body)
        code = SUBMITTED.search(last_user(body)).group(1)
        second_pass = len(asked) > per_pass  # the passes run one after the other
        return _grades("code" if code in right and not (code == wavering and second_pass) else "none")

    with FakeOpenAI(answer) as server:
        row = rejudge(warehouse, run_id, "llm", repeat=True, llm=_judge(server.base_url))
    assert len(asked) == 2 * per_pass
    first = [code in right for code in stored["final_icd10"]]
    second = [code in right and code != wavering for code in stored["final_icd10"]]
    judged = warehouse.read_partition(JUDGED, run_id)
    for label, strict in (("llm:judge-model#1", first), ("llm:judge-model#2", second)):
        assert judged.filter(pl.col("judging") == label).sort("case_id")["strict"].to_list() == strict
    assert (row["kind"], row["first"], row["second"]) == ("repeat", "llm:judge-model#1", "llm:judge-model#2")
    assert first != second
    assert row["strict_agreement"] == pytest.approx(np.mean(np.array(first) == np.array(second)), abs=1e-4)
    assert row["strict_kappa"] == pytest.approx(_kappa(first, second), abs=1e-4)
    agreement = warehouse.read_partition(AGREEMENT, run_id)
    assert agreement.filter(pl.col("kind") == "repeat").height >= 1


def test_a_judge_is_offline_or_llm_and_a_run_must_exist(run):
    warehouse, _ = run
    with pytest.raises(ValueError, match="no judge 'gpt'"):
        make_judge("gpt")
    with pytest.raises(KeyError, match="judge role"):
        make_judge("llm", LLMConfig())
    with pytest.raises(KeyError, match="no episodes of run 'missing'"):
        rejudge(warehouse, "missing", "offline", repeat=True)


def test_the_rejudge_command_grades_a_stored_run_and_names_a_missing_one(run, capsys):
    from pipelines.cli import main

    warehouse, run_id = run
    assert main(["rejudge", "--home", str(warehouse.home), "--run", run_id, "--repeat"]) == 0
    repeat = warehouse.read_partition(AGREEMENT, run_id).filter(pl.col("first") == "offline#1")
    assert repeat.height == 1 and repeat["strict_agreement"][0] == 1.0
    assert main(["rejudge", "--home", str(warehouse.home), "--run", "nosuchrun"]) == 2
    said = capsys.readouterr()
    assert "no episodes of run 'nosuchrun'" in " ".join((said.out + said.err).split())
