"""Weight sensitivity of S and U (MedEvoEval Appendix C.7), recomputed from the components that
``episode_scores`` logs, with the formulas scoring used (formulas.py):

* ``outcome_weights``: (w_diag, w_evi, w_plan) over the simplex with spacing 0.1, 66 settings (36 of
  them interior: every weight positive). S is recomputed from S_diag, S_evi and S_plan (a kind
  without key points gives its weight to the others, as in scoring), then U from it with the
  default cost weights and the run's own C_T and E_max.
* ``cost_weights``: the five utility settings (score, turns, tests, invalid) of Table 8, scoring.yaml's
  default and data/statistics.yaml's four alternatives, with the default S.

Ranking preservation: in every setting the groups (conditions, or doctors: ``by``) are ranked by
mean S and by mean U; a setting preserves the ranking when it equals the default setting's. Ties
share a rank, and means are compared to :data:`TIE_DECIMALS` decimals, so float noise is no change.
S does not depend on the cost weights, so the cost analysis ranks by U only.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipelines.evaluation.formulas import outcome_score, redistribute, utility
from pipelines.evaluation.params import scoring_params, statistics_params
from pipelines.evaluation.stats import TIE_DECIMALS, scored_episodes

GRID_STEPS = 10  # spacing 1 / 10: (10 + 1)(10 + 2) / 2 = 66 settings
OUTCOME_COLUMNS = {"diagnosis": "w_diag", "evidence": "w_evi", "plan": "w_plan"}
COST_COLUMNS = {"score": "w_score", "turns": "w_turns", "tests": "w_tests", "invalid": "w_invalid"}
ENDPOINTS = {"mean_s": "score_s", "mean_u": "utility_u"}


def outcome_grid() -> list[dict[str, float]]:
    """The 66 outcome-weight settings, w_diag descending, then w_evi descending."""
    return [{"diagnosis": d / GRID_STEPS, "evidence": e / GRID_STEPS, "plan": (GRID_STEPS - d - e) / GRID_STEPS}
            for d in range(GRID_STEPS, -1, -1) for e in range(GRID_STEPS - d, -1, -1)]


def cost_settings() -> dict[str, dict[str, float]]:
    """The five cost-weight settings by name, the default first."""
    return {"default": scoring_params().utility_weights, **statistics_params().cost_weights}


def recompute(scores: pl.DataFrame, outcome: Mapping[str, float], cost: Mapping[str, float]) -> pl.DataFrame:
    """``scores`` (``episode_scores`` rows) with ``score_s`` and ``utility_u`` recomputed under the weights."""
    weights = redistribute(outcome, pl.col("k_evi") > 0, pl.col("k_plan") > 0)
    score = outcome_score(weights, pl.col("s_diag"), pl.col("s_evi").fill_null(0.0), pl.col("s_plan").fill_null(0.0))
    u = utility(cost, pl.col("score_s"), pl.col("turns_t"), pl.col("c_t"), pl.col("tests_e"), pl.col("e_max"),
                pl.col("invalid_rate_r"))
    return scores.with_columns(score.alias("score_s")).with_columns(u.alias("utility_u"))


def _means(frame: pl.DataFrame, by: str) -> pl.DataFrame:
    return frame.group_by(by).agg(pl.len().cast(pl.Int32).alias("n"), pl.col("score_s").mean().alias("mean_s"),
                                  pl.col("utility_u").mean().alias("mean_u")).select(
        pl.col(by).cast(pl.Utf8).alias("group"), "n", "mean_s", "mean_u").sort("group")


def _setting(frame: pl.DataFrame, by: str, analysis: str, name: str, outcome: Mapping[str, float],
             cost: Mapping[str, float], default: bool) -> pl.DataFrame:
    return _means(recompute(frame, outcome, cost), by).select(
        pl.lit(analysis).alias("analysis"), pl.lit(name).alias("setting"), pl.lit(default).alias("default"),
        *(pl.lit(outcome[k]).alias(c) for k, c in OUTCOME_COLUMNS.items()),
        *(pl.lit(cost[k]).alias(c) for k, c in COST_COLUMNS.items()), pl.all())


def weight_sensitivity(scores: pl.DataFrame, episodes: pl.DataFrame, by: str = "condition") -> pl.DataFrame:
    """Mean S and U per group (``by``: a column of ``episodes``) under every setting: one row per
    analysis (``outcome_weights``, ``cost_weights``), setting (``0.5/0.3/0.2``: w_diag/w_evi/w_plan; or the
    cost setting's name) and group, with the setting's weights and whether it is the default."""
    frame = scored_episodes(scores, episodes, by)
    params = scoring_params()
    if params.outcome_weights not in outcome_grid():
        raise ValueError(f"the default outcome weights {params.outcome_weights} are not on the grid")
    outcome = [_setting(frame, by, "outcome_weights", "/".join(f"{v:g}" for v in w.values()), w,
                        params.utility_weights, w == params.outcome_weights) for w in outcome_grid()]
    cost = [_setting(frame, by, "cost_weights", name, params.outcome_weights, c, name == "default")
            for name, c in cost_settings().items()]
    return pl.concat([*outcome, *cost])


def _ranking(groups: list[str], ranks: list[int]) -> str:
    """``E3 > E2 = E1 > E0``: groups in rank order, ties by name."""
    return "".join(g if i == 0 else (" = " if r == ranks[i - 1] else " > ") + g
                   for i, (g, r) in enumerate(zip(groups, ranks, strict=True)))


def rankings(sensitivity: pl.DataFrame) -> pl.DataFrame:
    """Per analysis, setting and endpoint (``score_s``, ``utility_u``; the cost analysis ``utility_u``
    only): the ranking of the groups by their mean, and whether it is the default setting's."""
    long = sensitivity.unpivot(on=list(ENDPOINTS), index=["analysis", "setting", "default", *OUTCOME_COLUMNS.values(),
                                                        "group"], variable_name="endpoint", value_name="mean")
    long = long.with_columns(pl.col("endpoint").replace_strict(ENDPOINTS)).filter(
        (pl.col("analysis") != "cost_weights") | (pl.col("endpoint") == "utility_u"))
    ranked = long.with_columns(pl.col("mean").round(TIE_DECIMALS).rank("min", descending=True)
                               .over("analysis", "setting", "endpoint").alias("rank"))
    keys = ["analysis", "setting", "endpoint"]
    orders = ranked.group_by(keys, maintain_order=True).agg(  # settings in their declared order
        pl.col("default").first(), pl.col("w_diag", "w_evi", "w_plan").first(),
        pl.col("group").sort_by("rank", "group"), pl.col("rank").sort())
    orders = orders.with_columns(pl.struct("group", "rank").map_elements(
        lambda s: _ranking(s["group"], s["rank"]), return_dtype=pl.Utf8).alias("ranking")).drop("group", "rank")
    reference = orders.filter("default").select("analysis", "endpoint", pl.col("ranking").alias("default_ranking"))
    return orders.join(reference, on=["analysis", "endpoint"], how="left").with_columns(
        (pl.col("ranking") == pl.col("default_ranking")).alias("preserved"))


def ranking_preservation(sensitivity: pl.DataFrame) -> pl.DataFrame:
    """Per analysis and endpoint: how many settings keep the default ranking, overall and among the
    interior settings (every outcome weight positive; for the cost analysis, every setting)."""
    interior = (pl.col("w_diag") > 0) & (pl.col("w_evi") > 0) & (pl.col("w_plan") > 0)
    return rankings(sensitivity).group_by("analysis", "endpoint", maintain_order=True).agg(
        pl.col("default_ranking").first(), pl.len().cast(pl.Int32).alias("settings"),
        pl.col("preserved").sum().cast(pl.Int32), interior.sum().cast(pl.Int32).alias("interior_settings"),
        (interior & pl.col("preserved")).sum().cast(pl.Int32).alias("interior_preserved"))
