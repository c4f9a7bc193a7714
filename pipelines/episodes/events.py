"""Trace rows: one ``episode_events`` row per turn and role (schemas/episode_events.py).

Turn 0 is the opening (``controller`` / ``START``); turn t >= 1 is the doctor's t-th action attempt
and what answered it. A turn with two questions has two patient rows and a request for several
tests (or a panel) one lab row per examination, in the order they were answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import polars as pl

import schemas


@dataclass(frozen=True)
class Event:
    turn: int
    actor: str  # doctor | patient | lab | controller | consultant | judge
    action: str  # ASK | REQUEST_TEST | CALL_MDT | FINALIZE | REPLY | RESULT | ERROR | START | WARN | END
    content: str
    test_name: str | None = None
    match_type: str | None = None
    unit_ids: tuple[str, ...] = ()
    memory_card_ids: tuple[str, ...] = ()  # the cards shown for a doctor decision (pipelines/evaluation/memory/)
    returned: bool | None = None
    self_check: str | None = None
    error: str | None = None


def event_rows(episode_id: str, events: Sequence[Event]) -> list[dict[str, Any]]:
    """An episode's events as ``episode_events`` rows (framed once per batch: :func:`events_frame`)."""
    return [{"episode_id": episode_id, **vars(e), "unit_ids": list(e.unit_ids),
             "memory_card_ids": list(e.memory_card_ids)} for e in events]


def events_frame(rows: Sequence[dict[str, Any]]) -> pl.DataFrame:
    """Event rows typed as the schema says (validated by the caller, once per batch)."""
    return pl.DataFrame(rows, schema=_schema())


@cache
def _schema() -> pl.Schema:
    return schemas.empty("episode_events").schema
