"""stat_tests: the paired statistics of an evaluation (data-contract.md, "stat_tests"; MedEvoEval
Appendix C.6 and E.4), one row per family, comparison and endpoint, computed by
pipelines/evaluation/stats.py from ``episode_scores`` joined to ``episodes``.

* ``comparison`` names the condition labels: ``H3 vs H0`` (paired; ``effect`` is the first minus
  the second: the mean paired difference, for a binary endpoint the difference in proportions),
  ``E0 vs E1 vs E2`` (an omnibus test over three or more levels: no single effect or interval) or
  ``G1 over stages`` (a stage trend: ``effect`` is Kendall's tau, no interval).
* ``endpoint`` is the ``episode_scores`` column (``utility_u``, ``score_s``, ``strict``, ...).
* ``n``: the paired cases (complete cases of an omnibus test, stages of a trend) the row used;
  ``n_excluded``: the cases left out because a compared condition lacks them or their value (for a
  trend, the condition's episodes without a stage or a value).
* ``test``: ``wilcoxon`` (two-sided signed-rank, scipy's defaults) or ``mcnemar_exact`` for a
  paired continuous or binary endpoint, ``friedman`` or ``cochran_q`` for an omnibus one,
  ``mann_kendall`` for a trend; ``statistic`` is the test's own (Wilcoxon's W, McNemar's smaller
  discordant count, Friedman's chi-square, Cochran's Q, Mann-Kendall's S).
* ``ci_low`` / ``ci_high``: the seeded paired percentile-bootstrap interval of ``effect``.
* ``p_raw`` and ``p_holm`` (Holm within the family, over the rows with a p-value). A null p-value
  comes with ``note``, the reason the test was not computed (too few cases, no difference at all).
"""

import pandera.polars as pa
import polars as pl

TESTS = ["wilcoxon", "mcnemar_exact", "friedman", "cochran_q", "mann_kendall"]
P_VALUE = pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True)

SCHEMA = pa.DataFrameSchema(
    {
        "family": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "comparison": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "endpoint": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "n": pa.Column(pl.Int32, pa.Check.ge(0)),
        "n_excluded": pa.Column(pl.Int32, pa.Check.ge(0)),
        "test": pa.Column(pl.Utf8, pa.Check.isin(TESTS)),
        "statistic": pa.Column(pl.Float64, nullable=True),
        "effect": pa.Column(pl.Float64, nullable=True),
        "ci_low": pa.Column(pl.Float64, nullable=True),
        "ci_high": pa.Column(pl.Float64, nullable=True),
        "p_raw": P_VALUE,
        "p_holm": P_VALUE,
        "note": pa.Column(pl.Utf8, nullable=True),
    },
    checks=[
        pa.Check(lambda data: data.lazyframe.select(pl.col("ci_low") <= pl.col("ci_high")),
                 name="ci_low_not_above_ci_high", ignore_na=True),
        pa.Check(lambda data: data.lazyframe.select(pl.col("p_holm") >= pl.col("p_raw")),
                 name="holm_not_below_raw", ignore_na=True),
        pa.Check(lambda data: data.lazyframe.select(pl.col("p_raw").is_not_null() | pl.col("note").is_not_null()),
                 name="a_missing_p_value_has_a_note"),
    ],
    name="stat_tests",
    strict=True,
    coerce=True,
    unique=["family", "comparison", "endpoint"],
)
