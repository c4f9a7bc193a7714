"""The offline retrieval doctor changes its decisions with the experience cards it is shown, reading
them from the observation text (pipelines/episodes/experience.py)."""

from __future__ import annotations

import json

import pytest
from episode_cases import case_id

from pipelines.episodes.controller import run_episode
from pipelines.episodes.experience import Experience
from pipelines.episodes.settings import EpisodeSettings
from pipelines.evaluation.memory.bank import Draft, MemoryBank
from pipelines.evaluation.memory.cards import exam_list, render, show
from pipelines.evaluation.memory.retrieval import BankMemory, Retriever

HF = case_id("01")
SEEN = "A 70-year-old man presenting with shortness of breath. swelling of both legs for a week"
ELSEWHERE = "A 30-year-old woman presenting with abdominal pain. pain moved to the right lower quadrant"


def _episode(store, *cards: tuple[str, str]):
    """The retrieval doctor on the heart-failure case, shown a bank of ``(memory_type, rule_text)``."""
    memory = None
    if cards:
        bank = MemoryBank.start("run", "empty")
        bank.write("e_0000000000000001", 0, [Draft(kind, text, text) for kind, text in cards])
        memory = BankMemory(Retriever(bank))
    row, events = run_episode(EpisodeSettings(store, "medevoeval", memory=memory), "retrieval", HF, "run")
    return row, events


def _tests(events) -> list[str]:
    return [e["test_name"] for e in events if e["action"] == "REQUEST_TEST"]


def _without_cards(events) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "memory_card_ids"} for e in events]


@pytest.fixture(scope="module")
def baseline(store):
    return _episode(store)


def test_without_cards_the_doctor_plays_as_before(baseline):
    row, events = baseline
    assert (row["final_icd10"], row["n_questions"], _tests(events)) == ("I50.9", 10, ["NT-proBNP", "Chest X-ray",
                                                                                       "CT abdomen and pelvis"])


def test_a_fitting_success_card_gives_its_diagnosis_and_only_its_tests(store):
    card = render("success", findings=SEEN, diagnosis="Unspecified acute appendicitis", code="K35.80",
                  tests=exam_list(["CT abdomen and pelvis"]))
    row, events = _episode(store, ("success", card))
    assert row["final_icd10"] == "K35.80" and _tests(events) == ["CT abdomen and pelvis"]
    final = next(e for e in events if e["action"] == "FINALIZE")
    assert json.loads(final["content"])["diagnosis"] == ["Unspecified acute appendicitis"]
    assert len(final["memory_card_ids"]) == 1


def test_a_fitting_correction_card_avoids_its_diagnosis_and_tests(store, baseline):
    card = render("correction", findings=SEEN, diagnosis="Heart failure, unspecified", code="I50.9",
                  tests=exam_list(["CT abdomen and pelvis"]))
    row, events = _episode(store, ("correction", card))
    assert row["final_icd10"] not in ("I50.9", None)
    assert "CT abdomen and pelvis" not in _tests(events) and len(_tests(events)) == 3


def test_rule_cards_finalise_after_fewer_questions_and_order_a_test_early(store, baseline):
    finalize = render("finalize", presentation="A 70-year-old man presenting with shortness of breath", questions=2)
    early = render("request_test", findings=SEEN, tests=exam_list(["Sodium"]))
    row, events = _episode(store, ("rule", finalize), ("rule", early))
    assert row["n_questions"] == 2 and row["turns"] < baseline[0]["turns"]
    assert _tests(events)[0] == "Sodium"


def test_a_card_that_does_not_fit_the_patient_changes_nothing(store, baseline):
    card = render("success", findings=ELSEWHERE, diagnosis="Unspecified acute appendicitis", code="K35.80",
                  tests=exam_list(["CT abdomen and pelvis"]))
    row, events = _episode(store, ("success", card))
    assert any(e["memory_card_ids"] for e in events)  # shown, but not followed
    assert _without_cards(events) == _without_cards(baseline[1]) and row["final_icd10"] == baseline[0]["final_icd10"]


def test_experience_reads_cards_from_the_text_it_is_shown():
    experience = Experience(0.6, 1, ["year", "old", "man", "presenting"])
    card = render("success", findings=SEEN, diagnosis="Heart failure", code="I50.9", tests=exam_list(["NT-proBNP"]))
    told = experience.see(show("I've had swelling of both legs.", [card, "free advice, in no template"]))
    assert told == "I've had swelling of both legs." and experience
    heard = "A 70-year-old man presenting with shortness of breath.\nI've had swelling of both legs for a week."
    assert [c.code for c in experience.successes(heard, {"I30-I5A"})] == ["I50.9"]
    assert experience.successes(heard, {"J09-J18"}) == []  # a block the doctor's evidence does not point to
    assert experience.successes("A 70-year-old man presenting with shortness of breath.", {"I30-I5A"}) == []
    assert experience.tests(heard, {"I30-I5A"}) == (["NT-proBNP"], set(), True)
