"""``clinlab_eval``: ClinLab against a population-median baseline on held-out test-split labs.

Items: every test-split admission's (:meth:`CaseStore.lab_rows`: kept as a case or not)
recorded numeric value of every lab ClinLab has a model for, in
the lab's training unit, each masked in turn (leave-one-out: the value is predicted from the
case's age, sex and other labs; ClinLab's model of a lab never takes that lab as a feature). Both
predictors answer the same items: ``clinlab`` and ``population_median`` (the lab's train-split
median in the same unit, at its recorded precision as ClinLab reports a value, so that a lab
ClinLab serves its median scores alike for both, not by a rounding's luck). One row per
predictor and lab, and one ``ALL`` row pooling every item.
With y the recorded value, ŷ the prediction, [lo, hi] the recorded item's reference range:

* ``n``: items;
* ``mape``: mean of |ŷ − y| / |y| over items with y ≠ 0 (zero targets excluded, as in ClinVerse),
  a fraction (0.1 = 10 %); ``median_mape``: the median of the same ratios;
* ``mae``: mean |ŷ − y|, in the lab's unit (``ALL`` pools the units as they are);
* ``norm_ref_err``: mean |ŷ − y| / (hi − lo) over items with both bounds and hi > lo;
* ``anomaly_recall``: of the items recorded abnormal that have a range, the share whose prediction
  is also outside it (ŷ < lo or ŷ > hi);
* ``wasserstein``: ``scipy.stats.wasserstein_distance`` between predicted and recorded values, both
  standardised by the lab's recorded mean and standard deviation (over its items; a lab whose
  recorded values do not vary is left out); ``ALL`` is the mean of the labs' distances weighted by
  their items. Not the distance of the pooled values: pooled, labs' offsets cancel and a constant
  per lab spreads across labs, so a predictor that matches no lab's distribution can match the
  mixture (on the real MIMIC-IV demo with the ED module, the population median did, closer than
  ClinLab pooled and farther on every lab).

A metric with no item to average over is null.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl
from scipy.stats import wasserstein_distance

import schemas
from pipelines.episodes.clinlab.labs import NUMERIC_LAB_ROWS, case_labs, in_unit
from pipelines.episodes.clinlab.model import ClinLab
from pipelines.episodes.store import CaseStore

ALL = "ALL"
ITEM_SCHEMA = {"exam_name": pl.Utf8, "recorded": pl.Float64, "ref_low": pl.Float64, "ref_high": pl.Float64,
               "abnormal": pl.Boolean, "predictor": pl.Utf8, "predicted": pl.Float64}


def clinlab_eval(source: CaseStore | Mapping[str, pl.DataFrame], clinlab: ClinLab | None = None,
                 split: str = "test", workers: int = 1) -> pl.DataFrame:
    """The ``clinlab_eval`` table; ``clinlab`` defaults to one trained on the store's train split
    (in ``workers`` processes)."""
    store = source if isinstance(source, CaseStore) else CaseStore(source)
    clinlab = clinlab or ClinLab.fit(store, workers=workers)
    items = held_out_items(store, clinlab, split)
    rows = [{"predictor": p, "exam_name": name, **_metrics(group)}
            for (p, name), group in items.group_by("predictor", "exam_name", maintain_order=True)]
    rows += [{"predictor": p, "exam_name": ALL, **_metrics(group)}
             for (p,), group in items.group_by("predictor", maintain_order=True)]
    frame = pl.DataFrame(rows, schema=schemas.empty("clinlab_eval").schema)
    return schemas.conform("clinlab_eval", frame.sort("predictor", "exam_name"))


def held_out_items(store: CaseStore, clinlab: ClinLab, split: str = "test") -> pl.DataFrame:
    """One row per predictor and held-out value: recorded, predicted, range, flag, standardised pair."""
    rows = store.lab_rows(split, NUMERIC_LAB_ROWS)  # their numeric labs: numeric_labs' rows
    recorded_in_unit = in_unit(rows.results, clinlab.stats)
    inputs = dict(zip(rows.people["case_id"], case_labs(rows.people, recorded_in_unit)))
    parts = []
    for name in sorted(clinlab.models):
        held = recorded_in_unit.filter(pl.col("exam_name") == name)
        if held.is_empty():
            continue
        recorded = held.select("exam_name", recorded="value_num", ref_low="ref_low", ref_high="ref_high",
                               abnormal="abnormal")
        for predictor, predicted in (("clinlab", clinlab.predict(name, [inputs[c] for c in held["case_id"]])),
                                     ("population_median", np.full(held.height, clinlab.stats[name].reported_median))):
            parts.append(recorded.with_columns(predictor=pl.lit(predictor), predicted=pl.Series(predicted))
                         .cast(ITEM_SCHEMA).select(list(ITEM_SCHEMA)))
    items = pl.concat(parts) if parts else pl.DataFrame(schema=ITEM_SCHEMA)
    by_lab = ("predictor", "exam_name")
    mean, sd = pl.col("recorded").mean().over(by_lab), pl.col("recorded").std(ddof=0).over(by_lab)
    return items.with_columns(z_recorded=pl.when(sd > 0).then((pl.col("recorded") - mean) / sd),
                              z_predicted=pl.when(sd > 0).then((pl.col("predicted") - mean) / sd))


def _metrics(items: pl.DataFrame) -> dict[str, float | int | None]:
    y, p = items["recorded"].to_numpy(), items["predicted"].to_numpy()
    low = items["ref_low"].to_numpy().astype(float)  # nulls become NaN
    high = items["ref_high"].to_numpy().astype(float)
    error = np.abs(p - y)
    ape = error[y != 0] / np.abs(y[y != 0])
    width = high - low
    ranged = width > 0
    outside = (p < low) | (p > high)  # a NaN bound compares False: no bound, not outside it
    flagged = items["abnormal"].fill_null(False).to_numpy() & ~(np.isnan(low) & np.isnan(high))
    return {
        "n": items.height,
        "mape": _mean(ape), "median_mape": float(np.median(ape)) if ape.size else None, "mae": _mean(error),
        "norm_ref_err": _mean(error[ranged] / width[ranged]), "anomaly_recall": _mean(outside[flagged]),
        "wasserstein": _wasserstein(items),
    }


def _wasserstein(items: pl.DataFrame) -> float | None:
    """The item-weighted mean over labs of each lab's distance between its standardised values."""
    per_lab = [(lab.height, wasserstein_distance(lab["z_predicted"], lab["z_recorded"]))
               for _, lab in items.drop_nulls("z_recorded").group_by("exam_name", maintain_order=True)]
    return float(sum(n * d for n, d in per_lab) / sum(n for n, _ in per_lab)) if per_lab else None


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if values.size else None
