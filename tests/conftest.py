"""Shared fixtures: where the real open reference data lives (skipped when absent)."""

from pathlib import Path

import pytest

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
