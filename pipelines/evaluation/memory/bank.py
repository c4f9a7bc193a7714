"""A run's experience bank (``memory_cards``): its cards in bank order and whether it may grow.

Modes (``runs.memory_mode``): ``off`` (no bank: nothing is shown or written), ``empty`` (starts
empty, the manager writes into it), ``prepopulated`` (starts with copies of another run's cards,
each with a fresh id under this run, and is written into) and ``frozen`` (another run's cards,
never written). A bank belongs to one run: it only ever holds that run's cards or its own copies,
so nothing one run writes reaches another run's bank (a frozen bank reads its source, which it
never changes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import polars as pl

import schemas
from schemas.runs import MEMORY_MODES

WRITABLE = ("empty", "prepopulated")
FROM_SOURCE = ("prepopulated", "frozen")


@dataclass(frozen=True)
class Draft:
    """A card as the manager drafts it, before it has a place in a bank."""

    memory_type: str  # success | correction | rule
    rule_text: str
    search_text: str


@dataclass(frozen=True)
class MemoryCard:
    card_id: str
    run_id: str
    episode_id: str
    visit_index: int
    memory_type: str
    rule_text: str
    search_text: str
    ordinal: int
    source_card_id: str | None = None


def card_id(run_id: str, ordinal: int) -> str:
    """A card's id: unique over runs, the same when a resumed run writes the card again."""
    return "m_" + hashlib.sha256(f"{run_id}:{ordinal}".encode()).hexdigest()[:16]


class MemoryBank:
    def __init__(self, run_id: str, mode: str, cards: Sequence[MemoryCard] = ()):
        if mode not in MEMORY_MODES:
            raise ValueError(f"memory mode must be one of {', '.join(MEMORY_MODES)}, not {mode!r}")
        if mode in ("off", "empty") and any(c.source_card_id for c in cards):
            raise ValueError(f"a bank in mode {mode!r} holds no copied cards")
        self.run_id, self.mode = run_id, mode
        self._cards = list(cards)

    @classmethod
    def start(cls, run_id: str, mode: str, source: Iterable[MemoryCard] = ()) -> MemoryBank:
        """A new run's bank: nothing (off, empty), copies of ``source`` (prepopulated) or ``source``
        itself (frozen)."""
        source = list(source)
        if mode == "prepopulated":
            return cls(run_id, mode, [MemoryCard(card_id(run_id, i), run_id, c.episode_id, c.visit_index,
                                                 c.memory_type, c.rule_text, c.search_text, i, c.card_id)
                                      for i, c in enumerate(source)])
        if mode == "frozen":
            return cls(run_id, mode, source)
        if source:
            raise ValueError(f"a bank in mode {mode!r} starts empty; only prepopulated and frozen take a source")
        return cls(run_id, mode)

    @property
    def cards(self) -> tuple[MemoryCard, ...]:
        return tuple(self._cards)

    @property
    def writable(self) -> bool:
        return self.mode in WRITABLE

    def __len__(self) -> int:
        return len(self._cards)

    def write(self, episode_id: str, visit_index: int, drafts: Sequence[Draft]) -> list[MemoryCard]:
        """File an episode's cards at the end of the bank; a bank that is off or frozen files
        nothing. Returns the cards filed."""
        if not self.writable:
            return []
        start = len(self._cards)
        new = [MemoryCard(card_id(self.run_id, start + i), self.run_id, episode_id, visit_index, d.memory_type,
                          d.rule_text, d.search_text, start + i) for i, d in enumerate(drafts)]
        self._cards.extend(new)
        return new


def cards_frame(cards: Sequence[MemoryCard]) -> pl.DataFrame:
    """``memory_cards`` rows of ``cards``, validated."""
    frame = pl.DataFrame([asdict(c) for c in cards], schema=schemas.empty("memory_cards").schema)
    return schemas.conform("memory_cards", frame)


def cards_of(frame: pl.DataFrame) -> list[MemoryCard]:
    """The cards of ``memory_cards`` rows, in bank order."""
    return [MemoryCard(**row) for row in frame.sort("ordinal").iter_rows(named=True)]
