import gzip
from pathlib import Path

import pytest

from pipelines.sources.csv_tables import stage_csv
from pipelines.sources.errors import SourceError
from pipelines.warehouse import Warehouse
from schemas.staging import BY_TABLE

HEADER = "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod"


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as fh:
        fh.write(text.encode() if isinstance(text, str) else text)


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


def test_a_bad_byte_near_the_header_is_a_rejected_row_not_a_header_error(tmp_path):
    rows = b"1,F,50,2150,2008 - 2010,\n2,F,5\xe9,2150,2008 - 2010,\n3,M,40,2150,2008 - 2010,\n"
    _write(tmp_path / "hosp/patients.csv.gz", HEADER.encode() + b"\n" + rows)
    result = stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))
    assert result.rows == 2
    assert result.rejects["row_number"].to_list() == [3]


def test_a_bad_byte_in_the_header_line_is_named_as_such(tmp_path):
    _write(tmp_path / "hosp/patients.csv.gz", b"subject_id,g\xe9nder,anchor_age\n1,F,50\n")
    with pytest.raises(SourceError, match=r"patients.csv.gz: the header line is not UTF-8"):
        stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))


def test_a_utf8_byte_order_mark_is_stripped(tmp_path):
    _write(tmp_path / "hosp/patients.csv.gz", "\ufeff" + f"{HEADER}\n1,F,50,2150,2008 - 2010,\n")
    wh = Warehouse(tmp_path / "wh")
    assert stage_csv(BY_TABLE["mimic_patients"], tmp_path, wh).rows == 1
    assert wh.read("mimic_patients")["subject_id"].to_list() == [1]


@pytest.mark.parametrize("content", [None, b""])  # a 0-byte file, and a gzip holding nothing
def test_an_empty_optional_file_is_treated_as_absent(tmp_path, content):
    path = tmp_path / "icu/chartevents.csv.gz"
    if content is None:
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
    else:
        _write(path, content)
    wh = Warehouse(tmp_path / "wh")
    result = stage_csv(BY_TABLE["mimic_chartevents"], tmp_path, wh)
    assert "empty file" in result.skipped and "treated as absent" in result.skipped
    assert wh.rows("mimic_chartevents") == 0


def test_an_empty_required_file_says_empty_file(tmp_path):
    (tmp_path / "hosp").mkdir()
    (tmp_path / "hosp/patients.csv.gz").write_bytes(b"")
    with pytest.raises(SourceError, match=r"patients.csv.gz: empty file"):
        stage_csv(BY_TABLE["mimic_patients"], tmp_path, Warehouse(tmp_path / "wh"))
