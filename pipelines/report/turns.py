"""What happened turn by turn, per arm (the report's "over turns" sections), from ``episode_events``.

* ``icr_share``: the importance-weighted share of the case's hidden units (``information_units``
  not disclosed in the opening, weighted as ICR weighs them: ``data/scoring.yaml``) that the
  patient's replies had revealed by turn t, averaged over the arm's episodes. An episode that
  ended before t keeps its final share, so the last point is the arm's mean ICR. A doctor given the
  whole case (``full_information``) has collected everything from turn 0, as its ICR says; a case
  with nothing hidden counts as fully collected, as ICR does.
* ``dca_share``: episodes carry no diagnosis before they finalise, so diagnosis agreement by turn t
  is the share of the arm's episodes that had finalised by turn t with the true ICD-10 block
  (``dca`` = 1).
* :func:`action_counts`: the doctor's actions (ASK, REQUEST_TEST, CALL_MDT, FINALIZE, ERROR) per turn.
"""

from __future__ import annotations

import polars as pl

from pipelines.evaluation.params import scoring_params

DOCTOR_ACTIONS = ("ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE", "ERROR")


def _hidden_weights(units: pl.DataFrame) -> pl.DataFrame:
    """``case_id``, ``unit_id``, ``weight`` of every hidden unit."""
    weights = scoring_params().importance_weights
    return units.filter(~pl.col("disclosed")).select(
        "case_id", "unit_id", pl.col("importance").replace_strict(weights, return_dtype=pl.Float64).alias("weight"))


def _turn_grid(episodes: pl.DataFrame) -> pl.DataFrame:
    """Every (episode, turn) from 0 to the last turn of the episode's arm."""
    last = episodes.group_by("arm").agg(pl.col("turns").max().alias("last"))
    return episodes.join(last, on="arm").with_columns(pl.int_ranges(0, pl.col("last") + 1, dtype=pl.Int32)
                                                      .alias("turn")).explode("turn").drop("last")


def turn_curves(episodes: pl.DataFrame, events: pl.DataFrame, scores: pl.DataFrame,
                units: pl.DataFrame) -> pl.DataFrame:
    """``arm``, ``turn``, ``episodes``, ``icr_share``, ``dca_share`` (module docstring).

    ``episodes``: ``episode_id``, ``arm``, ``case_id``, ``turns``; ``events``: ``episode_events`` rows;
    ``scores``: ``episode_scores`` rows (only scored episodes are counted)."""
    scored = episodes.join(scores.select("episode_id", "dca", "full_information"), on="episode_id", how="inner")
    hidden = _hidden_weights(units)
    totals = hidden.group_by("case_id").agg(pl.col("weight").sum().alias("total"))
    revealed = (events.filter((pl.col("actor") == "patient") & (pl.col("action") == "REPLY"))
                .select("episode_id", "turn", pl.col("unit_ids").alias("unit_id")).explode("unit_id")
                .join(scored.select("episode_id", "case_id"), on="episode_id", how="inner")
                .join(hidden, on=["case_id", "unit_id"], how="inner")
                .group_by("episode_id", "unit_id").agg(pl.col("turn").min(), pl.col("weight").first())
                .group_by("episode_id", "turn").agg(pl.col("weight").sum().alias("gained")))
    finalised = (events.filter((pl.col("actor") == "doctor") & (pl.col("action") == "FINALIZE"))
                 .group_by("episode_id").agg(pl.col("turn").min().alias("final_turn")))
    grid = (_turn_grid(scored).join(revealed, on=["episode_id", "turn"], how="left")
            .join(totals, on="case_id", how="left").join(finalised, on="episode_id", how="left")
            .sort("episode_id", "turn"))
    collected = pl.col("gained").fill_null(0.0).cum_sum().over("episode_id")
    share = (pl.when(pl.col("full_information") | (pl.col("total").fill_null(0.0) == 0)).then(1.0)
             .otherwise(collected / pl.col("total")))
    correct = (pl.col("final_turn") <= pl.col("turn")).fill_null(False) & (pl.col("dca") == 1.0)
    per_episode = grid.with_columns(share.alias("icr_share"), correct.cast(pl.Float64).alias("dca_share"))
    return per_episode.group_by("arm", "turn").agg(
        pl.len().cast(pl.Int32).alias("episodes"), pl.col("icr_share", "dca_share").mean()).sort("arm", "turn")


def action_counts(episodes: pl.DataFrame, events: pl.DataFrame) -> pl.DataFrame:
    """``arm``, ``turn``, ``action``, ``count``: the doctor's actions per turn, every action listed at every turn."""
    doctor = (events.filter((pl.col("actor") == "doctor") & pl.col("action").is_in(DOCTOR_ACTIONS))
              .join(episodes.select("episode_id", "arm"), on="episode_id", how="inner"))
    counts = doctor.group_by("arm", "turn", "action").agg(pl.len().cast(pl.Int32).alias("count"))
    full = (counts.select("arm", "turn").unique()
            .join(pl.DataFrame({"action": list(DOCTOR_ACTIONS)}), how="cross"))
    order = {a: i for i, a in enumerate(DOCTOR_ACTIONS)}
    return (full.join(counts, on=["arm", "turn", "action"], how="left")
            .with_columns(pl.col("count").fill_null(0), pl.col("action").replace_strict(order).alias("_order"))
            .sort("arm", "turn", "_order").drop("_order"))
