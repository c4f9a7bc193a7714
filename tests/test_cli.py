import gzip
import json
import os

import polars as pl
import pytest

from pipelines.cli import main
from pipelines.warehouse import Warehouse


def test_build_stops_before_starting_when_a_source_directory_is_missing(tmp_path, capsys, monkeypatch):
    for name in ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH"):
        monkeypatch.delenv(name, raising=False)
    code = main(["build", "--mimic-iv", str(tmp_path / "nowhere"), "--home", str(tmp_path / "home")])
    err = capsys.readouterr().err
    assert code == 2
    assert "CLINVERSE_MIMIC_IV_DIR" in err and "nowhere" in err and "--mimic-iv" in err


def test_flags_go_into_the_resources_not_the_environment(tmp_path, monkeypatch):
    for name in ("CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_SEED"):
        monkeypatch.delenv(name, raising=False)
    main(["build", "--mimic-iv", str(tmp_path / "nowhere"), "--home", str(tmp_path / "home"), "--seed", "3"])
    assert "CLINVERSE_MIMIC_IV_DIR" not in os.environ and "CLINVERSE_SEED" not in os.environ


@pytest.mark.parametrize(("name", "text", "said"), [
    ("CLINVERSE_SEED", "abc", "CLINVERSE_SEED: cannot read 'abc'; write an integer, e.g. 0"),
    ("CLINVERSE_DUCKDB_MEMORY", "lots", "CLINVERSE_DUCKDB_MEMORY: cannot read 'lots'; write an amount of memory"),
])
def test_a_setting_that_cannot_be_read_stops_the_build_naming_it(tmp_path, capsys, monkeypatch, name, text, said):
    monkeypatch.setenv(name, text)
    assert main(["build", "--home", str(tmp_path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err
    assert not (tmp_path / "demo-sources").exists()  # nothing was generated


def test_query_formats(tmp_path, capsys):
    wh = Warehouse(tmp_path)
    wh.write("excluded_cases", pl.DataFrame({"case_id": ["c_0000000000000001"], "source": ["sicdb"],
                                             "stage": ["icd_normalisation"], "reason": ["ICD10Main C19.x1 ..."]}))
    sql = "SELECT source, stage FROM excluded_cases"
    assert main(["query", "--home", str(tmp_path), "--format", "csv", sql]) == 0
    assert capsys.readouterr().out.splitlines() == ["source,stage", "sicdb,icd_normalisation"]
    assert main(["query", "--home", str(tmp_path), "--format", "json", sql]) == 0
    assert json.loads(capsys.readouterr().out) == [{"source": "sicdb", "stage": "icd_normalisation"}]
    assert main(["query", "--home", str(tmp_path), sql]) == 0
    assert "icd_normalisation" in capsys.readouterr().out


def test_query_reports_bad_sql_and_missing_warehouse(tmp_path, capsys):
    assert main(["query", "--home", str(tmp_path / "none"), "SELECT 1"]) == 2
    assert "clinverse build" in capsys.readouterr().err
    Warehouse(tmp_path).write("excluded_cases", pl.DataFrame(
        {"case_id": ["c_0000000000000001"], "source": ["sicdb"], "stage": ["s"], "reason": ["r"]}))
    assert main(["query", "--home", str(tmp_path), "SELECT nope FROM excluded_cases"]) == 1
    assert "query failed" in capsys.readouterr().err


def test_demo_data_writes_every_source_layout(tmp_path):
    assert main(["demo-data", str(tmp_path), "--admissions", "20", "--seed", "3"]) == 0
    for path in ("mimic-iv/hosp/admissions.csv.gz", "mimic-iv/icu/chartevents.csv.gz",
                 "mimic-iv-note/note/discharge.csv.gz", "sicdb/cases.csv.gz"):
        assert (tmp_path / path).stat().st_size > 0, path
    assert list((tmp_path / "medqa").glob("*.jsonl"))


def test_csv_writes_lists_as_json(tmp_path, capsys):
    Warehouse(tmp_path).write("excluded_cases", pl.DataFrame(
        {"case_id": ["c_0000000000000001"], "source": ["sicdb"], "stage": ["s"], "reason": ["r"]}))
    assert main(["query", "--home", str(tmp_path), "--format", "csv",
                 "SELECT ['a', 'b'] AS names, {'k': 1} AS s FROM excluded_cases"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == '"[""a"", ""b""]","{""k"": 1}"'


def test_a_failed_rebuild_leaves_the_previous_good_tables_in_place(tmp_path, capsys, monkeypatch):
    for name in ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert main(["demo-data", str(tmp_path / "src"), "--admissions", "20", "--seed", "1"]) == 0
    mimic, home = tmp_path / "src" / "mimic-iv", tmp_path / "home"
    build = ["build", "--mimic-iv", str(mimic), "--home", str(home), "--select", "group:mimic_iv"]
    assert main(build) == 0
    wh = Warehouse(home)
    admissions = wh.rows("mimic_admissions")
    first = wh.published_at()
    # The rebuild stages a shorter admissions file, then fails on a truncated patients file.
    admissions_file = mimic / "hosp" / "admissions.csv.gz"
    lines = gzip.decompress(admissions_file.read_bytes()).splitlines(keepends=True)
    admissions_file.write_bytes(gzip.compress(b"".join(lines[:3])))
    patients = mimic / "hosp" / "patients.csv.gz"
    patients.write_bytes(patients.read_bytes()[:-40])
    capsys.readouterr()
    assert main(build) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "patients.csv.gz" in err and f"the tables of the previous build ({first}) are still in place" in err
    assert "CLINVERSE_MIMIC_IV_DIR (--mimic-iv)" in err  # the variable and the flag
    assert "Stack Trace" not in err and "Not executing" not in err and "STEP_FAILURE" not in err
    logs = sorted((home / "logs").glob("build-*.log"))
    assert "the whole log" in err and "STEP_FAILURE" in logs[-1].read_text()  # the details are in the file
    assert wh.published_at() == first and wh.rows("mimic_admissions") == admissions  # nothing of the rebuild shows
    assert wh.query("SELECT count(*) AS n FROM mimic_admissions")["n"].item() == admissions
    assert sorted(p.name for p in (home / "generations").iterdir() if p.is_dir()) == [first]
