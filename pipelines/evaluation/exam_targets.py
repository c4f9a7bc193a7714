"""The examinations that matter for a case (``case_exam_targets``), learned on the train split.

Rule
----
1. On the train split (cases with an ICD-10 block), each exam ``e`` gets the flag "abnormal in
   the case" (its first recorded result, as the laboratory physician reports it). Its weight is
   the adjusted mutual information (scikit-learn's ``adjusted_mutual_info_score``, corrected for
   chance) between that flag and the case's ICD-10 block. An exam with at least ``min_support``
   abnormal train cases (``data/rubrics.yaml``) and a weight above 0 is *informative*: its
   abnormality tells diagnoses apart. Nothing of a scored case enters the weights, and a case's
   own diagnosis never decides which of its exams matter.
2. For every case, its recorded exams that are informative matter, ranked: abnormal in this case
   first, then by weight, then by name (``rank`` 1, 2, ...).
3. TOC and ATC take the first ``test_limit`` of them (the preset's examination limit: each can be
   ordered by name within the limit, so a perfect score is reachable); exam precision / recall take
   all of them (DiagGym's comparison with every exam that matters in the record).
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl
from sklearn.metrics import adjusted_mutual_info_score

from pipelines.episodes.store import EXAM_COLUMNS, CaseStore

MIN_WEIGHT = 1e-9  # above floating-point noise: an adjusted mutual information of 0 is chance


def exam_weights(stores: Iterable[CaseStore], min_support: int) -> dict[str, float]:
    """Informative exams -> their weight (adjusted mutual information with the block, train split),
    from each train case's first results (:meth:`CaseStore.first_results`: no view is built) over
    ``stores``: one store, or a cohort in parts (:meth:`CaseStore.parts_of`), of which only the
    train cases' blocks and abnormal exams are kept."""
    trains, abnormals = [], []
    for store in stores:
        train = (store.cases.filter((pl.col("split") == "train") & (pl.col("primary_icd10_block") != ""))  # not null
                 .select("case_id", "primary_icd10_block"))
        trains.append(train)
        abnormals.append(store.first_results(pl.col("abnormal") & (pl.col("origin") == "recorded"))
                         .join(train, on="case_id", how="semi").select("case_id", "exam_name"))
    if not trains:
        return {}
    train = pl.concat(trains)
    abnormal = pl.concat(abnormals).group_by("exam_name").agg("case_id").sort("exam_name")
    blocks, cases = train["primary_icd10_block"].to_list(), train["case_id"]
    weights = {}
    for name, found in abnormal.iter_rows():
        if len(found) >= min_support:
            weight = float(adjusted_mutual_info_score(blocks, cases.is_in(found).to_list()))
            if weight > MIN_WEIGHT:
                weights[name] = weight
    return weights


def ranked_targets(store: CaseStore, weights: dict[str, float]) -> pl.DataFrame:
    """Every case's recorded informative exams, ranked (module docstring, rule 2): ``case_id``,
    ``rank``, ``weight`` and the exam's first result (:data:`EXAM_COLUMNS`, ``abnormal`` False where
    unknown), by case and rank. From the first results (:meth:`CaseStore.first_results`: no view is
    built) of the store's kept cases: the exam table holds other candidates' results too, for ClinLab."""
    weighted = pl.DataFrame({"exam_name": list(weights), "weight": list(weights.values())},
                            schema={"exam_name": pl.Utf8, "weight": pl.Float64})
    first = store.first_results(pl.col("exam_name").is_in(weighted["exam_name"].implode()) & (pl.col("origin") == "recorded"))
    ranked = (first.join(store.cases.select("case_id"), on="case_id", how="semi").join(weighted, on="exam_name")
              .with_columns(pl.col("abnormal").fill_null(False))
              .sort(["case_id", "abnormal", "weight", "exam_name"], descending=[False, True, True, False]))
    rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over("case_id")
    return ranked.select("case_id", rank.alias("rank"), "weight", *EXAM_COLUMNS)
