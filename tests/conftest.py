"""Shared fixtures: where the real open reference data lives (skipped when absent), staging frames."""

from pathlib import Path

import polars as pl
import pytest

from schemas.staging import POLARS_TYPES, staging_columns

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MIMIC_DEMO = SHARED_DATA / "mimic-iv-demo-2.2"
MEDQA_SAMPLE = SHARED_DATA / "medqa-us-dev-sample" / "US_test_dev_sample.jsonl"


@pytest.fixture(scope="session")
def mimic_demo_dir() -> Path:
    if not (MIMIC_DEMO / "hosp" / "admissions.csv.gz").exists():
        pytest.skip(f"real MIMIC-IV demo not found at {MIMIC_DEMO} (../shared is only present on the team's machines)")
    return MIMIC_DEMO


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
