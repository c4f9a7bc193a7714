"""Episode fixtures: a small hand-made store (fast), and one built demo warehouse per session (slow)."""

from __future__ import annotations

import pytest
from episode_cases import case_id, frames

from pipelines.episodes.store import CaseStore

SOURCE_VARIABLES = ("CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR",
                    "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME")


@pytest.fixture(scope="session")
def store() -> CaseStore:
    return CaseStore(frames())


@pytest.fixture(scope="session")
def heart_failure(store):
    return store.case(case_id("01"))


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> CaseStore:
    """One small demo warehouse built by the CLI for the whole session."""
    from pipelines.cli import main  # the whole build graph; only the slow tests need it

    home = tmp_path_factory.mktemp("episodes-demo")
    with pytest.MonkeyPatch.context() as mp:
        for name in SOURCE_VARIABLES:
            mp.delenv(name, raising=False)
        mp.setenv("CLINVERSE_SYNTHEA_POOL_SIZE", "1")
        mp.setenv("CLINVERSE_LOG_LEVEL", "WARNING")
        assert main(["build", "--home", str(home), "--admissions", "60"]) == 0
    return CaseStore.from_home(home)
