"""Retrieval (pipelines/evaluation/memory/retrieval.py): the top K cards by TF-IDF cosine similarity
with ties in bank order, shown to the doctor before every decision and logged in its event."""

from __future__ import annotations

from evaluation_cases import HF

from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.settings import EpisodeSettings
from pipelines.evaluation.memory.bank import Draft, MemoryBank
from pipelines.evaluation.memory.cards import split_shown
from pipelines.evaluation.memory.retrieval import BankMemory, Retriever


def _bank(*search_texts: str, run: str = "run") -> MemoryBank:
    bank = MemoryBank.start(run, "empty")
    bank.write("e_0000000000000001", 0, [Draft("rule", f"ACTION=ASK card {i}.", text)
                                         for i, text in enumerate(search_texts)])
    return bank


def _texts(cards) -> list[str]:
    return [c.rule_text for c in cards]


def test_the_top_k_cards_by_similarity_best_first():
    bank = _bank("chest pain troponin", "fever cough sputum", "chest pain ecg troponin elevated", "leg swelling")
    top = Retriever(bank, 3).top("crushing chest pain, troponin elevated")
    assert _texts(top) == ["ACTION=ASK card 2.", "ACTION=ASK card 0."]  # cards sharing no word are never shown
    assert _texts(Retriever(bank, 1).top("fever and cough with sputum")) == ["ACTION=ASK card 1."]
    assert Retriever(bank).k == 3 and Retriever(bank).top("nothing in common") == []


def test_ties_go_to_the_earlier_card_and_a_text_said_twice_is_shown_once():
    bank = _bank("fever cough", "fever cough", "fever cough")
    assert _texts(Retriever(bank, 2).top("fever")) == ["ACTION=ASK card 0.", "ACTION=ASK card 1."]
    again = MemoryBank.start("run", "empty")
    again.write("e_0000000000000001", 0, [Draft("rule", "ACTION=ASK same.", "fever cough"),
                                          Draft("rule", "ACTION=ASK same.", "fever cough"),
                                          Draft("rule", "ACTION=ASK other.", "fever cough sputum")])
    assert [c.ordinal for c in Retriever(again, 2).top("fever cough")] == [0, 2]


def test_the_vectoriser_is_refitted_when_the_bank_grows():
    bank = _bank("fever cough")
    retriever = Retriever(bank, 3)
    assert retriever.top("abdominal pain") == []
    bank.write("e_0000000000000002", 1, [Draft("rule", "ACTION=ASK new.", "abdominal pain nausea")])
    assert _texts(retriever.top("abdominal pain")) == ["ACTION=ASK new."]


def test_cards_are_shown_before_every_decision_and_logged_in_its_event(scoring_store):
    bank = _bank("shortness of breath legs swelling", "fever cough")
    env = DiagnosticEpisode(EpisodeSettings(scoring_store, "medevoeval", memory=BankMemory(Retriever(bank))))
    opening = env.reset(case_id=HF)
    text, shown = split_shown(opening)
    assert shown == ("ACTION=ASK card 0.",) and text.startswith("A 70-year-old man presenting with shortness")
    reply = env.ask(["Any swelling?"])
    assert split_shown(reply)[1] == ("ACTION=ASK card 0.",)
    env.finalize("Heart failure, unspecified", "I50.9", ["legs swelling"], [], [])
    ids = {e.action: e.memory_card_ids for e in env.engine.events}
    assert ids["ASK"] == ids["FINALIZE"] == (bank.cards[0].card_id,)
    assert ids["START"] == ids["REPLY"] == ids["END"] == ()  # only the doctor's decisions carry cards
    assert env.engine.events[0].content in opening and "Experience memory" not in env.engine.events[0].content


def test_without_memory_nothing_is_shown_or_logged(scoring_store):
    env = DiagnosticEpisode(EpisodeSettings(scoring_store, "medevoeval"))
    opening = env.reset(case_id=HF)
    env.finalize("Heart failure, unspecified", "I50.9", [], [], [])
    assert split_shown(opening) == (opening, ()) and all(e.memory_card_ids == () for e in env.engine.events)
