"""Episode fixtures: a small hand-made store (fast), and one built demo warehouse per session (slow)."""

from __future__ import annotations

import pytest
from episode_cases import case_id, frames

from pipelines.episodes.store import CaseStore


@pytest.fixture(scope="session")
def store() -> CaseStore:
    return CaseStore(frames())


@pytest.fixture(scope="session")
def heart_failure(store):
    return store.case(case_id("01"))


@pytest.fixture(scope="session")
def demo_store(demo_home) -> CaseStore:
    return CaseStore.from_home(demo_home)
