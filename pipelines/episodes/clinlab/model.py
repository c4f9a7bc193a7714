"""ClinLab's models: one gradient-boosted regressor per lab, trained leave-one-out on the train split.

Training rows are the train split's admissions, kept as cases or not (CaseStore.lab_rows).
For every training admission that recorded lab X, the target is X's value and the features are the
case's age, sex and its values of the K labs that tell most about X on the train split (rank
correlation times how often they are recorded with X; missing ones stay NaN, which
``HistGradientBoostingRegressor`` handles natively). X itself is
never a feature of its own model, so the target is masked by construction, and nothing from the
case but age and sex is read: never the diagnosis. The loss is the absolute error. A skewed
positive lab is modelled in log space, where that error is the relative one and the fit estimates
the conditional median; any other lab's rows are weighted by 1 / |value| (the conditional weighted
median, which minimises the relative error a laboratory physician reads, MAPE among the metrics;
unweighted, a lab's few tiny values would cost the most). Weighting a log-space lab as well pulled
NT-proBNP's predictions far below its median: ahead on MAPE, behind the population median on
pooled MAE on a generated 5,000-admission build. Predictions walk the fitted trees in numpy
(trees.py: the same values, without sklearn's per-call cost). How many boosting rounds a lab gets
is chosen by k-fold CV on its training rows, by the one-standard-error rule (the fewest rounds as
good as the best within the noise: on the real MIMIC-IV demo's 33 training cases with the ED
module, the best count overfitted glucose); a lab whose other labs do not beat its median there,
in the loss and also, by more than a standard error, in both the absolute and the relative error
in the lab's unit (the weighted fit's optimum lies below the median, which can cost more absolute
error than it saves relative: platelet counts on the real MIMIC-IV demo), is served its training
median. A lab recorded in
fewer than ``min_train_rows`` training cases gets no model and no prediction; one recorded in more
than ``max_train_rows`` is fitted on a seeded sample of that many. Settings:
data/clinlab.yaml.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from scipy.stats import rankdata, skew
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.clinlab.labs import (
    NUMERIC_LAB_ROWS,
    CaseLabs,
    LabStats,
    case_labs,
    in_unit,
    lab_stats,
    numeric_labs,
)
from pipelines.episodes.clinlab.trees import Forest
from pipelines.episodes.roles import ClinicalState
from pipelines.episodes.store import CaseStore
from pipelines.episodes.views import ExamResult
from pipelines.workers import ordered_map

DEMOGRAPHICS = ("age", "sex")
SEX_CODES = {"F": 0.0, "M": 1.0}


@cache
def default_settings() -> dict[str, Any]:
    return yaml_mapping("pipelines.episodes", "data/clinlab.yaml", ("min_train_rows", "max_train_rows", "n_features",
                                                                 "min_co_recorded", "log_skew", "max_decimals",
                                                                 "random_state", "cv_folds", "regressor"))


@dataclass(frozen=True)
class LabModel:
    exam_name: str
    features: tuple[str, ...]  # the co-recorded labs, after age and sex
    log: bool
    regressor: HistGradientBoostingRegressor | None  # None: no boosting round helped in CV, so the median
    forest: Forest | None = None  # the regressor's trees, for fast predictions (trees.py)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return DEMOGRAPHICS + self.features


def design(cases: Sequence[CaseLabs], features: Sequence[str]) -> np.ndarray:
    """The model input: age, sex, then the named labs' values (NaN where not recorded)."""
    rows = [[np.nan if c.age is None else float(c.age), SEX_CODES.get(c.sex or "", np.nan),
             *(c.values.get(f, np.nan) for f in features)] for c in cases]
    return np.array(rows, dtype=float).reshape(len(cases), len(DEMOGRAPHICS) + len(features))


class ClinLab:
    """The results predictor the laboratory physician calls: ``clinlab(exam_name, state)``."""

    def __init__(self, stats: dict[str, LabStats], models: dict[str, LabModel]):
        self.stats = stats
        self.models = models
        # One model call per exam and case state, however many episodes ask: every episode of a case
        # hands over the same (hashed once) exam view.
        self._served: dict[tuple, ExamResult] = {}

    @classmethod
    def fit(cls, store: CaseStore, split: str = "train", workers: int = 1, **overrides: Any) -> ClinLab:
        """Train on the recorded numeric labs of ``split``'s admissions (:meth:`CaseStore.lab_rows`);
        ``overrides`` replace whole data/clinlab.yaml settings. The labs' models are fitted in
        ``workers`` processes (:func:`pipelines.workers.ordered_map`); they are the same whatever the count."""
        unknown = set(overrides) - set(default_settings())
        if unknown:
            raise KeyError(f"unknown ClinLab settings {sorted(unknown)}; known: {sorted(default_settings())}")
        settings = default_settings() | overrides
        if settings["min_train_rows"] < settings["cv_folds"]:
            raise ValueError("min_train_rows must be at least cv_folds: every fold needs a held-out row")
        if settings["max_train_rows"] < settings["min_train_rows"]:
            raise ValueError("max_train_rows must be at least min_train_rows")
        rows = store.lab_rows(split, NUMERIC_LAB_ROWS)  # their numeric labs: numeric_labs' rows
        stats = lab_stats(rows.results, settings["max_decimals"])
        inputs = case_labs(rows.people, in_unit(rows.results, stats))
        names = sorted(stats)
        informative = _informative(names, inputs, settings["min_co_recorded"])
        recording: dict[str, list[CaseLabs]] = {name: [] for name in names}  # each lab's cases, in order
        for case in inputs:
            for name in case.values:
                recording[name].append(case)
        tasks = ((name, _partners(names, informative[j], j, settings["n_features"]),
                  _sample(recording[name], settings["max_train_rows"], settings["random_state"]), settings)
                 for j, name in enumerate(names) if stats[name].n >= settings["min_train_rows"])
        models = {model.exam_name: model for model in ordered_map(_fit_alone, tasks, workers)}
        return cls(stats, models)

    def inputs(self, state: ClinicalState) -> CaseLabs:
        return CaseLabs.of(state.age, state.sex, numeric_labs(state.exams.by_name), self.stats)

    def predict(self, exam_name: str, cases: Sequence[CaseLabs]) -> np.ndarray:
        """``exam_name``'s predicted values for ``cases``, rounded to the lab's recorded precision."""
        model, stats = self.models[exam_name], self.stats[exam_name]
        if model.regressor is None:
            return np.full(len(cases), stats.reported_median)
        predicted = model.forest.predict(design(cases, model.features))
        return np.round(np.exp(predicted) if model.log else predicted, stats.decimals)

    def __call__(self, exam_name: str, state: ClinicalState) -> ExamResult | None:
        if exam_name not in self.models:
            return None
        key = (exam_name, state.age, state.sex, state.exams)
        if key not in self._served:
            self._served[key] = self.stats[exam_name].result(self.predict(exam_name, [self.inputs(state)])[0])
        return self._served[key]

    def __repr__(self) -> str:
        return f"ClinLab({len(self.models)} lab models)"


def _sample(rows: list[CaseLabs], cap: int, random_state: int) -> list[CaseLabs]:
    """At most ``cap`` of ``rows``, a seeded sample in their order.
    A lab's fit costs in proportion to its rows; past a few thousand a depth-2 model learns nothing
    more (data/clinlab.yaml), so the fit's cost stops growing with the cohort."""
    if len(rows) <= cap:
        return rows
    chosen = np.random.default_rng(random_state).choice(len(rows), cap, replace=False)
    return [rows[i] for i in np.sort(chosen)]


def _partners(names: list[str], informative: np.ndarray, own: int, k: int) -> tuple[str, ...]:
    """The K labs that tell most about lab ``own`` (:func:`_informative`; ties by name), never itself."""
    order = sorted((j for j in range(len(names)) if j != own and informative[j] > 0),
                   key=lambda j: (-informative[j], names[j]))
    return tuple(names[j] for j in order[:k])


def _informative(names: list[str], inputs: Sequence[CaseLabs], min_co_recorded: int) -> np.ndarray:
    """How much lab b tells about lab a, for every pair (row a, column b): the absolute rank
    correlation of the two over the training cases recording both, times the share of a's cases
    that record b (a partner few of a's cases have helps few predictions); 0 where fewer than
    ``min_co_recorded`` cases record both. Counting co-recordings alone ranked the labs of a panel
    by name, since a panel records them all together: on the real MIMIC-IV demo the absolute
    neutrophil count was modelled from basophils and bicarbonate, not from the white count."""
    values = np.array([[i.values.get(n, np.nan) for n in names] for i in inputs], dtype=float)
    values = values.reshape(len(inputs), len(names))
    present = ~np.isnan(values)
    ranks = np.where(present, rankdata(values, axis=0, nan_policy="omit"), 0.0)
    m = present.astype(float)
    n = m.T @ m  # cases recording both labs
    s = ranks.T @ m  # [a, b]: the sum of a's ranks over the cases recording b as well
    ss = (ranks * ranks).T @ m
    cross = ranks.T @ ranks
    with np.errstate(divide="ignore", invalid="ignore"):
        covariance = cross - s * s.T / n
        spread = (ss - s * s / n) * (ss.T - s.T * s.T / n)
        correlation = np.nan_to_num(np.abs(covariance) / np.sqrt(spread))
        coverage = n / np.diag(n)[:, None]
    return np.where(n >= min_co_recorded, np.minimum(correlation, 1.0) * coverage, 0.0)


def _fit_alone(name: str, features: tuple[str, ...], cases: list[CaseLabs], settings: Mapping[str, Any]) -> LabModel:
    """:func:`_fit_one` on one thread: many small fits, where OpenMP threads cost more than they give
    (and in a worker process, the other workers have the other cores)."""
    with threadpool_limits(1):
        return _fit_one(name, features, cases, settings)


def _fit_one(name: str, features: tuple[str, ...], cases: list[CaseLabs], settings: Mapping[str, Any]) -> LabModel:
    x, y = design(cases, features), np.array([c.values[name] for c in cases])
    # A lab whose values are all one (urine protein 30 on a generated build) has no skew to speak of.
    log = bool(y.min() > 0 and len(y) > 2 and np.ptp(y) > 0 and skew(y) > settings["log_skew"])
    target = np.log(y) if log else y
    # In log space the absolute error already is the relative one (the log of the ratio); weighting
    # by 1 / |value| again would pull a heavy-tailed lab's predictions far below its median. Its rows
    # are given no weights rather than weights of 1: sklearn's weighted path computes its bin edges and
    # every leaf's median with a weighted percentile in Python, per leaf and round (on a generated
    # 5,000-admission build a third of ClinLab's time went to the log-space labs' weights of 1).
    weight = None if log else _relative_weights(y)
    rounds = _rounds(x, y, log, weight, settings)
    if rounds == 0:
        return LabModel(name, features, log, None)
    regressor = _regressor(settings, max_iter=rounds).fit(x, target, sample_weight=weight)
    return LabModel(name, features, log, regressor, Forest(regressor))


def _regressor(settings: Mapping[str, Any], **overrides: Any) -> HistGradientBoostingRegressor:
    return HistGradientBoostingRegressor(random_state=settings["random_state"], **(settings["regressor"] | overrides))


def _rounds(x: np.ndarray, y: np.ndarray, log: bool, w: np.ndarray | None, settings: Mapping[str, Any]) -> int:
    """Boosting rounds for one lab by k-fold CV on its training rows (``y`` in the lab's unit, fitted
    in log space when ``log``): :func:`_fewest_good_rounds` of the held-out weighted absolute errors,
    if that many rounds, in the lab's unit, beat the fold's median (what the population-median
    baseline serves) in absolute and in relative error (:func:`_beats`); else 0, so a lab
    whose other labs tell nothing gets its median. ``w`` None: unweighted, round 0 numpy's median
    (as sklearn's unweighted fit starts from)."""
    target = np.log(y) if log else y
    predictions = np.zeros((settings["regressor"]["max_iter"] + 1, len(y)))
    median = np.zeros(len(y))
    for fit, held in KFold(settings["cv_folds"], shuffle=True, random_state=settings["random_state"]).split(x):
        median[held] = np.median(y[fit])
        fold_w = None if w is None else w[fit]
        predictions[0, held] = np.median(target[fit]) if w is None else _weighted_median(target[fit], fold_w)
        staged = _regressor(settings).fit(x[fit], target[fit], sample_weight=fold_w).staged_predict(x[held])
        for i, predicted in enumerate(staged, 1):
            predictions[i, held] = predicted
    chosen = _fewest_good_rounds((1.0 if w is None else w) * np.abs(target - predictions))
    if chosen == 0:
        return 0
    served = np.exp(predictions[chosen]) if log else predictions[chosen]
    return chosen if _beats(served, median, y) else 0


def _fewest_good_rounds(errors: np.ndarray) -> int:
    """From held-out errors (a row per round, round 0 the fold's weighted median; a column per
    training row): 0 unless the round of least mean error beats round 0 by more than one standard
    error of the paired gain; else the fewest rounds within one paired standard error of that least
    error (the one-standard-error rule: a count picked as the minimum of many noisy CV errors
    overfits the folds, the more so on few rows)."""
    mean = errors.mean(axis=1)
    best = int(np.argmin(mean))
    se = (errors - errors[best]).std(axis=1, ddof=1) / np.sqrt(errors.shape[1])
    if not mean[0] - mean[best] > se[0]:
        return 0
    return int(np.argmax(mean - mean[best] <= se))  # round 0 is not within: it was just tested


def _beats(predicted: np.ndarray, baseline: np.ndarray, y: np.ndarray) -> bool:
    """Whether ``predicted`` errs less than ``baseline`` by more than one standard error of the
    paired gain, both in absolute error and in relative error (over the non-zero ``y``, as
    clinlab_eval counts MAPE). Merely no worse was not enough: trained on every candidate admission
    of a generated 60-admission demo, platelet counts fitted from 40 rows came out no worse in CV
    and cost the test split 165 K/uL of absolute error against the median."""
    error, base = np.abs(predicted - y), np.abs(baseline - y)
    size = np.abs(y)
    nonzero = size > 0
    return _gain_beyond_noise(base - error) and _gain_beyond_noise((base - error)[nonzero] / size[nonzero])


def _gain_beyond_noise(gain: np.ndarray) -> bool:
    return len(gain) > 1 and gain.mean() > gain.std(ddof=1) / np.sqrt(len(gain))


def _relative_weights(y: np.ndarray) -> np.ndarray:
    """1 / |y|, mean 1: absolute errors so weighted are relative ones. A zero (0 % bands) has no
    relative error; it weighs as the smallest non-zero value of the lab does."""
    size = np.abs(y)
    floor = size[size > 0].min() if (size > 0).any() else 1.0
    weight = 1.0 / np.maximum(size, floor)
    return weight / weight.mean()


def _weighted_median(y: np.ndarray, w: np.ndarray) -> float:
    order = np.argsort(y, kind="stable")
    cumulative = np.cumsum(w[order])
    return float(y[order][np.searchsorted(cumulative, cumulative[-1] / 2)])
