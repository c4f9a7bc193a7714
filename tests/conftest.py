"""Shared fixtures: where the real open reference data lives (skipped when absent), staging frames,
one small demo warehouse built through the CLI, and the real MIMIC-IV demo (with and without
its ED module) built once each, for the whole session."""

import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from filelock import FileLock

from pipelines.warehouse import Warehouse
from schemas.staging import POLARS_TYPES, staging_columns

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MIMIC_DEMO = SHARED_DATA / "mimic-iv-demo-2.2"
MEDQA_SAMPLE = SHARED_DATA / "medqa-us-dev-sample" / "US_test_dev_sample.jsonl"
MIMIC_ED_DEMO = SHARED_DATA / "mimic-iv-ed-demo-2.2"


def pytest_configure(config: pytest.Config) -> None:
    """`make test` spreads the tests over every core (pytest-xdist): a build under test that spread
    its own work over a process pool as well (note NLP, ClinLab's fits) would only oversubscribe
    them, so under xdist builds run their work in-process unless CLINVERSE_WORKERS says otherwise.
    The pools have tests of their own that ask for two workers (test_note_workers, test_clinlab).

    Builds under test use two subject shards unless CLINVERSE_SHARDS says otherwise: every per-shard
    step still runs over several shards, at half the per-shard fixed cost of the default four, which
    test_content and the sensor and schedule tests use."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("CLINVERSE_WORKERS", "1")
    os.environ.setdefault("CLINVERSE_SHARDS", "2")


@pytest.fixture(scope="session")
def mimic_demo_dir() -> Path:
    if not (MIMIC_DEMO / "hosp" / "admissions.csv.gz").exists():
        pytest.skip(f"real MIMIC-IV demo not found at {MIMIC_DEMO} (../shared is only present on the team's machines)")
    return MIMIC_DEMO


@pytest.fixture(scope="session")
def mimic_ed_demo_dir() -> Path:
    if not (MIMIC_ED_DEMO / "ed" / "edstays.csv.gz").exists():
        pytest.skip(f"real MIMIC-IV-ED demo not found at {MIMIC_ED_DEMO}")
    return MIMIC_ED_DEMO


@pytest.fixture(scope="session")
def medqa_sample() -> Path:
    if not MEDQA_SAMPLE.exists():
        pytest.skip(f"MedQA sample not found at {MEDQA_SAMPLE}")
    return MEDQA_SAMPLE


@pytest.fixture(scope="session")
def staging_frame():
    """A staging table's frame from only the columns a test cares about, completed with typed
    nulls to the full spec of schemas/staging.py (the warehouse refuses partial staging tables)."""
    def complete(table: str, frame: pl.DataFrame) -> pl.DataFrame:
        columns, _ = staging_columns(table)
        return frame.with_columns(pl.lit(None, POLARS_TYPES[kind]).alias(name)
                                  for name, kind in columns.items() if name not in frame.columns)
    return complete


SOURCE_VARIABLES = ("CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_MIMIC_ED_DIR", "CLINVERSE_SICDB_DIR",
                    "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME")


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, *flags: str, **env: str) -> Path:
    """The home of `clinverse build --home HOME FLAGS` with no source from the environment (the flags
    name them), a one-patient Synthea pool per stratum and ``env`` set, for one session fixture.

    Built once per session even when `make test` spreads the tests over processes (pytest-xdist):
    the first worker to need it builds it under the temporary root the workers share, holding a
    lock; the others wait and read the same build (its tests never write to it)."""
    from pipelines.cli import main  # the whole build graph: only the tests that use it pay for it

    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    home, built = root / name, root / f"{name}.built"
    with FileLock(root / f"{name}.lock"), pytest.MonkeyPatch.context() as mp:
        if not built.exists():
            shutil.rmtree(home, ignore_errors=True)  # a build that failed in another worker
            for variable in SOURCE_VARIABLES:
                mp.delenv(variable, raising=False)
            for variable, value in {"CLINVERSE_SYNTHEA_POOL_SIZE": "1", **env}.items():
                mp.setenv(variable, value)
            assert main(["build", "--home", str(home), *flags]) == 0
            built.touch()
    return home


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory) -> Path:
    """`clinverse build` of a 60-admission generated demo (every source, Synthea with a one-patient
    pool per stratum), once per session; tests read it and never write to it."""
    return _built_once(tmp_path_factory, "demo-build", "--admissions", "60", CLINVERSE_LOG_LEVEL="WARNING")


@pytest.fixture(scope="session")
def real_demo_warehouse(mimic_demo_dir, tmp_path_factory) -> Warehouse:
    """The real MIMIC-IV demo built once per session (every asset, the stress test and ClinLab's
    evaluation included; profiles from a one-patient pool per stratum); tests only read it. The demo
    has no notes and, without the ED module, no complaint to open a case with: its cases are kept as
    structured-only cases (CLINVERSE_STRUCTURED_ONLY), which the units and exams tests need."""
    return Warehouse(_built_once(tmp_path_factory, "real-mimic", "--mimic-iv", str(mimic_demo_dir),
                                 CLINVERSE_STRUCTURED_ONLY="mimic_iv,sicdb"))


@pytest.fixture(scope="session")
def real_ed_demo_warehouse(mimic_demo_dir, mimic_ed_demo_dir, tmp_path_factory) -> Warehouse:
    """The real MIMIC-IV demo built with the real MIMIC-IV-ED demo (profiles from a one-patient pool
    per stratum; no episode evaluation)."""
    return Warehouse(_built_once(tmp_path_factory, "real-mimic-ed", "--mimic-iv", str(mimic_demo_dir),
                                 "--mimic-ed", str(mimic_ed_demo_dir), "--select", "not group:evaluation"))
