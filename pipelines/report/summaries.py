"""The report's summaries as plain frames (:func:`report_summaries`), one per table of the report, so
the HTML page and Dagster asset metadata show the same numbers.

Episodes are compared by *arm*: their ``condition`` label, or ``condition (doctor)`` where one label
was played by several doctors (``make demo`` runs three doctors under ``baseline``). A summary whose
tables are not in the warehouse, or that has nothing to summarise, is left out of the result;
the page then says which command makes it.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
from scipy.stats import bootstrap

from pipelines.episodes.stress import stress_rates
from pipelines.evaluation.params import statistics_params
from pipelines.evaluation.scores import SUMMARY
from pipelines.evaluation.stages import STUDY, episode_stages
from pipelines.evaluation.subgroups import subgroup_means
from pipelines.evaluation.weights import ranking_preservation, weight_sensitivity
from pipelines.report.turns import action_counts, turn_curves
from pipelines.warehouse import Warehouse

ENDPOINTS = tuple(SUMMARY)  # score_s, utility_u, icr, toc, atc, dca, dsa, strict, pass
STAGE_ENDPOINTS = ("score_s", "utility_u")
SUBGROUP_ENDPOINTS = ("score_s", "utility_u", "dca", "strict")
CASE_COLUMNS = ("turns", "termination", "final_icd10", "dca", "s_diag", "score_s", "utility_u", "strict", "pass")
BOOTSTRAP_BATCH = 1000  # resamples drawn at once (bounds memory for large arms; part of the seeded draw)
SUMMARIES = ("runs", "conditions", "stat_tests", "stages", "turns", "actions", "weight_preservation",
             "weight_costs", "subgroups", "clinlab_overall", "clinlab_exams", "stress", "cases")


def with_arms(episodes: pl.DataFrame) -> pl.DataFrame:
    """``episodes`` with their ``arm`` (module docstring)."""
    doctors = episodes.group_by("condition").agg(pl.col("doctor").n_unique().alias("_doctors"))
    return episodes.join(doctors, on="condition").with_columns(
        pl.when(pl.col("_doctors") > 1).then(pl.format("{} ({})", "condition", "doctor"))
        .otherwise(pl.col("condition")).alias("arm")).drop("_doctors")


def mean_interval(values: np.ndarray) -> tuple[float | None, float | None]:
    """The seeded percentile-bootstrap interval of the mean (resamples, seed and confidence from
    data/statistics.yaml, as the paired intervals of stats.py); none below two values."""
    if len(values) < 2:
        return None, None
    params = statistics_params()
    result = bootstrap((values,), np.mean, n_resamples=params.resamples, confidence_level=params.confidence,
                       method="percentile", batch=BOOTSTRAP_BATCH, rng=np.random.default_rng(params.seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def condition_scores(scores: pl.DataFrame, episodes: pl.DataFrame) -> pl.DataFrame:
    """Per arm and endpoint: episodes, mean and its 95 % bootstrap interval (the values in case id
    order, as stats.py orders its paired cases: the seeded draw depends on the order)."""
    frame = scores.join(episodes.select("episode_id", "arm", "condition", "doctor"), on="episode_id", how="inner")
    rows = []
    for (arm,), part in frame.sort("arm", "case_id", "episode_id").group_by("arm", maintain_order=True):
        runs = part["run_id"].n_unique()
        for endpoint in ENDPOINTS:
            values = part[endpoint].cast(pl.Float64).drop_nulls().to_numpy()
            low, high = mean_interval(values)
            rows.append({"arm": arm, "condition": part["condition"][0], "doctor": part["doctor"][0], "runs": runs,
                         "endpoint": endpoint, "n": len(values),
                         "mean": float(values.mean()) if len(values) else None, "ci_low": low, "ci_high": high})
    schema = {"arm": pl.Utf8, "condition": pl.Utf8, "doctor": pl.Utf8, "runs": pl.Int32, "endpoint": pl.Utf8,
              "n": pl.Int32, "mean": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    order = {e: i for i, e in enumerate(ENDPOINTS)}
    return pl.DataFrame(rows, schema=schema).sort("arm", pl.col("endpoint").replace_strict(order))


def run_overview(runs: pl.DataFrame, episodes: pl.DataFrame) -> pl.DataFrame:
    """One row per run: its settings, arms, episodes and whether it records a staged study."""
    played = episodes.group_by("run_id").agg(pl.col("arm").unique().sort().str.join(", ").alias("arms"),
                                             pl.len().cast(pl.Int32).alias("episodes"))
    staged = pl.Series([STUDY in json.loads(c) for c in runs["config"]], dtype=pl.Boolean)
    return (runs.select("run_id", "protocol", "doctor", "patient_simulator", "judge", "memory_mode",
                        "case_selection").with_columns(staged.alias("staged"))
            .join(played, on="run_id", how="left").sort("run_id"))


def learning_curves(scores: pl.DataFrame, episodes: pl.DataFrame, runs: pl.DataFrame) -> pl.DataFrame:
    """Per arm and stage: episodes and the mean of :data:`STAGE_ENDPOINTS`."""
    stages = episode_stages(runs, episodes)
    frame = (scores.join(stages, on="episode_id", how="inner")
             .join(episodes.select("episode_id", "arm"), on="episode_id", how="inner"))
    return frame.group_by("arm", "stage").agg(pl.len().cast(pl.Int32).alias("episodes"),
                                             *(pl.col(e).mean() for e in STAGE_ENDPOINTS)).sort("arm", "stage")


def case_results(scores: pl.DataFrame, episodes: pl.DataFrame, cases: pl.DataFrame | None) -> pl.DataFrame:
    """One row per scored episode, by case id: its arm, run, what it did and how it scored."""
    frame = scores.join(episodes.select("episode_id", "arm", "turns", "termination", "final_icd10"),
                        on="episode_id", how="inner")
    if cases is not None:
        frame = frame.join(cases.select("case_id", pl.col("primary_icd10_block").alias("true_block")),
                           on="case_id", how="left")
    block = ["true_block"] if cases is not None else []
    return frame.select("case_id", *block, "arm", "run_id", *CASE_COLUMNS).sort("case_id", "arm", "run_id")


def _present(frames: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    return {name: frame for name, frame in frames.items() if frame.height}


def report_summaries(warehouse: Warehouse) -> dict[str, pl.DataFrame]:
    """Every summary the warehouse's tables allow, by name (:data:`SUMMARIES`); see the module docstring."""
    out: dict[str, pl.DataFrame] = {}
    has = warehouse.exists
    if has("stat_tests"):
        out["stat_tests"] = warehouse.read("stat_tests").sort("family", "comparison", "endpoint")
    if has("clinlab_eval"):
        clinlab = warehouse.read("clinlab_eval").sort("predictor", "exam_name")
        out["clinlab_overall"] = clinlab.filter(pl.col("exam_name") == "ALL").drop("exam_name")
        out["clinlab_exams"] = clinlab.filter(pl.col("exam_name") != "ALL")
    if has("stress_test"):
        out["stress"] = stress_rates(warehouse.read("stress_test"))
    if not (has("runs") and has("episodes")):
        return _present(out)
    episodes = with_arms(warehouse.read("episodes"))
    runs = warehouse.read("runs")
    out["runs"] = run_overview(runs, episodes)
    events = (warehouse.scan("episode_events").select("episode_id", "turn", "actor", "action", "unit_ids").collect()
              if has("episode_events") else None)
    if events is not None:
        out["actions"] = action_counts(episodes, events)
    if not has("episode_scores"):
        return _present(out)
    scores = warehouse.read("episode_scores")
    cases = warehouse.read("cases") if has("cases") else None
    out["conditions"] = condition_scores(scores, episodes)
    out["stages"] = learning_curves(scores, episodes, runs)
    if events is not None and has("information_units"):
        out["turns"] = turn_curves(episodes, events, scores, warehouse.read("information_units"))
    sensitivity = weight_sensitivity(scores, episodes, by="arm")
    out["weight_preservation"] = ranking_preservation(sensitivity)
    out["weight_costs"] = (sensitivity.filter(pl.col("analysis") == "cost_weights")
                           .select("setting", "w_score", "w_turns", "w_tests", "w_invalid", "group", "n", "mean_u"))
    if cases is not None:
        out["subgroups"] = subgroup_means(scores, episodes, cases, by="arm", endpoints=SUBGROUP_ENDPOINTS)
    out["cases"] = case_results(scores, episodes, cases)
    return _present(out)
