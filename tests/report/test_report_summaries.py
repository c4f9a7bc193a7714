"""The report's summaries on the demo warehouse with three small runs (conftest.py): every summary the
tables allow, the numbers agree with the tables they come from, and `clinverse report` writes the page."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from report_runs import ARMS, CASES, STAGED_RUN, STAGES
from scipy.stats import bootstrap

from pipelines.cli import main
from pipelines.evaluation.params import statistics_params
from pipelines.report.page import wording
from pipelines.report.summaries import BOOTSTRAP_BATCH, SUMMARIES, report_summaries
from pipelines.report.turns import DOCTOR_ACTIONS
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def warehouse(report_home) -> Warehouse:
    return Warehouse(report_home)


@pytest.fixture(scope="module")
def summaries(warehouse) -> dict[str, pl.DataFrame]:
    return report_summaries(warehouse)


@pytest.fixture(scope="module")
def scored(warehouse) -> pl.DataFrame:
    episodes = warehouse.read("episodes").select("episode_id", "condition", "doctor", "turns", "termination")
    return warehouse.read("episode_scores").join(episodes, on="episode_id")


def test_every_summary_but_the_statistics_is_there(summaries):
    assert set(summaries) == set(SUMMARIES) - {"stat_tests"}  # no `clinverse evaluate` has run
    assert all(frame.height for frame in summaries.values())


def test_condition_scores_are_seeded_bootstrap_intervals_of_the_mean(summaries, scored):
    conditions = summaries["conditions"]
    assert sorted(conditions["arm"].unique()) == ARMS
    row = conditions.filter((pl.col("arm") == "E1 (random)") & (pl.col("endpoint") == "utility_u")).row(0, named=True)
    random = scored.filter((pl.col("condition") == "E1") & (pl.col("doctor") == "random")).sort("case_id", "episode_id")
    values = random["utility_u"].to_numpy()
    params = statistics_params()
    again = bootstrap((values,), np.mean, n_resamples=params.resamples, confidence_level=params.confidence,
                      method="percentile", batch=BOOTSTRAP_BATCH, rng=np.random.default_rng(params.seed)
                      ).confidence_interval
    assert (row["n"], row["runs"], row["doctor"]) == (CASES, 1, "random")
    assert row["mean"] == pytest.approx(values.mean())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((again.low, again.high))
    assert (conditions["ci_low"] <= conditions["mean"]).all() and (conditions["mean"] <= conditions["ci_high"]).all()


def test_learning_curves_cover_only_the_staged_run(summaries, warehouse):
    stages = summaries["stages"]
    assert stages["arm"].unique().to_list() == ["E0"]
    assert stages["stage"].to_list() == list(range(STAGES)) and stages["episodes"].to_list() == [CASES // STAGES] * 4
    staged = summaries["runs"].filter(pl.col("staged"))["run_id"].to_list()
    assert staged == [STAGED_RUN]


def test_information_collected_by_the_last_turn_is_the_mean_icr(summaries, scored):
    turns = summaries["turns"]
    for arm, (condition, doctor) in {"E0": ("E0", "retrieval"), "E1 (random)": ("E1", "random")}.items():
        episodes = scored.filter((pl.col("condition") == condition) & (pl.col("doctor") == doctor))
        curve = turns.filter(pl.col("arm") == arm).sort("turn")
        assert curve["turn"].to_list() == list(range(episodes["turns"].max() + 1))
        assert curve["icr_share"][0] == 0.0 and curve["icr_share"].diff().drop_nulls().min() >= 0
        assert curve["icr_share"][-1] == pytest.approx(episodes["icr"].mean())
        finalised_right = ((pl.col("termination") == "finalized") & (pl.col("dca") == 1.0)).cast(pl.Float64).mean()
        assert curve["dca_share"][-1] == pytest.approx(episodes.select(finalised_right).item())
        assert (curve["episodes"] == CASES).all()


def test_action_counts_add_up_to_the_doctors_events(summaries, warehouse):
    actions = summaries["actions"]
    events = warehouse.read("episode_events").filter(pl.col("actor") == "doctor")
    ours = warehouse.read("episodes").filter(pl.col("run_id").str.starts_with("report-"))["episode_id"]
    assert set(actions["action"]) == set(DOCTOR_ACTIONS)
    assert actions["count"].sum() == events.filter(pl.col("episode_id").is_in(ours.implode())).height


def test_weights_subgroups_and_cases_name_every_arm_and_case(summaries, scored):
    preservation = summaries["weight_preservation"]
    assert preservation["settings"].to_list() == [66, 66, 5]
    assert sorted(summaries["weight_costs"]["group"].unique()) == ARMS
    assert set(summaries["subgroups"]["subgroup"]) == {"age_band", "sex", "icd10_block"}
    cases = summaries["cases"]
    assert cases.height == scored.height == 3 * CASES
    assert set(cases["case_id"]) == set(scored["case_id"]) and cases["true_block"].null_count() < cases.height


def test_the_cli_writes_the_report_and_says_how_many_sections_had_data(report_home, tmp_path, capsys):
    out = tmp_path / "out" / "report.html"
    assert main(["report", "--home", str(report_home), "--out", str(out)]) == 0
    page = out.read_text()
    sections = len(wording().sections)
    assert f"({sections - 1} of {sections} sections with data)" in capsys.readouterr().err.replace("\n", " ")
    assert "no paired statistics in this warehouse: run <code>clinverse evaluate</code>" in page
    assert page.count("<svg") == 8 and "c_" in page
    assert main(["report", "--home", str(tmp_path / "none"), "--out", str(tmp_path / "none.html")]) == 2
