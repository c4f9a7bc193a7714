"""judge_agreement: how far two gradings of the same stored traces agree
(pipelines/evaluation/rejudge.py with pipelines/evaluation/agreement.py; MedEvoEval Appendix E.3,
Table 30). One row per run and pair of gradings; partition = run id.

* ``kind``: ``alternative`` (the run's own ``episode_scores`` against another judge's grading) or
  ``repeat`` (the same judge twice over the same traces: for a sampling LLM judge, its
  self-consistency).
* ``first`` / ``second``: the gradings compared, by their ``judged_scores.judging`` label
  (``episode_scores`` names the run's own scores).
* ``n``: the episodes both graded; ``strict_agreement``: the share of them with the same ``strict``;
  ``strict_kappa``: Cohen's kappa on ``strict``; ``s_pearson`` / ``s_spearman``: the correlations of
  ``score_s``; each null where undefined (no episode, or a constant column).
* ``fallbacks_first`` / ``fallbacks_second``: episodes whose LLM judge answer was unusable, graded
  by the offline judge instead (``judge_error`` set).
"""

import pandera.polars as pa
import polars as pl

KINDS = ["alternative", "repeat"]
RATE = pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True)
CORRELATION = pa.Column(pl.Float64, pa.Check.in_range(-1.0, 1.0), nullable=True)
COUNT = pa.Column(pl.Int32, pa.Check.ge(0))

SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(KINDS)),
        "first": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "second": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "n": COUNT,
        "strict_agreement": RATE,
        "strict_kappa": CORRELATION,
        "s_pearson": CORRELATION,
        "s_spearman": CORRELATION,
        "mean_s_first": RATE,
        "mean_s_second": RATE,
        "fallbacks_first": COUNT,
        "fallbacks_second": COUNT,
    },
    name="judge_agreement",
    strict=True,
    coerce=True,
    unique=["run_id", "first", "second"],
)
