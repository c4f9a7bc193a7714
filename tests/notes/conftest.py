"""Fixtures of the note tests (texts live in note_texts.py)."""

from __future__ import annotations

import pytest

from pipelines.notes.sections import build_nlp


@pytest.fixture(scope="session")
def nlp():
    return build_nlp()
