"""One result per case and name: equally early results are broken by producer order, whatever the
batch and shard files the producers wrote (sql/exams_first_per_name.sql)."""

import duckdb
import polars as pl

from pipelines.exams.results import PARTITION_ORDER
from pipelines.warehouse import PARTITION_OF_PATH, Warehouse
from sql import load

CASE = "c_" + "0" * 15 + "1"


def _result(value: float, ref: str) -> dict:
    return {"case_id": CASE, "exam_name": "Heart rate", "kind": "vital", "value_num": value, "value_text": None,
            "unit": "bpm", "ref_low": None, "ref_high": None, "abnormal": False, "offset_hours": 0.0,
            "origin": "recorded", "source_ref": ref, "raw_name": "Heart rate", "loinc": None}


def test_equally_early_results_keep_the_first_producer_s_even_from_shard_files(tmp_path):
    warehouse = Warehouse(tmp_path)
    # mimic_vitals comes before mimic_notes; the notes' source reference sorts first
    assert PARTITION_ORDER.index("mimic_vitals") < PARTITION_ORDER.index("mimic_notes")
    warehouse.shard_view("s01").write("exam_candidates", pl.DataFrame([_result(80, "a:note")]), "mimic_notes-00000")
    warehouse.shard_view("s01").write("exam_candidates", pl.DataFrame([_result(90, "z:chart")]), "mimic_vitals")
    pl.DataFrame({"case_id": [CASE]}).write_parquet(tmp_path / "skeleton.parquet")
    with duckdb.connect() as con:
        con.register("names", pl.DataFrame({"exam_name": ["Heart rate"], "kind": ["vital"], "canonical": ["Heart rate"],
                                            "canonical_kind": ["vital"], "loinc": [None]}, schema_overrides={"loinc": pl.Utf8}))
        con.register("partition_order", pl.DataFrame({"partition": PARTITION_ORDER, "rank": range(len(PARTITION_ORDER))}))
        first = con.sql(load("exams_first_per_name").format(
            candidates=warehouse.table_glob("exam_candidates"), skeleton=tmp_path / "skeleton.parquet",
            partition_of_path=PARTITION_OF_PATH)).pl()
    assert first.select("partition", "value_num").rows() == [("mimic_vitals", 90.0)]
