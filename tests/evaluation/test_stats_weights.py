"""weights.py: the 66-setting outcome grid, the five cost settings, S and U recomputed from logged
components exactly as scoring computed them, and ranking-preservation counts on a constructed example."""

from __future__ import annotations

import polars as pl
import pytest
from evaluation_cases import HF, HF_TRACE, MEDEVOEVAL, PNEUMONIA, episode, finalize
from stats_frames import tables

from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.params import scoring_params
from pipelines.evaluation.scores import score_traces
from pipelines.evaluation.weights import (
    cost_settings,
    outcome_grid,
    ranking_preservation,
    rankings,
    recompute,
    weight_sensitivity,
)


def test_the_outcome_grid_has_66_settings_on_the_tenth_simplex():
    grid = outcome_grid()
    assert len(grid) == 66 and len({tuple(w.values()) for w in grid}) == 66
    assert all(sum(w.values()) == pytest.approx(1.0) and all(v >= 0 for v in w.values()) for w in grid)
    assert all(round(v * 10, 9) == round(v * 10) for w in grid for v in w.values())
    assert sum(all(v > 0 for v in w.values()) for w in grid) == 36  # interior, as in MedEvoEval C.7
    assert scoring_params().outcome_weights in grid


def test_the_five_cost_settings_are_the_default_and_table_8s_alternatives():
    settings = cost_settings()
    assert list(settings) == ["default", "outcome_heavy", "turn_cost_heavy", "test_cost_heavy", "invalid_test_heavy"]
    assert settings["default"] == scoring_params().utility_weights
    as_tuples = {name: tuple(w[k] for k in ("score", "turns", "tests", "invalid")) for name, w in settings.items()}
    assert as_tuples == {"default": (0.6, 0.2, 0.1, 0.1), "outcome_heavy": (0.8, 0.1, 0.1, 0.0),
                         "turn_cost_heavy": (0.4, 0.4, 0.1, 0.1), "test_cost_heavy": (0.5, 0.1, 0.3, 0.1),
                         "invalid_test_heavy": (0.5, 0.1, 0.1, 0.3)}


@pytest.fixture(scope="module")
def scored(refs) -> pl.DataFrame:
    traces = [episode(HF, HF_TRACE, n_tests=4, n_invalid=2),
              episode(PNEUMONIA, [finalize(1, "Pneumonia", "J18.9", evidence=["cough with green sputum"])], suffix="2")]
    return score_traces(traces, refs, {"run": MEDEVOEVAL}, OfflineJudge())


def test_recomputing_with_the_default_weights_reproduces_the_logged_scores(scored):
    params = scoring_params()
    again = recompute(scored, params.outcome_weights, params.utility_weights)
    assert again["score_s"].to_list() == pytest.approx(scored["score_s"].to_list(), abs=1e-12)
    assert again["utility_u"].to_list() == pytest.approx(scored["utility_u"].to_list(), abs=1e-12)


def test_recomputing_under_other_weights_follows_the_formulas(scored):
    hf, pneumonia = scored.row(0, named=True), scored.row(1, named=True)
    assert pneumonia["plan_redistributed"] and not hf["plan_redistributed"]
    cost = {"score": 0.5, "turns": 0.1, "tests": 0.3, "invalid": 0.1}
    again = recompute(scored, {"diagnosis": 0.2, "evidence": 0.5, "plan": 0.3}, cost).rows(named=True)
    s_hf = 0.2 * hf["s_diag"] + 0.5 * hf["s_evi"] + 0.3 * hf["s_plan"]
    s_pneumonia = (0.2 * pneumonia["s_diag"] + 0.5 * pneumonia["s_evi"]) / 0.7  # no plan: its weight redistributed
    assert [r["score_s"] for r in again] == pytest.approx([s_hf, s_pneumonia])
    assert again[0]["utility_u"] == pytest.approx(0.5 * s_hf - 0.1 * 6 / 10 - 0.3 * 4 / 3 - 0.1 * 0.5)
    # all weight on the plan, which the pneumonia case has no key points for: the diagnosis takes it
    plan_only = recompute(scored, {"diagnosis": 0.0, "evidence": 0.0, "plan": 1.0}, cost)["score_s"].to_list()
    assert plan_only == pytest.approx([hf["s_plan"], pneumonia["s_diag"]])


def components(s_diag: float, s_evi: float, turns: int, n: int) -> dict[str, list]:
    return {"s_diag": [s_diag] * n, "s_evi": [s_evi] * n, "s_plan": [0.0] * n, "k_evi": [1] * n, "k_plan": [1] * n,
            "turns_t": [turns] * n, "c_t": [10] * n, "tests_e": [0] * n, "e_max": [3] * n, "invalid_rate_r": [0.0] * n,
            "score_s": [0.0] * n, "utility_u": [0.0] * n}


@pytest.fixture(scope="module")
def sensitivity() -> pl.DataFrame:
    # A: S = w_diag, five turns (U = 0.6 w_diag - 0.1 by default); B: S = w_evi, no turns (U = 0.6 w_evi)
    return weight_sensitivity(*tables({"A": components(1.0, 0.0, 5, 3), "B": components(0.0, 1.0, 0, 2)}))


def test_the_sensitivity_table_has_every_setting_and_group(sensitivity):
    outcome = sensitivity.filter(pl.col("analysis") == "outcome_weights")
    assert outcome.height == 66 * 2 and sensitivity.filter(pl.col("analysis") == "cost_weights").height == 5 * 2
    default = outcome.filter("default").sort("group").rows(named=True)
    assert [r["setting"] for r in default] == ["0.5/0.3/0.2"] * 2 and [r["n"] for r in default] == [3, 2]
    assert [r["mean_s"] for r in default] == pytest.approx([0.5, 0.3])
    assert [r["mean_u"] for r in default] == pytest.approx([0.6 * 0.5 - 0.2 * 5 / 10, 0.6 * 0.3])


def test_ranking_preservation_counts_the_settings_that_keep_the_default_order(sensitivity):
    counts = {(r["analysis"], r["endpoint"]): r for r in ranking_preservation(sensitivity).iter_rows(named=True)}
    assert list(counts) == [("outcome_weights", "score_s"), ("outcome_weights", "utility_u"),
                            ("cost_weights", "utility_u")]
    s = counts["outcome_weights", "score_s"]
    # A > B iff w_diag > w_evi: 30 of 66 settings (6 ties w_diag = w_evi), 16 of the 36 interior ones
    assert (s["default_ranking"], s["settings"], s["preserved"]) == ("A > B", 66, 30)
    assert (s["interior_settings"], s["interior_preserved"]) == (36, 16)
    u = counts["outcome_weights", "utility_u"]
    # 0.6 w_diag - 0.1 > 0.6 w_evi iff w_diag - w_evi >= 0.2: 25 settings, 12 interior
    assert (u["default_ranking"], u["preserved"], u["interior_preserved"]) == ("A > B", 25, 12)
    cost = counts["cost_weights", "utility_u"]
    # U_A = w_s 0.5 - w_t 0.5 against U_B = w_s 0.3: only the turn-heavy setting puts B first
    assert (cost["settings"], cost["preserved"]) == (5, 4)
    ranked = rankings(sensitivity).filter(pl.col("analysis") == "cost_weights")
    assert ranked.filter(~pl.col("preserved"))["setting"].to_list() == ["turn_cost_heavy"]
    assert ranked.filter(~pl.col("preserved"))["ranking"].to_list() == ["B > A"]


def test_tied_groups_share_a_rank():
    ranked = rankings(weight_sensitivity(*tables({"A": components(1.0, 0.0, 0, 1), "B": components(0.0, 1.0, 0, 1)})))
    tie = ranked.filter((pl.col("setting") == "0.4/0.4/0.2") & (pl.col("endpoint") == "score_s")).row(0, named=True)
    assert (tie["ranking"], tie["preserved"]) == ("A = B", False)
