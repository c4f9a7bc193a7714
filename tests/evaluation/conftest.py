"""Evaluation fixtures: the hand-made store with its rubrics (evaluation_cases.py), and without."""

from __future__ import annotations

import pytest
from evaluation_cases import frames, rubrics_frame, scoring_frames, targets_frame

from pipelines.episodes.store import CaseStore
from pipelines.evaluation.reference import References


@pytest.fixture(scope="session")
def scoring_store() -> CaseStore:
    return CaseStore(scoring_frames())


@pytest.fixture(scope="session")
def refs(scoring_store) -> References:
    return References(scoring_store, rubrics_frame(), targets_frame())


@pytest.fixture(scope="session")
def plain_store() -> CaseStore:
    """The hand-made store without rubrics."""
    return CaseStore(frames())
