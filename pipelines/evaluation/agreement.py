"""``alt_judge``: how far two judges agree over the same traces (MedEvoEval Appendix E.3).

Given the ``episode_scores`` two judges gave the same episodes, it reports the raw agreement rate
on ``strict`` (the share of episodes both judged alike), Cohen's kappa on ``strict``
(scikit-learn's ``cohen_kappa_score``) and the Pearson and Spearman correlations of ``score_s``
(scipy), with each judge's mean S and how many of each judge's answers fell back to the offline
grades. A statistic that is undefined (no episode, a constant column) is None.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score


def _defined(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 4)


def alt_judge(first: pl.DataFrame, second: pl.DataFrame) -> dict[str, object]:
    """Agreement of two judges' ``episode_scores`` over the episodes both scored."""
    both = first.select("episode_id", "strict", "score_s", "judge_error").join(
        second.select("episode_id", "strict", "score_s", "judge_error"), on="episode_id", suffix="_b")
    a_strict, b_strict = both["strict"].to_list(), both["strict_b"].to_list()
    a_s, b_s = both["score_s"].to_numpy(), both["score_s_b"].to_numpy()
    alike = sum(a == b for a, b in zip(a_strict, b_strict))
    out: dict[str, object] = {"n": both.height, "mean_s_first": _defined(a_s.mean()) if both.height else None,
                              "mean_s_second": _defined(b_s.mean()) if both.height else None,
                              "strict_agreement": _defined(alike / both.height) if both.height else None,
                              "fallbacks_first": int(both["judge_error"].is_not_null().sum()),
                              "fallbacks_second": int(both["judge_error_b"].is_not_null().sum())}
    with warnings.catch_warnings():  # a constant column: the statistic is undefined (None), not an error
        warnings.simplefilter("ignore")
        kappa = cohen_kappa_score(a_strict, b_strict) if both.height else math.nan
        pearson = pearsonr(a_s, b_s) if both.height > 1 else None
        spearman = spearmanr(a_s, b_s) if both.height > 1 else None
    out["strict_kappa"] = _defined(kappa)
    out["s_pearson"] = _defined(pearson.statistic) if pearson else None
    out["s_spearman"] = _defined(spearman.statistic) if spearman else None
    return out
