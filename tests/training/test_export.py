"""`clinverse export` on the session's demo warehouse: the five files and their schemas, step samples
only from finalised episodes at or above the threshold, each replaying through the engine to its
context and its recorded action (memory cards and error turns included), error turns never samples,
the split kept, the card counting what the files hold, the data use refusal for MIMIC-derived
content, the same bytes twice, and an episode the engine no longer reproduces left out of the
samples."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

import schemas
from pipelines.cli import main
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, turn_of
from pipelines.episodes.messages import say
from pipelines.episodes.runs import RunSpec, run_and_export
from pipelines.episodes.store import CaseStore
from pipelines.training.export import FILES, Export, ExportSettings, export
from pipelines.training.replay import RecordedMemory, run_settings
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow

PRESET = "medevoeval"  # no results predictor to fit
LOW = 0.5  # below the default (the pass threshold, 0.7), so the runs give samples from both splits

UNUSABLE = "I think it is pneumonia."  # no JSON object: an error turn
SCRIPT = [UNUSABLE, json.dumps({"action": "ASK", "question": "What brings you in today?"}),
          json.dumps({"action": "FINALIZE", "diagnosis": ["Pneumonia"], "icd10": "J18.9", "evidence": ["cough"],
                      "plan": ["antibiotics"], "followup": ["review in 48 hours"]})]
LLM_RUN = RunSpec(doctor="llm", cases=2, preset=PRESET)


@pytest.fixture(scope="module")
def played(demo_home, tmp_path_factory) -> Path:
    """A copy of the demo warehouse with a test-split run, a train-split run with memory and a scripted
    LLM doctor's run whose first output is unusable (an error turn), all scored."""
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("export") / "home", symlinks=True)
    warehouse, store = Warehouse(home), CaseStore.from_home(home)
    for spec in (RunSpec(doctor="retrieval", cases=8, preset=PRESET),
                 RunSpec(doctor="retrieval", cases=8, preset=PRESET, split="train", memory="empty")):
        run_and_export(warehouse, store, spec)
    with FakeOpenAI(lambda body: Reply(SCRIPT[min(turn_of(body), len(SCRIPT) - 1)])) as server:
        llm = LLMConfig.from_env({"CLINVERSE_LLM_BASE_URL": server.base_url, "CLINVERSE_LLM_MODEL": "doctor-model"})
        run_and_export(warehouse, store, LLM_RUN, llm=llm)
    return home


@pytest.fixture(scope="module")
def exported(played, tmp_path_factory) -> Export:
    return export(Warehouse(played), tmp_path_factory.mktemp("out"), ExportSettings(min_score=LOW))


@pytest.fixture(scope="module")
def every_finalised(played, tmp_path_factory) -> Export:
    """The export with no threshold: every finalised episode gives samples (the LLM run's too)."""
    return export(Warehouse(played), tmp_path_factory.mktemp("all"), ExportSettings(min_score=0.0))


def _episodes(home: Path) -> pl.DataFrame:
    warehouse = Warehouse(home)
    return warehouse.read("episodes").join(warehouse.read("episode_scores").select("episode_id", "score_s"),
                                           on="episode_id")


def test_the_export_writes_its_files_valid_and_the_same_rows_in_both_formats(played, exported):
    assert sorted(p.name for p in exported.out.iterdir()) == sorted(FILES)
    for table in ("trajectories", "step_samples"):
        schemas.validate_parquet(table, exported.out / f"{table}.parquet")
        parquet = pl.read_parquet(exported.out / f"{table}.parquet")
        assert pl.read_ndjson(exported.out / f"{table}.jsonl", schema=parquet.schema).equals(parquet)
    episodes = _episodes(played)
    trajectories = pl.read_parquet(exported.out / "trajectories.parquet")
    assert sorted(trajectories["episode_id"]) == sorted(episodes["episode_id"])  # one per episode of every run
    assert set(trajectories["observed"]) == {"replayed"}
    scores = dict(episodes.select("episode_id", "score_s").iter_rows())
    assert all(scores[e] == s for e, s in trajectories.select("episode_id", "score_s").iter_rows())
    finals = trajectories.filter(pl.col("termination") == "finalized")
    assert finals["final_output"].struct.field("icd10").is_not_null().all()
    assert "Data use restriction" not in (exported.out / "README.md").read_text()  # the demo is synthetic


def test_step_samples_come_only_from_finalised_episodes_at_or_above_the_threshold(played, exported, every_finalised,
                                                                                   tmp_path):
    episodes = _episodes(played)
    above = episodes.filter((pl.col("termination") == "finalized") & (pl.col("score_s") >= LOW))
    assert 0 < above.height < episodes.height
    samples = exported.samples
    assert set(samples["episode_id"]) == set(above["episode_id"])
    scores = dict(above.select("episode_id", "score_s").iter_rows())
    assert all(scores[e] == s for e, s in samples.select("episode_id", "episode_score").iter_rows())
    assert exported.excluded == {"below_threshold": episodes.height - above.height}
    stricter = export(Warehouse(played), tmp_path / "pass", ExportSettings())  # the pass threshold, 0.7
    assert stricter.samples.height < samples.height
    assert set(stricter.samples["sample_id"]) <= set(samples["sample_id"])
    assert (stricter.samples["episode_score"] >= 0.7).all()
    assert stricter.trajectories.equals(exported.trajectories)  # the threshold picks samples only
    assert set(samples["sample_id"]) < set(every_finalised.samples["sample_id"])
    finalised = episodes.filter(pl.col("termination") == "finalized")["episode_id"]
    assert set(every_finalised.samples["episode_id"]) == set(finalised)


def test_each_step_sample_replays_to_its_context_and_its_recorded_action(played, every_finalised):
    warehouse, store = Warehouse(played), CaseStore.from_home(played)
    runs = {r["run_id"]: r for r in warehouse.read("runs").iter_rows(named=True)}
    cards = dict(warehouse.read("memory_cards").select("card_id", "rule_text").iter_rows())
    events = warehouse.read("episode_events")
    doctor = {(e, t): (a, c, error) for e, t, a, c, error in events.filter(pl.col("actor") == "doctor")
              .select("episode_id", "turn", "action", "content", "error").iter_rows()}
    trajectories = {r["episode_id"]: r for r in every_finalised.trajectories.iter_rows(named=True)}
    shown_cards = error_turns = 0
    for sample in every_finalised.samples.iter_rows(named=True):
        episode_id = sample["episode_id"]
        trajectory = trajectories[episode_id]
        run = runs[trajectory["run_id"]]
        trace = events.filter(pl.col("episode_id") == episode_id).to_dicts()
        memory = RecordedMemory.of(trace, cards) if run["memory_mode"] != "off" else None
        episode = DiagnosticEpisode(run_settings(store, run, memory))
        observations = [episode.reset(case_id=trajectory["case_id"], run_id=run["run_id"])]
        context = sample["context"]
        for turn, message in enumerate((m for m in context if m["role"] == "assistant"), start=1):
            if message["tool_calls"] is None:  # an error turn: the unusable output, and why it was unusable
                observations.append(episode.engine.error_turn(message["content"], doctor[(episode_id, turn)][2]))
                error_turns += 1
                continue
            call = message["tool_calls"][0]["function"]
            observations.append(getattr(episode, call["name"])(**json.loads(call["arguments"])))
        assert context[0]["content"].endswith(observations[0])
        assert [m["content"] for m in context[1:] if m["role"] in ("tool", "user")] == observations[1:]
        target = json.loads(sample["target_action"])
        call = target["tool_call"]
        assert getattr(episode, call["name"])(**call["arguments"]) == target["observation"]
        last = [e for e in episode.engine.events if e.actor == "doctor"][-1]
        assert episode.engine.episode_id == episode_id
        assert (last.turn, last.action, last.content) == (sample["turn"], *doctor[(episode_id, sample["turn"])][:2])
        assert target["action"] == last.action and target["output"] == json.loads(last.content)
        assert target["action"] in sample["available_actions"]
        shown_cards += len(last.memory_card_ids)
    assert shown_cards > 0  # the memory run's contexts carry the cards its decisions were shown
    assert error_turns > 0  # the LLM run's later contexts hold its error turn


def test_the_split_of_every_row_is_its_cases(played, exported):
    splits = dict(Warehouse(played).read("cases").select("case_id", "split").iter_rows())
    trajectories = exported.trajectories
    assert all(splits[c] == s for c, s in trajectories.select("case_id", "split").iter_rows())
    by_episode = dict(trajectories.select("episode_id", "split").iter_rows())
    assert all(by_episode[e] == s for e, s in exported.samples.select("episode_id", "split").iter_rows())
    assert set(exported.samples["split"]) == {"train", "test"}


def test_the_card_counts_what_the_files_hold(exported):
    card = (exported.out / "README.md").read_text()
    trajectories = pl.read_parquet(exported.out / "trajectories.parquet")
    samples = pl.read_parquet(exported.out / "step_samples.parquet").join(
        trajectories.select("episode_id", "run_id", "source", "dataset"), on="episode_id")
    assert f"| `trajectories.jsonl`, `trajectories.parquet` | {trajectories.height} |" in card
    assert f"| `step_samples.jsonl`, `step_samples.parquet` | {samples.height} |" in card
    for split in ("train", "test"):
        episodes, steps = (f.filter(pl.col("split") == split).height for f in (trajectories, samples))
        assert f"| {split} | {episodes} | {steps} |" in card
    for (source, dataset), group in trajectories.group_by("source", "dataset"):
        steps = samples.filter((pl.col("source") == source) & (pl.col("dataset") == dataset)).height
        assert f"| {source} | {dataset} | {group.height} | {steps} |" in card
    for (run_id, doctor), group in trajectories.group_by("run_id", "doctor"):
        steps = samples.filter(pl.col("run_id") == run_id).height
        assert f"| {run_id} | {doctor} |" in card and f"| {group.height} | {steps} |\n" in card
    assert f"S >= {LOW}" in card and "| below_threshold |" in card and "schema digest" in card
    assert "| demo | ClinVerse generated demo" in card


def test_mimic_derived_content_is_written_only_with_the_acknowledgement(played, exported, tmp_path, capsys):
    home = shutil.copytree(played, tmp_path / "home", symlinks=True)
    warehouse = Warehouse(home)
    credentialed = pl.when(pl.col("source") == "mimic_iv").then(pl.lit("mimic-iv-2.2")).otherwise("dataset")
    warehouse.write("cases", warehouse.read("cases").with_columns(credentialed.alias("dataset")))
    run_id = exported.trajectories.filter(pl.col("source") == "mimic_iv")["run_id"][0]
    out = tmp_path / "out"
    command = ["export", "--home", str(home), "--out", str(out), "--run", run_id]
    assert main(command) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "export refused" in err and "MIMIC-IV" in err and "--acknowledge-data-use" in err
    assert not out.exists()
    assert main([*command, "--acknowledge-data-use"]) == 0
    card = (out / "README.md").read_text()
    assert "## Data use restriction" in card and "derived from MIMIC-IV" in card
    assert "| mimic_iv | MIMIC-IV" in card and "PhysioNet Credentialed Health Data License 1.5.0" in card
    trajectories = pl.read_parquet(out / "trajectories.parquet")
    assert set(trajectories["run_id"]) == {run_id} and "mimic-iv-2.2" in set(trajectories["dataset"])


def test_an_error_turn_is_no_sample_but_later_contexts_show_it(played, every_finalised):
    run_id = LLM_RUN.id
    trajectories = every_finalised.trajectories.filter(pl.col("run_id") == run_id)
    assert trajectories.height == 2 and set(trajectories["observed"]) == {"replayed"}
    assert set(trajectories["doctor_model"]) == {"doctor-model"} and (trajectories["n_error_turns"] == 1).all()
    errors = dict(Warehouse(played).read_partition("episode_events", run_id).filter(pl.col("action") == "ERROR")
                  .select("episode_id", "error").iter_rows())
    for trajectory in trajectories.iter_rows(named=True):
        samples = every_finalised.samples.filter(pl.col("episode_id") == trajectory["episode_id"]).sort("turn")
        assert samples["turn"].to_list() == [2, 3]  # the ASK and the FINALIZE, not the error turn of turn 1
        chat = trajectory["messages"]
        assert chat[1]["content"] == UNUSABLE and chat[1]["tool_calls"] is None
        assert chat[2] | {"content": None} == {"role": "user", "content": None, "tool_calls": None,
                                               "tool_call_id": None, "name": None}
        assert chat[2]["content"].startswith(say("error_turn", reason=errors[trajectory["episode_id"]]))
        assert [s["context"] for s in samples.iter_rows(named=True)] == [chat[:3], chat[:5]]


def test_an_unknown_run_or_threshold_writes_nothing(played, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["export", "--home", str(played), "--out", str(out), "--run", "nope"]) == 2
    assert "no run nope in the warehouse" in " ".join(capsys.readouterr().err.split())
    assert main(["export", "--home", str(played), "--out", str(out), "--min-score", "1.5"]) == 2
    assert "in [0, 1]" in capsys.readouterr().err
    assert not out.exists()


def test_the_same_warehouse_gives_the_same_bytes(played, exported, tmp_path):
    again = export(Warehouse(played), tmp_path, ExportSettings(min_score=LOW))
    for name in FILES:
        assert (again.out / name).read_bytes() == (exported.out / name).read_bytes(), name


def test_an_episode_the_engine_no_longer_reproduces_gives_a_trace_trajectory_and_no_samples(played, exported, tmp_path):
    home = shutil.copytree(played, tmp_path / "home", symlinks=True)
    warehouse = Warehouse(home)
    episode_id = exported.samples["episode_id"][0]
    [path] = [p for p in warehouse.table_dir("episode_events").glob("*.parquet")
              if episode_id in pl.read_parquet(p, columns=["episode_id"])["episode_id"]]
    events = pl.read_parquet(path).with_row_index()
    first_reply = events.filter((pl.col("episode_id") == episode_id) & (pl.col("actor") == "patient"))["index"][0]
    tampered = pl.when(pl.col("index") == first_reply).then(pl.lit("A reply the patient never gave.")) \
        .otherwise("content")
    warehouse.write("episode_events", events.with_columns(tampered.alias("content")).drop("index"), partition=path.stem)
    result = export(warehouse, tmp_path / "out", ExportSettings(min_score=LOW))
    assert episode_id not in set(result.samples["episode_id"])
    assert result.excluded["not_replayed"] == 1
    [row] = result.trajectories.filter(pl.col("episode_id") == episode_id).to_dicts()
    assert row["observed"] == "trace"
    replies = [m["content"] for m in row["messages"] if m["role"] == "tool"]
    assert replies[0].startswith("A reply the patient never gave.")
    others = result.trajectories.filter(pl.col("episode_id") != episode_id)
    assert others.equals(exported.trajectories.filter(pl.col("episode_id") != episode_id))
