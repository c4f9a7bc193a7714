"""The evaluation protocols (pipelines/evaluation/protocols.py): their data file, the order a study
plays them in, and a whole study on the session's demo warehouse — E3 beats E0 and H3 beats H0 on
utility with the offline memory doctor, the statistics are scipy's recomputed from the written
tables, a rerun resumes, and the CLI and the Dagster asset drive the same function."""

from __future__ import annotations

import json
import shutil

import dagster as dg
import polars as pl
import pytest
from scipy.stats import wilcoxon

import schemas
from assets.study import evaluation_report, stat_tests
from pipelines.cli import main
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.protocols import protocols, run_study, study_order
from pipelines.evaluation.stages import STUDY
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

PRESET = "medevoeval"


def test_protocols_pair_their_arms_and_name_earlier_banks():
    found = protocols()
    assert [a.label for a in found["stream"].arms] == ["E0", "E1", "E2", "E3"]
    assert [a.label for a in found["heldout"].arms] == ["H0", "H3"] and found["heldout"].arms[1].source == "E3"
    assert {a.part for a in found["stream"].arms} == {"first_half"} and {a.part for a in found["heldout"].arms} == {
        "second_half"}
    assert [a.mdt for a in found["mdt"].arms] == [True, False]


def test_a_study_plays_each_protocol_after_those_it_needs():
    assert study_order(["heldout"]) == ["stream", "heldout"]
    assert study_order(["mdt", "all"])[:3] == ["stream", "heldout", "update"]
    with pytest.raises(KeyError, match="no protocol nonesuch"):
        study_order(["nonesuch"])


@pytest.fixture(scope="module")
def study(demo_home, tmp_path_factory):
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("study") / "home", symlinks=True)
    warehouse = Warehouse(home)
    done = run_study(warehouse, CaseStore.from_warehouse(warehouse), ["heldout"], preset=PRESET, stages=3)
    return warehouse, done


def _mean_u(warehouse, run_id):
    return warehouse.read_partition("episode_scores", run_id)["utility_u"].mean()


@pytest.mark.slow
def test_memory_raises_utility_in_the_stream_and_on_held_out_cases(study):
    warehouse, done = study
    u = {label: _mean_u(warehouse, run_id) for label, run_id in done.runs.items()}
    assert u["E3"] > u["E0"] and u["H3"] > u["H0"], u
    stream = warehouse.read_partition("episodes", done.runs["E0"])["case_id"].sort().to_list()
    held = warehouse.read_partition("episodes", done.runs["H0"])["case_id"].sort().to_list()
    assert stream and held and not set(stream) & set(held)  # two halves of the test split
    for label in ("E1", "E2", "E3"):
        assert warehouse.read_partition("episodes", done.runs[label])["case_id"].sort().to_list() == stream


@pytest.mark.slow
def test_stat_tests_are_scipys_on_the_written_scores_and_each_run_records_its_stream(study):
    warehouse, done = study
    table = schemas.conform("stat_tests", warehouse.read("stat_tests"))
    row = table.filter((pl.col("comparison") == "H3 vs H0") & (pl.col("endpoint") == "utility_u")).row(0, named=True)
    h3, h0 = (warehouse.read_partition("episode_scores", done.runs[label]).sort("case_id") for label in ("H3", "H0"))
    assert h3["case_id"].to_list() == h0["case_id"].to_list() and row["n"] == h3.height
    assert row["p_raw"] == pytest.approx(wilcoxon(h3["utility_u"].to_numpy(), h0["utility_u"].to_numpy()).pvalue)
    assert row["effect"] == pytest.approx((h3["utility_u"] - h0["utility_u"]).mean())
    assert set(table["family"]) == {"stream", "stream_levels", "heldout"}
    config = json.loads(warehouse.read_partition("runs", done.runs["E2"])["config"].item())
    episodes = warehouse.read_partition("episodes", done.runs["E2"])
    assert config[STUDY]["stages"] == 3 and sorted(config[STUDY]["stream"]) == episodes["case_id"].sort().to_list()


@pytest.mark.slow
def test_a_rerun_resumes_every_arm_and_gives_the_same_statistics(study):
    warehouse, done = study
    again = run_study(warehouse, CaseStore.from_warehouse(warehouse), ["heldout"], preset=PRESET, stages=3)
    assert again.runs == done.runs
    assert again.stat_tests.equals(done.stat_tests)


@pytest.mark.slow
def test_clinverse_evaluate_and_the_study_assets_drive_the_same_study(study, capsys):
    warehouse, _ = study
    assert main(["evaluate", "--home", str(warehouse.home), "--protocol", "mdt", "--preset", PRESET]) == 0
    out = capsys.readouterr().out
    assert "M1 vs M0" in out and (warehouse.home / "reports" / "evaluation.html").exists()
    resources = {"clinverse": ClinverseResource(home=str(warehouse.home))}
    result = dg.materialize([stat_tests], resources=resources, partition_key="mdt",
                            run_config={"ops": {"stat_tests": {"config": {"preset": PRESET}}}})
    assert result.success
    report = dg.materialize([stat_tests, evaluation_report], resources=resources,
                            selection=dg.AssetSelection.assets(evaluation_report))
    assert report.success
    # a protocol protocols.yaml does not define is refused, naming the ones it does
    assert main(["evaluate", "--home", str(warehouse.home), "--protocol", "nonesuch"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "no protocol nonesuch" in said and "clinlab" in said
