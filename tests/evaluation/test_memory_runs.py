"""Memory runs on the session's demo warehouse: repeating a case stream with the previous pass's
bank beats memory off, a mature bank helps held-out cases, banks never leak between runs, a
resumed memory run rebuilds its bank, and `clinverse episodes --memory ...`."""

from __future__ import annotations

import json
import shutil

import polars as pl
import pytest

import schemas
from pipelines.cli import main
from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, last_user, turn_of
from pipelines.episodes.runs import RunSpec, run, run_and_export
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.memory.cards import units
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow
PRESET = "medevoeval"


@pytest.fixture(scope="module")
def demo(demo_home, tmp_path_factory):
    """A private copy of the demo warehouse, its store, and the stream runs the tests share."""
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("memory") / "home", symlinks=True)
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)

    def play(run_id, split="test", memory="off", source=None, **more):
        spec = RunSpec(doctor="retrieval", preset=PRESET, split=split, condition=run_id.split("-")[0], memory=memory,
                       memory_from=source, run_id=run_id, **more)
        return run_and_export(warehouse, store, spec)[0].run_id

    runs = {"E0": play("E0"), "E1": play("E1", memory="empty")}
    runs["E1_cards"] = warehouse.read_partition("memory_cards", "E1").height
    runs["E2"] = play("E2", memory="prepopulated", source="E1")
    return warehouse, store, play, runs


def _scores(warehouse, run_id) -> pl.DataFrame:
    return warehouse.read_partition("episode_scores", run_id)


def _trace(warehouse, run_id) -> pl.DataFrame:
    """A run's events by case, the cards shown as their texts (card ids differ between runs)."""
    texts = dict(warehouse.read_partition("memory_cards", run_id).select("card_id", "rule_text").iter_rows())
    events = warehouse.read_partition("episode_events", run_id).join(
        warehouse.read_partition("episodes", run_id).select("episode_id", "case_id"), on="episode_id")
    return events.with_columns(pl.col("memory_card_ids").list.eval(pl.element().replace_strict(texts)).alias("cards")
                               ).drop("episode_id", "memory_card_ids").sort("case_id", maintain_order=True)


def test_repeating_the_stream_with_the_previous_passs_bank_beats_memory_off(demo):
    warehouse, _, _, runs = demo
    e0, e2 = _scores(warehouse, runs["E0"]), _scores(warehouse, runs["E2"])
    assert e0.height == e2.height == len(CaseStore.from_warehouse(warehouse).case_ids("test"))
    assert e2["utility_u"].mean() > e0["utility_u"].mean() + 0.02
    assert e2["turns_t"].mean() < e0["turns_t"].mean()


def test_a_mature_bank_helps_held_out_cases(demo):
    _, _, play, _ = demo
    warehouse = demo[0]
    bank = play("T1-train", "train", "empty")
    for n in (2, 3):
        bank = play(f"T{n}-train", "train", "prepopulated", bank)
    h0, h3 = play("H0"), play("H3", memory="prepopulated", source=bank)
    assert _scores(warehouse, h3)["utility_u"].mean() > _scores(warehouse, h0)["utility_u"].mean()


def test_memory_runs_record_their_bank_and_never_leak(demo):
    warehouse, _, _, runs = demo
    rows = {r: warehouse.read_partition("runs", r).row(0, named=True) for r in ("E0", "E1", "E2")}
    assert [(rows[r]["memory_mode"], rows[r]["memory_source_run"]) for r in rows] == [
        ("off", None), ("empty", None), ("prepopulated", "E1")]
    e1, e2 = (schemas.validate("memory_cards", warehouse.read_partition("memory_cards", r)) for r in ("E1", "E2"))
    assert e1.height == runs["E1_cards"] > 0  # E2 wrote only into its own bank
    copies = e2.filter(pl.col("source_card_id").is_not_null())
    assert copies.height == e1.height and set(copies["source_card_id"]) == set(e1["card_id"])
    assert not set(e2["card_id"]) & set(e1["card_id"]) and set(e2["run_id"]) == {"E2"}
    assert e2.height > e1.height and all(units(t) <= 80 for t in e2["rule_text"])
    for run_id, bank in (("E1", e1), ("E2", e2)):
        shown = set(warehouse.read_partition("episode_events", run_id)["memory_card_ids"].explode().drop_nulls())
        assert shown and shown <= set(bank["card_id"])
    assert warehouse.read_partition("episode_events", "E0")["memory_card_ids"].list.len().sum() == 0


def test_a_frozen_run_reads_its_source_and_writes_nothing(demo):
    warehouse, _, play, _ = demo
    frozen = play("F1", memory="frozen", source="E1", cases=6)
    shown = set(warehouse.read_partition("episode_events", frozen)["memory_card_ids"].explode().drop_nulls())
    assert warehouse.read_partition("memory_cards", frozen).height == 0
    assert shown and shown <= set(warehouse.read_partition("memory_cards", "E1")["card_id"])


class Interrupted(Exception):
    pass


def test_an_interrupted_memory_run_resumes_with_the_bank_it_had(demo):
    warehouse, store, _, _ = demo
    spec = RunSpec(doctor="retrieval", preset=PRESET, cases=8, memory="prepopulated", memory_from="E1", run_id="R")

    def stop(done, total):
        raise Interrupted

    with pytest.raises(Interrupted):
        run(warehouse, store, spec, progress=stop, batch=3)
    assert warehouse.read_partition("episodes", "R").height == 3
    resumed = run(warehouse, store, spec, batch=3)
    assert (resumed.new, resumed.resumed) == (5, 3)
    whole = RunSpec(doctor="retrieval", preset=PRESET, cases=8, memory="prepopulated", memory_from="E1", run_id="W")
    run(warehouse, store, whole, batch=8)
    assert _trace(warehouse, "R").equals(_trace(warehouse, "W"))  # same configuration and seed, same trace
    texts = [warehouse.read_partition("memory_cards", r).sort("ordinal")["rule_text"] for r in ("R", "W")]
    assert texts[0].equals(texts[1])


def test_clinverse_episodes_memory_flags_and_their_errors(demo, capsys):
    warehouse, _, _, _ = demo
    home = str(warehouse.home)
    base = ["episodes", "--home", home, "--doctor", "retrieval", "--preset", PRESET, "--cases", "3"]
    assert main([*base, "--memory", "prepopulated"]) == 2
    assert "name it with --memory-from RUN_ID" in " ".join(capsys.readouterr().err.split())
    assert main([*base, "--memory", "frozen", "--memory-from", "no-such-run"]) == 2
    assert "memory source run 'no-such-run' is not in the warehouse" in " ".join(capsys.readouterr().err.split())
    assert main([*base, "--memory", "frozen", "--memory-from", "E0"]) == 2
    assert "ran with memory off" in " ".join(capsys.readouterr().err.split())
    assert main([*base, "--memory-from", "E1"]) == 2
    assert main([*base, "--memory", "empty", "--run-id", "cli-empty"]) == 0
    assert warehouse.read_partition("memory_cards", "cli-empty").height > 0
    assert main([*base, "--memory", "frozen", "--memory-from", "cli-empty", "--memory-k", "1", "--run-id", "cli-f"]) == 0
    shown = warehouse.read_partition("episode_events", "cli-f")["memory_card_ids"]
    assert shown.list.len().max() == 1 and warehouse.read_partition("runs", "cli-f")["memory_mode"].item() == "frozen"


DOCTOR_SCRIPT = [{"action": "ASK", "question": "What brings you in today?"},
                 {"action": "FINALIZE", "diagnosis": ["Pneumonia"], "icd10": "J18.9", "evidence": ["cough"],
                  "plan": ["antibiotics"], "followup": ["review in 48 hours"]}]


def test_a_memory_run_with_an_llm_doctor_and_an_llm_manager(demo):
    warehouse, store, _, _ = demo

    def answer(body):
        if body["model"] == "manager-model":  # a rule card on what the doctor was shown, so it is retrieved again
            shown = last_user(body).split("What the doctor was shown:")[1].split("Questions asked")[0]
            return Reply(json.dumps({"cards": [{"memory_type": "rule", "rule_text": "ACTION=ASK about the history first.",
                                                "search_text": shown}]}))
        return Reply(json.dumps(DOCTOR_SCRIPT[min(turn_of(body), len(DOCTOR_SCRIPT) - 1)]))

    with FakeOpenAI(answer) as server:
        llm = LLMConfig({role: RoleConfig(role, server.base_url, f"{role}-model", max_attempts=1)
                         for role in ("doctor", "manager")})
        spec = RunSpec(doctor="llm", preset=PRESET, cases=3, memory="empty", manager="llm", run_id="L")
        assert run(warehouse, store, spec, llm=llm).new == 3
        prompts = [last_user(b) for b in server.requests if b["model"] == "doctor-model"]
    assert "Experience memory" not in prompts[0] and "ACTION=ASK about the history first." in prompts[-1]
    cards = warehouse.read_partition("memory_cards", "L")
    assert cards.height == 3 and set(cards["memory_type"]) == {"rule"}
    requests = warehouse.read_partition("llm_requests", "L")
    assert (requests["role"] == "manager").sum() == 3 and requests.filter(pl.col("role") == "manager")["parsed"].all()
    assert warehouse.read_partition("runs", "L")["memory_mode"].item() == "empty"
