"""Episodes and the boundary stress test on a built demo warehouse (one build per session)."""

import polars as pl
import pytest

import schemas
from pipelines.episodes.controller import run_episodes
from pipelines.episodes.judge import block_of
from pipelines.episodes import stress
from pipelines.episodes.clinlab.labs import NUMERIC_LAB_ROWS
from pipelines.episodes.store import OPTIONAL_TABLES, CaseStore
from pipelines.episodes.stress import stress_rates, stress_test
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow
DOCTORS = ("full_info", "retrieval", "random")


@pytest.fixture(scope="module", params=["medevoeval", "clinverse"])
def runs(request, demo_store):
    return request.param, {d: run_episodes(demo_store, d, "offline", request.param, None, 7, f"demo-{d}")
                           for d in DOCTORS}


def block_accuracy(store, episodes: pl.DataFrame) -> float:
    truth = store.cases.select("case_id", "primary_icd10_block")
    pairs = episodes.join(truth, on="case_id").select("final_icd10", "primary_icd10_block").rows()
    return sum(block_of(code) == block for code, block in pairs) / len(pairs)


def test_every_test_case_gets_an_episode_from_every_doctor(demo_store, runs):
    _, by_doctor = runs
    test_cases = set(demo_store.case_ids("test"))
    assert test_cases
    for frames in by_doctor.values():
        for table, frame in zip(("runs", "episodes", "episode_events"), frames):
            schemas.validate(table, frame)
        assert set(frames[1]["case_id"]) == test_cases
        assert frames[1]["termination"].is_in(["finalized", "budget_exhausted"]).all()


def test_accuracy_orders_full_info_over_retrieval_over_random(demo_store, runs):
    preset, by_doctor = runs
    accuracy = {d: block_accuracy(demo_store, frames[1]) for d, frames in by_doctor.items()}
    assert accuracy["full_info"] > accuracy["retrieval"] > accuracy["random"], (preset, accuracy)


def test_retrieval_doctor_gathers_evidence_within_the_budget(runs):
    preset, by_doctor = runs
    episodes, events = by_doctor["retrieval"][1], by_doctor["retrieval"][2]
    assert (episodes["n_questions"] > 0).all() and (episodes["n_tests"] > 0).all() and episodes["called_mdt"].all()
    assert episodes["n_error_turns"].sum() == 0
    assert events.filter(pl.col("actor") == "patient")["unit_ids"].list.len().sum() > 0


def test_same_seed_same_trace_on_the_demo(demo_store):
    first = run_episodes(demo_store, "retrieval", "offline", "clinverse", None, 3, "again")
    second = run_episodes(demo_store, "retrieval", "offline", "clinverse", None, 3, "again")
    assert first[2].equals(second[2])


def test_boundary_stress_test(demo_store):
    frame = stress_test(demo_store)
    schemas.validate("stress_test", frame)
    assert frame.height == demo_store.cases.height * 6 * 4
    rates = {c: (d, r) for c, _, d, r in stress_rates(frame).iter_rows()}
    assert rates["dual_layer+self_check"][0] == 0.0
    assert rates["single_layer"][0] > 0.0
    assert rates["dual_layer+self_check"][1] > rates["dual_layer"][1]


def test_the_stress_test_in_worker_processes_gives_the_rows_of_one_process(demo_home, demo_store, monkeypatch):
    """From the warehouse, runs of cases go to worker processes that read it themselves (and fit the
    vocabulary of every case): the same rows, in the same order."""
    monkeypatch.setattr(stress, "CASES_PER_TASK", 7)  # several tasks on the small demo
    in_workers = stress_test(Warehouse(demo_home), workers=2)
    assert in_workers.equals(stress_test(demo_store))
    assert stress_test(Warehouse(demo_home)).equals(in_workers)  # the same runs of cases, one after another here


def test_a_store_of_some_cases_holds_their_rows_only_and_builds_them_as_the_whole_store(demo_home, demo_store):
    some = demo_store.case_ids()[::3]
    share = CaseStore.from_warehouse(Warehouse(demo_home), some)
    assert share.case_ids() == some
    assert set(share.table("information_units")["case_id"]) <= set(some)
    assert set(share.table("exam_results")["case_id"]) <= set(some)
    assert list(share.each_case(some)) == list(demo_store.each_case(some))
    assert CaseStore.unit_texts_of(Warehouse(demo_home)) == demo_store.unit_texts()  # the vocabulary's corpus
    assert CaseStore.case_ids_of(Warehouse(demo_home)) == demo_store.case_ids()


def test_a_store_reads_only_the_optional_tables_asked_for(demo_home, demo_store):
    assert all(demo_store.table(t) is not None for t in OPTIONAL_TABLES)  # the demo builds them all
    bare = CaseStore.from_warehouse(Warehouse(demo_home), optional=())
    assert all(bare.table(t) is None for t in OPTIONAL_TABLES)
    some = demo_store.case_ids()[:5]
    assert list(bare.each_case(some)) == list(demo_store.each_case(some))  # cases need none of them
    skeleton = CaseStore.from_warehouse(Warehouse(demo_home), optional=("case_skeleton",))
    assert skeleton.table("case_skeleton") is not None and skeleton.table("case_rubrics") is None
    mine, whole = skeleton.lab_rows("train"), demo_store.lab_rows("train")
    assert mine.people.equals(whole.people) and mine.results.equals(whole.results)
    with pytest.raises(ValueError, match="not optional tables of a case store: \\['cases'\\]"):
        CaseStore.from_warehouse(Warehouse(demo_home), optional=("cases",))


def test_clinlab_store_reads_what_clinlab_reads_and_no_units_or_profiles(demo_home, demo_store):
    """ClinLab's store (the clinlab_eval step's) has the lab rows of the whole store, and no units or
    profiles: it builds no case."""
    labs = CaseStore.lab_store(Warehouse(demo_home))
    assert labs.table("case_skeleton") is not None
    assert labs.table("information_units").is_empty() and labs.table("profiles").is_empty()
    for split in ("train", "test"):
        mine, whole = labs.lab_rows(split, NUMERIC_LAB_ROWS), demo_store.lab_rows(split, NUMERIC_LAB_ROWS)
        assert mine.people.equals(whole.people) and mine.results.equals(whole.results)
    with pytest.raises(KeyError, match="has no profile"):
        labs.case(labs.case_ids()[0])
