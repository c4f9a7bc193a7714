"""The shapes the note NLP writes, apart from the NLP itself: importing them loads no spaCy, so
loading the build's definitions does not wait for it (a multiprocess build's forkserver preloads
it once for every step: pipelines.build_plan.STEP_LIBRARIES)."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

SECTIONS_SCHEMA = {
    "note_id": pl.Utf8,
    "section": pl.Utf8,
    "header": pl.Utf8,
    "start": pl.Int64,
    "end": pl.Int64,
    "text": pl.Utf8,
    "visibility": pl.Utf8,
    "reason": pl.Utf8,
}

REMOVAL_COLUMNS = {
    "case_id": pl.Utf8,
    "source_ref": pl.Utf8,
    "term": pl.Utf8,
    "original_snippet": pl.Utf8,
    "action": pl.Utf8,
}


@dataclass
class NoteWork:
    """Notes sectioned and CPU seconds spent, per note kind (the build reports note throughput from them)."""

    notes: dict[str, int] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)

    def add(self, other: NoteWork) -> None:
        for kind, n in other.notes.items():
            self.notes[kind] = self.notes.get(kind, 0) + n
        for kind, seconds in other.cpu_s.items():
            self.cpu_s[kind] = self.cpu_s.get(kind, 0.0) + seconds
