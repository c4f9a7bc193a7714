"""Memory runs in the warehouse: a run's bank (the ``memory_cards`` partition of its run id) and
the write-back after each of its episodes.

* :func:`open_bank` gives a run its bank: resumed from the cards it has written, or started
  (``empty``; ``prepopulated``: the source run's bank copied under fresh ids, written at once as
  ``<run_id>.parquet``; ``frozen``: the source run's bank, read and never written). A source run
  must exist and have memory on; a frozen run's bank is its own source's.
* :class:`WriteBack` is what a memory run adds to its episodes: the cards shown before each
  decision, and after each episode its score (the offline judge) and the manager's cards, filed
  in the bank before the next episode starts.

Cards of a batch are written beside its episodes, before them: a card counts only once the
episode that wrote it is written, so a resumed run rebuilds exactly the bank it had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from pipelines.evaluation.judges import Judge, OfflineJudge
from pipelines.evaluation.memory.bank import FROM_SOURCE, MemoryBank, MemoryCard, cards_frame, cards_of
from pipelines.evaluation.memory.manager import Manager, ScoredEpisode
from pipelines.evaluation.memory.retrieval import BankMemory, Retriever
from pipelines.evaluation.reference import References
from pipelines.evaluation.scores import Conditions, score_rows
from pipelines.evaluation.trace import trace_of
from pipelines.warehouse import Warehouse

TABLE = "memory_cards"


def written_cards(warehouse: Warehouse, run_id: str) -> list[MemoryCard]:
    """The cards ``run_id`` has written: its copies, and the cards of its episodes written."""
    cards = warehouse.read_partition(TABLE, run_id)
    episodes = warehouse.read_partition("episodes", run_id)["episode_id"].to_list()
    return cards_of(cards.filter(pl.col("source_card_id").is_not_null() | pl.col("episode_id").is_in(episodes)))


def bank_cards(warehouse: Warehouse, run_id: str) -> list[MemoryCard]:
    """The bank of run ``run_id`` as it stands (what another run starts from)."""
    runs = warehouse.read_partition("runs", run_id)
    if runs.height != 1:
        raise ValueError(f"memory source run {run_id!r} is not in the warehouse at {warehouse.home}: run it first, "
                         "or give --memory-from the id of a run with memory on "
                         "(clinverse query \"SELECT run_id, memory_mode FROM runs\")")
    mode, source = runs["memory_mode"].item(), runs["memory_source_run"].item()
    if mode == "off":
        raise ValueError(f"memory source run {run_id!r} ran with memory off and has no bank; start from a run "
                         "with --memory empty, prepopulated or frozen")
    return bank_cards(warehouse, source) if mode == "frozen" else written_cards(warehouse, run_id)


def open_bank(warehouse: Warehouse, run_id: str, mode: str, source: str | None) -> MemoryBank:
    """Run ``run_id``'s bank in ``mode`` (``source``: the run a prepopulated or frozen bank starts from)."""
    if (mode in FROM_SOURCE) != (source is not None):
        raise ValueError(f"memory {mode!r} {'needs' if mode in FROM_SOURCE else 'takes no'} source run "
                         "(--memory-from RUN_ID goes with --memory prepopulated or frozen only)")
    if source == run_id:
        raise ValueError(f"run {run_id!r} cannot start from its own bank; --memory-from names another run")
    if mode == "off":
        return MemoryBank(run_id, mode)
    if mode == "frozen":
        return MemoryBank(run_id, mode, bank_cards(warehouse, source))
    started = any(p.stem == run_id for p in warehouse.partition_files(TABLE, run_id))  # the copies file
    if mode == "empty" or started:
        return MemoryBank(run_id, mode, written_cards(warehouse, run_id))
    bank = MemoryBank.start(run_id, mode, bank_cards(warehouse, source))
    warehouse.write(TABLE, cards_frame(bank.cards), partition=run_id)
    return bank


class WriteBack:
    def __init__(self, bank: MemoryBank, references: References, conditions: Conditions, manager: Manager,
                 k: int | None = None, judge: Judge | None = None):
        self.bank, self.references, self.conditions, self.manager = bank, references, conditions, manager
        self.memory = BankMemory(Retriever(bank, k))
        self._judge = judge or OfflineJudge()

    def after(self, episode: Mapping[str, Any], events: Sequence[Mapping[str, Any]], visit_index: int) -> list[MemoryCard]:
        """Score the episode just played (its ``episodes`` row and event rows, in order) and file
        the manager's cards; returns the cards filed (none for a bank that is not writable)."""
        if not self.bank.writable:
            return []
        trace = trace_of(episode, events)
        (score,) = score_rows([trace], self.references, {trace.run_id: self.conditions}, self._judge)
        scored = ScoredEpisode(trace, tuple(events), score, self.references[trace.case_id],
                               self.references.store.case(trace.case_id))
        return self.bank.write(trace.episode_id, visit_index, self.manager.cards(scored))
