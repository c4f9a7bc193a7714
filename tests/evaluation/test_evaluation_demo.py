"""On the session's demo warehouse: the build writes the rubrics, a run is scored as it is played
(`clinverse episodes`, the ``episodes`` job), exported traces re-score to the stored scores, the
offline doctors order as they should, and a trainer's reward is the outcome score S."""

from __future__ import annotations

import shutil

import dagster as dg
import polars as pl
import pytest

import schemas
from assets.episodes import EPISODE_RUNS, episode_run, episode_scores
from assets.evaluation import case_references
from pipelines.cli import main
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows
from pipelines.episodes.runs import RunSpec, run_and_export
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.runs import references, rescore_jsonl, run_conditions
from pipelines.evaluation.scores import Conditions, score_traces, traces
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow


@pytest.fixture()
def home(demo_home, tmp_path):
    """A private copy of the session's demo warehouse (these tests write into it)."""
    return shutil.copytree(demo_home, tmp_path / "home", symlinks=True)


def test_the_build_writes_rubrics_and_exams_that_matter_for_every_case(demo_home):
    warehouse = Warehouse(demo_home)
    cases, rubrics = warehouse.read("cases"), schemas.validate("case_rubrics", warehouse.read("case_rubrics"))
    targets = schemas.validate("case_exam_targets", warehouse.read("case_exam_targets"))
    assert set(targets["case_id"]) <= set(cases["case_id"]) and targets.height > 0
    evidence = rubrics.filter(pl.col("kind") == "evidence")
    sources = dict(cases.select("case_id", "source").iter_rows())
    # every MIMIC-IV and MedQA case has evidence points (SICdb's demo stays have no key unit and
    # no abnormal flag: their evidence weight is redistributed)
    assert {c for c, s in sources.items() if s != "sicdb"} <= set(evidence["case_id"])
    with_plan = set(rubrics.filter(pl.col("kind") == "management")["case_id"])
    assert with_plan and {sources[c] for c in with_plan} == {"mimic_iv"}  # SICdb and MedQA record no treatment
    medqa = set(warehouse.read("medqa_rubric")["case_id"]) & set(cases["case_id"])
    assert set(evidence.filter(pl.col("basis") == "medqa_rubric")["case_id"]) == medqa


def test_the_references_in_parts_are_those_of_the_whole_store(demo_home):
    """The step reads the cohort in parts (CaseStore.parts_of): the weights from every part's train
    cases, then every case part by part, as from one store of all cases."""
    from assets.evaluation import _prescriptions
    from pipelines.evaluation.rubrics import build

    warehouse = Warehouse(demo_home)
    medqa, prescriptions = warehouse.read("medqa_rubric"), _prescriptions(warehouse)
    parts = CaseStore.parts_of(warehouse, 7, optional=())
    ids = [store.case_ids() for store in parts]
    assert [i for part in ids for i in part] == CaseStore.case_ids_of(warehouse) and max(map(len, ids)) == 7
    assert len(ids) > 2 and all(store.table("case_rubrics") is None for store in parts)
    whole = build([CaseStore.from_warehouse(warehouse, optional=())], medqa, prescriptions)
    in_parts = build(parts, medqa, prescriptions)
    assert in_parts[0].equals(whole[0]) and in_parts[1].equals(whole[1])
    assert in_parts[0].equals(warehouse.read("case_exam_targets")) and in_parts[1].equals(warehouse.read("case_rubrics"))
    with pytest.raises(TypeError, match="twice"):
        build(iter(parts), medqa, prescriptions)
    with pytest.raises(ValueError, match="at least 1"):
        list(CaseStore.parts_of(warehouse, 0))


def test_the_rubric_asset_and_the_scores_asset_of_the_episodes_job(home):
    resources = {"clinverse": ClinverseResource(home=str(home))}
    assert dg.materialize([case_references], resources=resources).success
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(EPISODE_RUNS.name, ["ui-run"])
    result = dg.materialize([episode_run, episode_scores], partition_key="ui-run", instance=instance,
                            resources=resources,
                            run_config={"ops": {"episode_run": {"config": {"doctor": "retrieval", "cases": 4}}}})
    assert result.success
    (scored,) = result.asset_materializations_for_node("episode_scores")
    assert scored.metadata["episodes"].value == 4 and "mean_s" in scored.metadata
    scores = Warehouse(home).read_partition("episode_scores", "ui-run")
    assert scores.height == 4 and set(scores["run_id"]) == {"ui-run"}


def test_runs_are_scored_as_they_are_played_and_exports_rescore_to_the_same_scores(home):
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    means = {}
    for doctor in ("full_info", "retrieval", "random"):
        written, summary, export = run_and_export(warehouse, store, RunSpec(doctor=doctor, preset="medevoeval"))
        stored = warehouse.read_partition("episode_scores", written.run_id)
        assert stored.height == written.total == summary["episodes"]
        assert {"mean_s", "mean_u", "mean_icr", "mean_toc", "mean_atc", "mean_dca", "mean_dsa"} <= set(summary)
        again = rescore_jsonl(export, references(warehouse, store), run_conditions(warehouse, written.run_id))
        assert again.sort("episode_id").equals(stored.sort("episode_id"))
        means[doctor] = summary
    assert means["full_info"]["mean_s"] > means["retrieval"]["mean_s"] > means["random"]["mean_s"]
    assert means["full_info"]["mean_dca"] > means["random"]["mean_dca"]
    assert main(["episodes", "--home", str(home), "--doctor", "random", "--cases", "2"]) == 0
    assert warehouse.read_partition("episode_scores", RunSpec(doctor="random", cases=2).id).height == 2


def test_a_trainers_reward_is_the_outcome_score(home):
    store = CaseStore.from_home(home)
    assert store.table("case_rubrics") is not None
    settings = EpisodeSettings(store, "medevoeval", 7)
    case_id = store.case_ids("test")[0]
    manager = store.case(case_id).manager
    env = DiagnosticEpisode(settings)
    env.reset(case_id=case_id)
    env.ask(["What brings you in?"])
    env.finalize(manager.diagnosis_name, manager.primary_icd10 or "R69", ["what brings you in"], [], [])
    episode = {"episode_id": env.engine.episode_id, "run_id": "live", "case_id": case_id, "doctor": "trainer",
               "n_tests": 0, "n_invalid_tests": 0}
    scored = score_traces(traces(pl.DataFrame([episode]), pl.DataFrame(event_rows(env.engine.episode_id,
                                                                                   env.engine.events))),
                          references(Warehouse(home), store), {"live": Conditions(10, 3)}, OfflineJudge())
    assert env.get_reward() == pytest.approx(scored["score_s"].item()) and scored["strict"].item()
