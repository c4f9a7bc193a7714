import json
import stat
from datetime import date

from pipelines.profiles.bench import augmentation_scaling, replicate_cases, time_augmentation
from pipelines.profiles.synthea import SyntheaSettings, ensure_stratum
from pipelines.warehouse import Warehouse

BUNDLE = {"resourceType": "Bundle", "entry": [
    {"resource": {"resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1975-05-01"}},
    {"resource": {"resourceType": "Condition", "onsetDateTime": "2000-01-01T00:00:00Z",
                  "code": {"coding": [{"system": "http://snomed.info/sct", "code": "59621000",
                                       "display": "Essential hypertension (disorder)"}]}}}]}


def test_replicated_cases_have_distinct_valid_ids(build):
    cases = build.cases_of(build.case(1, "F", 50, "J18.9"), build.case(2, "F", 45, "J18.9"))
    ten = replicate_cases(cases, 10)
    assert ten.height == 20 and ten["case_id"].n_unique() == 20
    assert ten["case_id"].str.contains(r"^c_[0-9a-f]{16}$").all()


def test_time_augmentation_times_a_real_build(build):
    pool = build.pool_of(build.patient("p", "F_40-59", date(1975, 1, 1)))
    seconds = time_augmentation(build.cases_of(build.case(1, "F", 50, "J18.9")), pool, seed=0, repeat=2)
    assert 0 < seconds < 30


def test_augmentation_scaling_on_a_built_warehouse(build, tmp_path, monkeypatch):
    monkeypatch.delenv("CLINVERSE_SYNTHEA_POOL_SIZE", raising=False)
    assert "skipped" in augmentation_scaling(tmp_path)
    script = tmp_path / "fake-synthea"
    script.write_text("#!/bin/sh\nout=\"\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = \"-o\" ] && out=\"$2\"; shift; done\n"
                      f"mkdir -p \"$out/fhir\" && echo '{json.dumps(BUNDLE)}' > \"$out/fhir/p1.json\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    cases = build.cases_of(build.case(1, "F", 50, "J18.9"), build.case(2, "F", 45, "I21.4"))
    warehouse = Warehouse(tmp_path)
    warehouse.table_dir("cases").mkdir(parents=True)
    cases.write_parquet(warehouse.table_dir("cases") / "data.parquet")
    assert "F_40-59" in augmentation_scaling(tmp_path)["skipped"]
    ensure_stratum(SyntheaSettings(command=(str(script),)), tmp_path / "synthea", "F_40-59", 0)
    result = augmentation_scaling(tmp_path, factor=3, repeat=1)
    assert (result["cases"], result["factor"], result["strata"], result["pool_patients"]) == (2, 3, 1, 1)
    assert set(result["after_pool_s"]) == {"1x", "3x"} and result["ratio"] > 0
    assert not warehouse.exists("profiles")  # the measured warehouse is left alone
