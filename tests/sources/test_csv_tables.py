import gzip
from pathlib import Path

import pytest

from pipelines.sources.csv_tables import stage_csv
from pipelines.sources.errors import SourceError
from pipelines.warehouse import Warehouse
from schemas.staging import BY_TABLE

HEADER = "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as fh:
        fh.write(text)


def test_rows_that_do_not_cast_or_have_wrong_width_go_to_rejects(tmp_path):
    _write(tmp_path / "hosp/patients.csv.gz",
           f"{HEADER}\n1,F,50,2150,2008 - 2010,\nx,F,50,2150,2008 - 2010,\n3,M,40\n4,M,33,2150,2008 - 2010,2151-01-01\n")
    result = stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))
    assert result.rows == 2
    assert result.rejects["row_number"].to_list() == [3, 4]
    assert result.rejects["reason"].str.contains("CAST").any()
    assert all(result.rejects["file"].str.ends_with("patients.csv.gz"))


def test_missing_column_names_file_column_and_setting(tmp_path):
    _write(tmp_path / "hosp/patients.csv.gz", "subject_id,gender,anchor_year\n1,F,2150\n")
    with pytest.raises(SourceError) as err:
        stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))
    message = str(err.value)
    assert "patients.csv.gz" in message and "anchor_age" in message and "CLINVERSE_MIMIC_IV_DIR" in message


def test_missing_directory_names_the_setting_and_flag(tmp_path):
    with pytest.raises(SourceError, match=r"CLINVERSE_MIMIC_IV_DIR=.*not a directory"):
        stage_csv(BY_TABLE["mimic_patients"], tmp_path / "nowhere", Warehouse(tmp_path / "wh"))


def test_missing_required_file(tmp_path):
    (tmp_path / "hosp").mkdir()
    with pytest.raises(SourceError, match=r"hosp/patients.csv.gz not found"):
        stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))


def test_truncated_gzip_is_reported_with_the_file(tmp_path):
    rows = "".join(f"{i},F,50,2150,2008 - 2010,\n" for i in range(20000))
    _write(tmp_path / "hosp/patients.csv.gz", f"{HEADER}\n{rows}")
    path = tmp_path / "hosp/patients.csv.gz"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(SourceError, match=r"patients.csv.gz.*(truncated|corrupt)"):
        stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))


def test_optional_absent_table_is_skipped_with_a_reason_and_an_empty_table(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    result = stage_csv(BY_TABLE["mimic_chartevents"], tmp_path, wh)
    assert result.skipped and "chartevents" in result.skipped
    assert wh.exists("mimic_chartevents") and wh.rows("mimic_chartevents") == 0
    assert "valuenum" in wh.scan("mimic_chartevents").collect_schema().names()


def test_unpacked_csv_is_accepted(tmp_path):
    (tmp_path / "hosp").mkdir()
    (tmp_path / "hosp/patients.csv").write_text(f"{HEADER}\n1,F,50,2150,2008 - 2010,\n")
    assert stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh")).rows == 1
