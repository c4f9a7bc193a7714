"""MIMIC-IV-ED as an optional source: declared once (flag, variable, staging tables), read in its
publisher layout, bad rows to rejects; the real ED demo stages without a rejected row."""

import gzip
from pathlib import Path

import duckdb
import pytest

from pipelines import config
from pipelines.cli import parser
from pipelines.content import producers
from pipelines.sources.csv_tables import stage_csv
from pipelines.sources.errors import SourceError
from pipelines.sources.registry import BY_NAME
from pipelines.warehouse import Warehouse
from schemas.staging import BY_TABLE, MIMIC_ED

TRIAGE = "subject_id,stay_id,temperature,heartrate,resprate,o2sat,sbp,dbp,pain,acuity,chiefcomplaint"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as fh:
        fh.write(text.encode())


def test_the_source_is_declared_once_and_the_flag_and_variable_follow(tmp_path):
    source = BY_NAME["mimic_ed"]
    assert (source.flag, source.setting, source.demo) == ("--mimic-ed", "CLINVERSE_MIMIC_ED_DIR", "mimic-iv-ed")
    assert any(s.env == "CLINVERSE_MIMIC_ED_DIR" for s in config.SETTINGS)
    args = parser().parse_args(["build", "--mimic-ed", str(tmp_path)])
    assert args.mimic_ed_dir == str(tmp_path)
    settings = config.Settings.from_env({"CLINVERSE_MIMIC_ED_DIR": str(tmp_path), "CLINVERSE_HOME": str(tmp_path)})
    assert settings.configured_sources() == ["mimic_ed"]
    assert {t.table for t in MIMIC_ED} == {"ed_edstays", "ed_triage", "ed_vitalsign", "ed_medrecon", "ed_diagnosis",
                                           "ed_pyxis"}
    assert all(t.source == "mimic_ed" and t.file.startswith("ed/") for t in MIMIC_ED)


def test_a_build_without_it_runs_no_ed_producer(tmp_path):
    settings = config.Settings.from_env({"CLINVERSE_MIMIC_IV_DIR": str(tmp_path), "CLINVERSE_HOME": str(tmp_path)})
    ed = [p for p in producers.PRODUCERS if "mimic_ed" in p.sources]
    assert {p.asset for p in ed} == {"unit_candidates_mimic_ed", "exam_candidates_mimic_ed_vitals"}
    assert all(producers.unconfigured(p, settings) == "MIMIC-IV-ED not configured" for p in ed)


def test_triage_rows_that_do_not_cast_go_to_rejects_and_pain_stays_text(tmp_path):
    _write(tmp_path / "ed/triage.csv.gz",
           f"{TRIAGE}\n1,30,98.6,88,16,97,120,80,unable,2,SOB\n1,31,98.6,fast,16,97,120,80,8,3,CP\n"
           f"2,32,,,,,,,,,\"Abd pain, n/v/d\"\n")
    warehouse = Warehouse(tmp_path / "wh")
    result = stage_csv(BY_TABLE["ed_triage"], tmp_path, warehouse)
    assert result.rows == 2
    assert result.rejects["row_number"].to_list() == [3]
    assert result.rejects["reason"].str.contains("heartrate").all()
    assert set(result.rejects["source"]) == {"mimic_ed"}
    staged = warehouse.read("ed_triage").sort("stay_id")
    assert staged["pain"].to_list() == ["unable", None]
    assert staged["chiefcomplaint"].to_list() == ["SOB", "Abd pain, n/v/d"]


def test_optional_tables_may_be_absent_but_triage_may_not(tmp_path):
    warehouse = Warehouse(tmp_path / "wh")
    result = stage_csv(BY_TABLE["ed_vitalsign"], tmp_path, warehouse)
    assert result.skipped and warehouse.rows("ed_vitalsign") == 0
    with pytest.raises(SourceError, match=r"triage\.csv\.gz not found.*CLINVERSE_MIMIC_ED_DIR"):
        stage_csv(BY_TABLE["ed_triage"], tmp_path, warehouse)


@pytest.mark.parametrize("spec", MIMIC_ED, ids=lambda s: s.table)
def test_the_real_ed_demo_stages_every_row_with_the_spec_types(spec, mimic_ed_demo_dir, tmp_path):
    warehouse = Warehouse(tmp_path)
    result = stage_csv(spec, mimic_ed_demo_dir, warehouse)
    with duckdb.connect() as con:
        total = con.execute(f"SELECT count(*) FROM read_csv('{mimic_ed_demo_dir / spec.file}')").fetchall()[0][0]
    assert result.rejects.height == 0 and result.rows == total > 0
    assert set(spec.columns) <= set(warehouse.read(spec.table).columns)
