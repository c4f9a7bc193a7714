"""Episode runs in the warehouse: resume, refusal of a reused id, JSONL export, the Dagster asset
partitioned by run, the stress-test asset with its check, and the `clinverse episodes` command."""

import json
import shutil

import dagster as dg
import polars as pl
import pytest

from assets.episodes import EPISODE_RUNS, dual_layer_with_self_check_discloses_nothing, episode_run, stress_test
from pipelines.cli import main
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, turn_of
from pipelines.episodes.runs import RunSpec, export_jsonl, run, run_summary
from pipelines.episodes.store import CaseStore
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow


@pytest.fixture()
def home(demo_home, tmp_path):
    """A private copy of the session's demo warehouse (these tests write runs into it)."""
    return shutil.copytree(demo_home, tmp_path / "home", symlinks=True)


# No results predictor to fit: each CLI call fits the shared backends afresh, ClinLab the slowest.
FAST_PRESET = "medevoeval"


class Interrupted(Exception):
    pass


def _interrupt_after(batches: int):
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == batches:
            raise Interrupted

    return progress


def test_an_interrupted_run_resumes_and_gives_the_same_trace(home):
    warehouse, store = Warehouse(home), CaseStore.from_home(home)
    spec = RunSpec(doctor="retrieval", cases=6, preset=FAST_PRESET)
    with pytest.raises(Interrupted):
        run(warehouse, store, spec, progress=_interrupt_after(1), batch=2)
    assert warehouse.read_partition("episodes", spec.id).height == 2
    resumed = run(warehouse, store, spec, batch=2)
    assert (resumed.total, resumed.new, resumed.resumed) == (6, 4, 2)
    assert run(warehouse, store, spec).new == 0  # a finished run is not run again
    whole = run(warehouse, store, RunSpec(doctor="retrieval", cases=6, run_id="whole", preset=FAST_PRESET), batch=6)
    assert whole.new == 6
    keep = ["turn", "actor", "action", "content", "test_name", "match_type", "unit_ids", "self_check", "error"]
    by_case = lambda run_id: warehouse.read_partition("episode_events", run_id).join(  # noqa: E731
        warehouse.read_partition("episodes", run_id).select("episode_id", "case_id"), on="episode_id"
    ).select("case_id", *keep).sort("case_id", "turn", "actor", "content")
    assert by_case(spec.id).equals(by_case("whole"))  # resuming changes nothing in the trace


def test_a_run_id_reused_with_other_settings_is_refused(home):
    warehouse, store = Warehouse(home), CaseStore.from_home(home)
    run(warehouse, store, RunSpec(doctor="random", cases=2, run_id="mine", preset=FAST_PRESET))
    with pytest.raises(ValueError, match="exists with another configuration"):
        run(warehouse, store, RunSpec(doctor="random", cases=2, seed=99, run_id="mine", preset=FAST_PRESET))
    with pytest.raises(ValueError, match="not ending in -NNNNN"):
        RunSpec(doctor="random", run_id="mine-00001")


def test_traces_export_as_json_lines_and_the_summary_scores_blocks(home, tmp_path):
    warehouse, store = Warehouse(home), CaseStore.from_home(home)
    written = run(warehouse, store, RunSpec(doctor="full_info", cases=5, preset=FAST_PRESET))
    lines = export_jsonl(warehouse, written.run_id, tmp_path / "trace.jsonl")
    records = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert lines == len(records) == 5
    assert records[0]["events"][0]["action"] == "START" and records[0]["events"][-1]["actor"] in {"controller", "doctor"}
    summary = run_summary(warehouse, store, written.run_id)
    assert summary["episodes"] == 5 and 0.0 <= summary["block_accuracy"] <= 1.0


def test_the_episode_asset_is_partitioned_by_run(home):
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(EPISODE_RUNS.name, ["ui-run"])
    result = dg.materialize([episode_run], partition_key="ui-run", instance=instance,
                            resources={"clinverse": ClinverseResource(home=str(home))},
                            run_config={"ops": {"episode_run": {"config": {"doctor": "random", "cases": 4,
                                                                           "preset": FAST_PRESET}}}})
    assert result.success
    metadata = result.asset_materializations_for_node("episode_run")
    assert {m.asset_key.to_user_string() for m in metadata} == {"runs", "episodes", "episode_events", "llm_requests",
                                                                 "memory_cards"}
    assert Warehouse(home).read_partition("episodes", "ui-run").height == 4
    assert (home / "exports" / "episodes-ui-run.jsonl").exists()


def test_the_stress_test_asset_and_its_check(home):
    resources = {"clinverse": ClinverseResource(home=str(home))}
    result = dg.materialize([stress_test, dual_layer_with_self_check_discloses_nothing], resources=resources)
    assert result.success and all(c.passed for c in result.get_asset_check_evaluations())
    rows = Warehouse(home).read("stress_test")
    leaky = rows.with_columns(
        pl.when(pl.col("configuration") == "dual_layer+self_check").then(True).otherwise(pl.col("disclosed"))
        .alias("disclosed"))
    Warehouse(home).write("stress_test", leaky)
    failed = dg.materialize([stress_test, dual_layer_with_self_check_discloses_nothing], resources=resources,
                            selection=dg.AssetSelection.checks(dual_layer_with_self_check_discloses_nothing),
                            raise_on_error=False)
    evaluation = failed.get_asset_check_evaluations()[0]
    assert not evaluation.passed and evaluation.metadata["disclosed"].value == evaluation.metadata["queries"].value


def test_clinverse_episodes_runs_resumes_and_prints_a_summary(home, capsys):
    args = ["episodes", "--home", str(home), "--doctor", "retrieval", "--cases", "3", "--preset", FAST_PRESET]
    assert main(args) == 0
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "(0 new, 3 resumed)" in " ".join(captured.out.split())
    assert main(["episodes", "--home", str(home), "--doctor", "nobody"]) == 2
    assert "unknown doctor 'nobody'" in capsys.readouterr().err


DOCTOR_SCRIPT = [{"action": "ASK", "question": "What brings you in today?"},
                 {"action": "REQUEST_TEST", "test_name": "CBC"},
                 {"action": "FINALIZE", "diagnosis": ["Pneumonia"], "icd10": "J18.9", "evidence": ["cough"],
                  "plan": ["antibiotics"], "followup": ["review in 48 hours"]}]


def _doctor(body):
    return Reply(json.dumps(DOCTOR_SCRIPT[min(turn_of(body), len(DOCTOR_SCRIPT) - 1)]))


def test_clinverse_episodes_drives_an_llm_doctor_writes_its_ledger_and_resumes(home, monkeypatch, capsys):
    args = ["episodes", "--home", str(home), "--doctor", "llm", "--cases", "3", "--preset", FAST_PRESET]
    run_id = RunSpec(doctor="llm", cases=3, preset=FAST_PRESET).id
    with FakeOpenAI(_doctor) as server:
        monkeypatch.setenv("CLINVERSE_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("CLINVERSE_LLM_MODEL", "doctor-model")
        assert main(args) == 0
        sent = len(server.requests)
        assert main(args) == 0  # the finished run resumes: nothing is sent again
        assert len(server.requests) == sent == 9
        monkeypatch.setenv("CLINVERSE_LLM_MODEL", "another-model")
        assert main(args) == 2  # the same run with another model is refused, not mixed
    captured = capsys.readouterr()
    assert "(0 new, 3 resumed)" in " ".join(captured.out.split())
    assert "exists with another configuration" in " ".join(captured.err.split())
    warehouse = Warehouse(home)
    episodes = warehouse.read_partition("episodes", run_id)
    assert episodes.height == 3 and set(episodes["termination"]) == {"finalized"}
    assert set(episodes["final_icd10"]) == {"J18.9"}
    requests = warehouse.read_partition("llm_requests", run_id)
    assert requests.height == sent and set(requests["role"]) == {"doctor"} and set(requests["status"]) == {"ok"}
    assert requests["prompt_tokens"].sum() > 0 and set(requests["episode_id"]) == set(episodes["episode_id"])
    assert warehouse.read_partition("runs", run_id)["doctor_model"].item() == "doctor-model"
    monkeypatch.delenv("CLINVERSE_LLM_BASE_URL")
    assert main(["episodes", "--home", str(home), "--doctor", "llm", "--run-id", "unserved"]) == 2
    assert "no LLM configured for the doctor role" in " ".join(capsys.readouterr().err.split())


def test_the_clinlab_eval_asset_and_its_check(home):
    from assets.episodes import clinlab_beats_the_baseline_overall, clinlab_eval

    resources = {"clinverse": ClinverseResource(home=str(home))}
    result = dg.materialize([clinlab_eval, clinlab_beats_the_baseline_overall], resources=resources)
    assert result.success and all(c.passed for c in result.get_asset_check_evaluations())
    frame = Warehouse(home).read("clinlab_eval")
    assert {"clinlab", "population_median"} == set(frame["predictor"]) and "ALL" in set(frame["exam_name"])
    worse = frame.with_columns(pl.when(pl.col("predictor") == "clinlab").then(pl.col("mae") * 10)
                               .otherwise(pl.col("mae")).alias("mae"))
    Warehouse(home).write("clinlab_eval", worse)
    failed = dg.materialize([clinlab_eval, clinlab_beats_the_baseline_overall], resources=resources,
                            selection=dg.AssetSelection.checks(clinlab_beats_the_baseline_overall))
    evaluation = failed.get_asset_check_evaluations()[0]
    assert not evaluation.passed and evaluation.metadata["behind_the_baseline_on"].value == "mae"
