"""Materialise medqa_content and its checks in-process on demo MedQA questions (pipelines.demo)."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

import schemas
from assets.medqa import (
    medqa_content,
    medqa_history_holds_no_measurement,
    medqa_presentations_hide_the_stem,
    medqa_views_name_no_option,
)
from pipelines.cases.medqa_skeleton import medqa_skeleton
from pipelines.config import DEMO_ID_KEY
from pipelines.demo.medqa import make_question
from pipelines.demo.writer import make_rng
from pipelines.resources import ClinverseResource
from pipelines.runner import materialize
from pipelines.sources.medqa import stage_medqa
from pipelines.warehouse import Warehouse

QUESTIONS = 40
CHECKS = [medqa_views_name_no_option, medqa_history_holds_no_measurement, medqa_presentations_hide_the_stem]


def _stage(tmp: Path) -> tuple[Warehouse, Path]:
    source = tmp / "medqa" / "US_demo.jsonl"
    source.parent.mkdir(parents=True)
    source.write_text("".join(json.dumps(make_question(make_rng(0, "medqa", q)), ensure_ascii=False) + "\n"
                              for q in range(QUESTIONS)), encoding="utf-8")
    warehouse = Warehouse(tmp / "home")
    questions, _ = stage_medqa((source,))
    warehouse.write("medqa_questions", questions)
    parts = medqa_skeleton(questions, DEMO_ID_KEY, "demo", 0.2)
    warehouse.write("case_skeleton", parts.skeleton)
    warehouse.write("case_provenance", parts.provenance)
    return warehouse, source


def _materialise(home: Path, medqa: Path | None) -> dg.ExecuteInProcessResult:
    resource = ClinverseResource(home=str(home), medqa_path=str(medqa) if medqa else None)
    return materialize([medqa_content, *CHECKS], resources={"clinverse": resource}, raise_on_error=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    warehouse, source = _stage(tmp_path_factory.mktemp("medqa"))
    return _materialise(warehouse.home, source), warehouse


def _checks(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    return {e.check_name: e.passed for e in (ev.event_specific_data for ev in result.all_events
                                             if ev.event_type_value == "ASSET_CHECK_EVALUATION")}


def test_views_are_written_and_checks_pass(built):
    result, warehouse = built
    assert result.success
    assert _checks(result) == {"medqa_views_name_no_option": True, "medqa_history_holds_no_measurement": True,
                               "medqa_presentations_hide_the_stem": True}
    skeleton = warehouse.read("case_skeleton")
    for table in ("unit_candidates", "exam_candidates", "presentations", "leakage_removals"):
        part = warehouse.read_partition(table, "medqa")
        schemas.validate(table, part)
        assert part["case_id"].is_in(skeleton["case_id"].implode()).all()
    presentations = warehouse.read_partition("presentations", "medqa")
    assert presentations.height >= 0.95 * skeleton.height
    rubric = warehouse.read("medqa_rubric")
    assert rubric["case_id"].n_unique() == skeleton.height
    meta = result.asset_materializations_for_node("medqa_content")
    assert {m.asset_key.to_user_string() for m in meta} == {
        "unit_candidates_medqa", "exam_candidates_medqa", "presentations_medqa", "medqa_rubric"}


def test_demo_vignettes_split_into_history_and_findings(built):
    _, warehouse = built
    units = warehouse.read_partition("unit_candidates", "medqa")
    exams = warehouse.read_partition("exam_candidates", "medqa")
    cases = warehouse.read("case_skeleton").height
    assert units.filter(~pl.col("disclosed"))["case_id"].n_unique() >= 0.9 * cases
    assert exams.filter(pl.col("kind") == "vital")["case_id"].n_unique() >= 0.9 * cases
    assert exams.filter(pl.col("kind") == "lab").height > 0 and exams["abnormal"].any()


def test_without_medqa_the_partitions_are_emptied(built):
    _, warehouse = built
    result = _materialise(warehouse.home, None)
    assert result.success
    for table in ("unit_candidates", "exam_candidates", "presentations"):
        assert warehouse.read_partition(table, "medqa").is_empty()
