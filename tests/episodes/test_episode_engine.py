"""The controller (budgets, routing, events) through the trainer-facing DiagnosticEpisode class."""

import inspect

import polars as pl
import pytest
from episode_cases import case_id

import schemas
from pipelines.episodes import settings
from pipelines.episodes.controller import run_episodes
from pipelines.episodes.environment import DiagnosticEpisode, EpisodeOver
from pipelines.episodes.events import event_rows, events_frame
from pipelines.episodes.settings import EpisodeSettings, configure

HF = case_id("01")
TOOLS = {"ask", "request_test", "call_mdt", "finalize"}


def episode(store, preset="medevoeval", **overrides):
    env = DiagnosticEpisode(EpisodeSettings(store, preset))
    opening = env.reset(case_id=HF, prompt="a dataset column TRL passes along", **overrides)
    return env, opening


def actions(env):
    return [(e.turn, e.actor, e.action) for e in env.engine.events]


def test_shaped_as_trl_environment_factory_expects():
    public = {n for n, m in inspect.getmembers(DiagnosticEpisode, inspect.isfunction) if not n.startswith("_")}
    assert public == TOOLS | {"reset", "get_reward"}
    assert not inspect.signature(DiagnosticEpisode).parameters["settings"].default  # no argument needed
    for name in TOOLS:
        method = getattr(DiagnosticEpisode, name)
        parameters = [p for p in inspect.signature(method).parameters.values() if p.name != "self"]
        assert all(p.annotation is not inspect.Parameter.empty for p in parameters)
        assert "Args:" in method.__doc__ and all(f"{p.name}:" in method.__doc__ for p in parameters)


def test_reset_opens_with_the_presentation_rules_and_catalog(store):
    env, opening = episode(store)
    assert opening.startswith("A 70-year-old man presenting with shortness of breath.")
    assert "Budget: 10 actions, 3 tests." in opening and "NT-proBNP" in opening and "CBC" not in opening
    assert actions(env) == [(0, "controller", "START")]
    assert "CBC" in episode(store, "clinverse")[1]


def test_ask_routes_to_the_patient_and_records_revealed_units(store):
    env, _ = episode(store)
    reply = env.ask(["What medications do you take?", "Any allergies?"])
    assert "furosemide" in reply and "penicillin" in reply
    rows = [e for e in env.engine.events if e.actor == "patient"]
    assert len(rows) == 2 and all(r.unit_ids and r.self_check == "passed" for r in rows)
    assert env.engine.tally.n_questions == 2


def test_boundary_questions_are_blocked_and_recorded(store):
    env, _ = episode(store)
    reply = env.ask(["What is your diagnosis?"])
    assert "heart failure" not in reply.lower()
    assert [e.self_check for e in env.engine.events if e.actor == "patient"] == ["blocked"]


def test_tests_go_by_the_limit_and_are_reported(store):
    env, _ = episode(store)
    assert "5400" in env.request_test(["NT-proBNP"])
    assert "not_in_case" in env.request_test(["Potassium"])
    assert "not_allowed" in env.request_test(["CBC"])
    assert "budget_limited" in env.request_test(["Sodium"])
    lab = [(e.test_name, e.match_type, e.returned) for e in env.engine.events if e.actor == "lab"]
    assert lab == [("NT-proBNP", "exact", True), ("Potassium", "not_in_case", False), ("CBC", "not_allowed", False),
                   ("Sodium", "budget_limited", False)]
    tally = env.engine.tally
    assert (tally.n_tests, tally.n_invalid_tests, tally.turns) == (3, 2, 4)


def test_unusable_calls_are_error_turns_that_consume_budget(store):
    env, _ = episode(store)
    assert "could not be used" in env.ask(["One?", "Two?", "Three?"])
    assert "could not be used" in env.request_test(["Sodium", "NT-proBNP"])  # medevoeval: one test a request
    assert "could not be used" in env.finalize("Heart failure", "", [], [], [])
    errors = [e for e in env.engine.events if e.action == "ERROR"]
    assert [e.turn for e in errors] == [1, 2, 3] and all(e.error for e in errors)
    assert env.engine.tally.n_error_turns == 3 and not env.engine.done


def test_call_mdt_once_and_only_after_four_questions_or_one_test(store):
    env, _ = episode(store)
    assert "not allowed" in env.call_mdt("Review please.")
    env.request_test(["NT-proBNP"])
    advice = env.call_mdt("Review please.")
    assert "block" in advice and env.engine.tally.mdt_calls == 1
    assert "already been called" in env.call_mdt("Again?")
    assert [e.actor for e in env.engine.events if e.action == "REPLY"] == ["consultant"]


def test_last_attempt_is_announced_and_a_non_final_last_attempt_ends_the_episode(store):
    env, _ = episode(store, action_budget=3)
    env.ask(["Any allergies?"])
    assert env.ask(["Do you smoke?"]).endswith("you must FINALIZE now.")
    assert "action budget is spent" in env.ask(["Anything else?"])
    assert env.engine.termination == "budget_exhausted" and env.get_reward() == 0.0
    assert actions(env)[-3:] == [(2, "controller", "WARN"), (3, "doctor", "ERROR"), (3, "controller", "END")]
    with pytest.raises(EpisodeOver):
        env.ask(["Hello?"])


@pytest.mark.parametrize("code, reward", [("I50.23", 1.0), ("I50.9", 1.0), ("I11.0", 0.0), ("J18.9", 0.0),
                                          ("XYZ", 0.0)])
def test_finalize_ends_the_episode_with_a_block_level_reward(store, code, reward):
    env, _ = episode(store)
    assert env.get_reward() == 0.0
    assert "recorded" in env.finalize("Heart failure", code, ["edema"], ["diuretics"], ["clinic"])
    assert env.engine.termination == "finalized" and env.get_reward() == reward
    with pytest.raises(EpisodeOver):
        env.finalize("Heart failure", code, [], [], [])


def test_events_conform_to_the_contract(store):
    env, _ = episode(store, "clinverse")
    env.ask(["What medications do you take?"])
    env.request_test(["CBC", "Na", "Lipase"])
    env.finalize("Heart failure", "I50.9", [], [], [])
    frame = events_frame(event_rows(env.engine.episode_id, env.engine.events))
    assert frame.columns == list(schemas.get("episode_events").columns)
    assert frame.filter(pl.col("actor") == "lab")["test_name"].to_list() == ["Hemoglobin", "Sodium", "Lipase"]
    assert frame["memory_card_ids"].list.len().sum() == 0


def test_configure_sets_what_a_no_argument_episode_runs_on(store, monkeypatch):
    monkeypatch.setattr(settings, "_settings", None)
    configure(store=store, preset_name="medevoeval", action_budget=4)
    env = DiagnosticEpisode()
    assert "Budget: 4 actions" in env.reset(case_id=HF)


@pytest.mark.parametrize("doctor", ["retrieval", "random", "full_info"])
def test_same_configuration_and_seed_give_the_same_trace(store, doctor):
    first = run_episodes(store, doctor, "offline", "clinverse", None, 11, "run-a")
    second = run_episodes(store, doctor, "offline", "clinverse", None, 11, "run-a")
    assert first[2].equals(second[2])
    assert first[1].drop("duration_s").equals(second[1].drop("duration_s"))
    assert set(first[1]["termination"]) == {"finalized"}
    for table, frame in zip(("runs", "episodes", "episode_events"), first):
        schemas.validate(table, frame)
