"""Cross-validated block accuracy of the offline doctors, for builds whose test split is too small
to rank them: on the real MIMIC-IV demo with the ED module the test split holds 8 cases, where one
case is 0.125 of accuracy, while the kept cases number 30.

Each fold of patients (:meth:`CaseStore.folds`) is played once as the test split, the doctors'
and consultant's training knowledge learnt from the other folds, through the same engine and judge
as any run (:func:`pipelines.episodes.controller.run_episode`, :meth:`Judge.code_reward`). ClinLab
is the build's, fitted once on its train split (fitting it per fold would cost the whole CV: 22 s
a fold on the real demo): it never reads a diagnosis, and it predicts only results a case did not
record, from models whose training rows all recorded them, so the case's own admission is never
one of them. Nothing is written to the warehouse, since a fold's splits are not the build's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from pipelines.episodes.controller import episode_frames, run_episode
from pipelines.episodes.judge import Judge
from pipelines.episodes.settings import DEFAULT_PRESET, EpisodeSettings
from pipelines.episodes.store import CaseStore

FOLDS = 4
SEEDS = (1, 2, 3)
SCHEMA = {"doctor": pl.Utf8, "fold": pl.Int32, "seed": pl.Int64, "case_id": pl.Utf8, "reward": pl.Float64}


def cross_validate(store: CaseStore, doctors: Sequence[str], folds: int = FOLDS, seeds: Sequence[int] = SEEDS,
                   preset: str = DEFAULT_PRESET, progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """One row per doctor, fold, seed and case of that fold: the block-level reward of its diagnosis."""
    stores = store.folds(folds)
    predictor = EpisodeSettings(store, preset).predictor  # the build's ClinLab where the preset predicts
    rows, done, total = [], 0, len(stores) * len(doctors) * len(seeds)
    for fold, fold_store in enumerate(stores):
        for doctor in doctors:
            for seed in seeds:
                settings = EpisodeSettings(fold_store, preset, seed, predictor=predictor)
                episodes, _ = episode_frames([run_episode(settings, doctor, case_id, f"fold-{fold}")
                                              for case_id in fold_store.case_ids("test")])
                rows += [(doctor, fold, seed, case_id, Judge(fold_store.case(case_id).manager).code_reward(icd10))
                         for case_id, icd10 in episodes.select("case_id", "final_icd10").iter_rows()]
                done += 1
                if progress is not None:
                    progress(done, total)
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def accuracy(rewards: pl.DataFrame) -> pl.DataFrame:
    """Per doctor: cases, episodes, block accuracy (each case's mean over seeds, then over cases) and
    the accuracy of each fold, best doctor first."""
    per_case = rewards.group_by("doctor", "fold", "case_id").agg(pl.col("reward").mean(), pl.len().alias("episodes"))
    per_fold = (per_case.group_by("doctor", "fold").agg(pl.col("reward").mean()).sort("fold")
                .group_by("doctor").agg(pl.col("reward").round(4).alias("fold_accuracy")))
    return (per_case.group_by("doctor")
            .agg(pl.len().alias("cases"), pl.col("episodes").sum(), pl.col("reward").mean().round(4).alias("accuracy"))
            .join(per_fold, on="doctor").sort(["accuracy", "doctor"], descending=[True, False]))
