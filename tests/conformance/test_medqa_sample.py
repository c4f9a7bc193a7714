"""Conformance on 128 real MedQA questions: every diagnosis question becomes a kept case, the
rest are excluded with a reason, and no doctor- or patient-visible view names the answer."""

import polars as pl
import pytest

from pipelines.cli import main
from pipelines.leakage import audit_frame
from pipelines.warehouse import Warehouse


@pytest.fixture(scope="module")
def medqa_warehouse(medqa_sample, tmp_path_factory) -> Warehouse:
    home = tmp_path_factory.mktemp("real-medqa")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_HOME"):
            mp.delenv(name, raising=False)
        mp.setenv("CLINVERSE_LOG_LEVEL", "WARNING")
        # Profiles need Synthea and are covered by the demo build; this checks the MedQA path.
        assert main(["build", "--home", str(home), "--medqa", str(medqa_sample),
                     "--select", "not group:profiles and not group:evaluation"]) == 0
    return Warehouse(home)


def test_at_least_95_percent_of_diagnosis_questions_become_cases(medqa_warehouse):
    considered = medqa_warehouse.rows("case_skeleton")
    assert considered >= 15
    assert medqa_warehouse.rows("cases") >= 0.95 * considered
    excluded = medqa_warehouse.read("excluded_cases")
    assert excluded.height + medqa_warehouse.rows("cases") == 128
    assert excluded["reason"].str.len_chars().min() > 0


def test_no_view_names_the_answer(medqa_warehouse):
    cases = medqa_warehouse.read("cases")
    terms = {row["case_id"]: [row["diagnosis_name"], *row["acceptable_names"]] for row in cases.iter_rows(named=True)}
    units = medqa_warehouse.read("information_units").join(cases.select("case_id"), on="case_id", how="semi")
    exams = medqa_warehouse.read("exam_results").join(cases.select("case_id"), on="case_id", how="semi")
    for frame, columns in ((units, ["text"]), (exams, ["exam_name", "value_text"]), (cases, ["presentation"])):
        assert audit_frame(frame, columns, terms).is_empty()
    assert units.filter(pl.col("disclosed")).height > 0
