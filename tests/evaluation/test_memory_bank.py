"""A run's bank (pipelines/evaluation/memory/bank.py): what each mode writes, copies with fresh ids,
and no bank reaching another."""

from __future__ import annotations

import pytest

import schemas
from pipelines.evaluation.memory.bank import Draft, MemoryBank, card_id, cards_frame, cards_of

DRAFTS = [Draft("success", "IF fever and cough THEN diagnose Pneumonia [J18.9] and order Chest X-ray first.",
                "fever cough Pneumonia Chest X-ray"),
          Draft("rule", "ACTION=FINALIZE after 2 questions IF fever and cough.", "fever cough")]
EPISODE = "e_00000000000000a1"


def _source() -> MemoryBank:
    bank = MemoryBank.start("source", "empty")
    bank.write(EPISODE, 0, DRAFTS)
    return bank


def test_an_empty_bank_is_written_into_with_ids_of_its_run():
    bank = MemoryBank.start("run-a", "empty")
    assert bank.writable and len(bank) == 0
    first = bank.write(EPISODE, 0, DRAFTS)
    second = bank.write("e_00000000000000a2", 1, DRAFTS[:1])
    assert [c.ordinal for c in bank.cards] == [0, 1, 2]
    assert [c.card_id for c in bank.cards] == [card_id("run-a", i) for i in range(3)]
    assert {c.run_id for c in bank.cards} == {"run-a"} and first + second == list(bank.cards)
    assert (second[0].episode_id, second[0].visit_index, second[0].source_card_id) == ("e_00000000000000a2", 1, None)


def test_off_and_frozen_banks_are_never_written():
    off = MemoryBank.start("run-off", "off")
    assert not off.writable and off.write(EPISODE, 0, DRAFTS) == [] and len(off) == 0
    source = _source()
    frozen = MemoryBank.start("run-frozen", "frozen", source.cards)
    assert frozen.cards == source.cards  # the source's own cards and ids, read only
    assert frozen.write(EPISODE, 1, DRAFTS) == [] and frozen.cards == source.cards


def test_a_prepopulated_bank_copies_its_source_under_fresh_ids_and_grows():
    source = _source()
    bank = MemoryBank.start("run-p", "prepopulated", source.cards)
    copies = bank.cards
    assert [c.card_id for c in copies] == [card_id("run-p", 0), card_id("run-p", 1)]
    assert [c.source_card_id for c in copies] == [c.card_id for c in source.cards]
    assert [(c.rule_text, c.episode_id, c.run_id) for c in copies] == [(c.rule_text, EPISODE, "run-p")
                                                                       for c in source.cards]
    new = bank.write("e_00000000000000b1", 0, DRAFTS[:1])
    assert new[0].ordinal == 2 and len(bank) == 3 and len(source) == 2


def test_banks_never_leak_between_runs():
    source = _source()
    one, two = (MemoryBank.start(run, "prepopulated", source.cards) for run in ("run-1", "run-2"))
    one.write("e_00000000000000c1", 0, DRAFTS)
    assert len(one) == 4 and len(two) == 2 and len(source) == 2
    assert {c.run_id for c in one.cards} == {"run-1"} and {c.run_id for c in two.cards} == {"run-2"}
    assert not {c.card_id for c in one.cards} & {c.card_id for c in two.cards}


def test_modes_and_sources_are_checked():
    with pytest.raises(ValueError, match="memory mode must be one of off, empty, prepopulated, frozen"):
        MemoryBank("run", "forever")
    with pytest.raises(ValueError, match="only prepopulated and frozen take a source"):
        MemoryBank.start("run", "empty", _source().cards)


def test_cards_frame_is_the_memory_cards_table_and_reads_back_in_bank_order():
    bank = MemoryBank.start("run-f", "prepopulated", _source().cards)
    bank.write(EPISODE, 3, DRAFTS)
    frame = schemas.validate("memory_cards", cards_frame(bank.cards))
    assert frame.height == 4 and frame["source_card_id"].null_count() == 2
    assert cards_of(frame.reverse()) == list(bank.cards)
