"""The TRL-shaped episode driven the way ``GRPOTrainer(environment_factory=...)`` drives it: a
no-argument ``DiagnosticEpisode()``, ``reset(**row)`` from a dataset row, the public methods as
tools (their schemas as transformers builds them), tool calls from a scripted policy, and
``get_reward()``. The policy replays what an offline doctor did in a CLI run (run_and_export, as
`clinverse episodes` calls it) on the same cases and seed: the tools give the same trace and the
reward is the S the CLI's scoring wrote."""

import inspect
import shutil
from dataclasses import asdict

import pytest

from pipelines.episodes import actions, settings
from pipelines.episodes.actions import Ask, CallMdt, Finalize, RequestTest
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows, events_frame
from pipelines.episodes.runs import RunSpec, run_and_export
from pipelines.episodes.store import CaseStore
from pipelines.training.trl_env import episode_dataset, episode_reward, tool_instruction
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow

PRESET = "medevoeval"  # no results predictor to fit
TOOLS = {Ask: "ask", RequestTest: "request_test", CallMdt: "call_mdt", Finalize: "finalize"}


@pytest.fixture(scope="module")
def recorded(demo_home, tmp_path_factory):
    """A copy of the demo warehouse with one CLI run of the retrieval doctor on three train cases."""
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("trl") / "home", symlinks=True)
    warehouse = Warehouse(home)
    written, summary, _ = run_and_export(warehouse, CaseStore.from_warehouse(warehouse),
                                         RunSpec(doctor="retrieval", split="train", cases=3, preset=PRESET))
    assert "mean_s" in summary  # the run was scored
    return home, written.run_id


@pytest.fixture()
def trainer_settings(recorded, monkeypatch):
    """What a training script does first: point every DiagnosticEpisode() at the warehouse."""
    monkeypatch.setattr(settings, "_settings", None)  # the process-wide settings, restored afterwards
    return settings.configure(recorded[0], preset_name=PRESET)


def trainer_tools(episode):
    """The tools TRL takes from an environment: its public methods but reset and get_reward."""
    return {name: method for name, method in inspect.getmembers(episode, predicate=inspect.ismethod)
            if not name.startswith("_") and name not in ("reset", "get_reward")}


def tool_call(action):
    """A recorded doctor action as the tool call a policy would emit: (name, arguments)."""
    return TOOLS[type(action)], {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(action).items()}


def test_rows_are_the_train_cases_in_order_unless_the_test_split_is_asked_for(recorded):
    home, _ = recorded
    store = CaseStore.from_home(home)
    rows = episode_dataset(home)
    assert [r["case_id"] for r in rows] == sorted(store.case_ids("train"))
    test_rows = episode_dataset(Warehouse(home), "test", limit=2)
    assert [r["case_id"] for r in test_rows] == sorted(store.case_ids("test"))[:2]
    assert rows[0]["prompt"] == [{"role": "user", "content": tool_instruction() + "\n\n"}]
    with pytest.raises(ValueError, match="split"):
        episode_dataset(home, "validation")


def test_tool_schemas_as_transformers_builds_them(trainer_settings):
    get_json_schema = pytest.importorskip("transformers.utils").get_json_schema
    schemas = {name: get_json_schema(method)["function"] for name, method in trainer_tools(DiagnosticEpisode()).items()}
    assert {name: sorted(s["parameters"]["properties"]) for name, s in schemas.items()} == {
        "ask": ["questions"], "request_test": ["names"], "call_mdt": ["question"],
        "finalize": ["diagnosis", "evidence", "follow_up", "icd10", "plan"]}
    assert schemas["finalize"]["parameters"]["required"] == ["diagnosis", "icd10", "evidence", "plan", "follow_up"]
    assert schemas["ask"]["parameters"]["properties"]["questions"] == {
        "type": "array", "items": {"type": "string"},
        "description": "One or two questions for the patient, each about the history or symptoms."}
    assert all(s["description"] and all(p["description"] for p in s["parameters"]["properties"].values())
               for s in schemas.values())


def test_reset_is_the_same_for_every_member_of_a_group(trainer_settings, recorded):
    row = episode_dataset(recorded[0])[0]
    group = [DiagnosticEpisode() for _ in range(2)]
    openings = {episode.reset(**row) for episode in group}
    replies = {episode.ask(["Where does it hurt?", "Since when?"]) for episode in group}
    assert len(openings) == 1 and len(replies) == 1
    assert episode_reward(group) == [0.0, 0.0]  # nothing finalised yet


def test_a_scripted_policy_reproduces_the_cli_scores(trainer_settings, recorded):
    home, run_id = recorded
    warehouse = Warehouse(home)
    episodes = warehouse.read_partition("episodes", run_id)
    events = warehouse.read_partition("episode_events", run_id).sort("turn", maintain_order=True)
    scores = dict(warehouse.read_partition("episode_scores", run_id).select("case_id", "score_s").iter_rows())
    rows = {row["case_id"]: row for row in episode_dataset(home)}
    environments = []
    for episode_id, case_id in episodes.select("episode_id", "case_id").iter_rows():
        trace = events.filter(events["episode_id"] == episode_id).drop("episode_id").to_dicts()
        environment = DiagnosticEpisode()
        assert environment.reset(**rows[case_id]) == trace[0]["content"]  # the opening the CLI's doctor read
        tools = trainer_tools(environment)
        for event in trace:
            if event["actor"] == "doctor":
                name, arguments = tool_call(actions.parse(event["content"]))
                tools[name](**arguments)
        engine = environment.engine
        replayed = events_frame(event_rows(engine.episode_id, engine.events)).drop("episode_id").to_dicts()
        assert replayed == trace
        assert environment.get_reward() == pytest.approx(scores[case_id], abs=1e-12)
        environments.append(environment)
    assert len(environments) == 3 and any(s > 0 for s in scores.values())
    assert episode_reward(environments) == pytest.approx([scores[c] for c in episodes["case_id"]], abs=1e-12)
