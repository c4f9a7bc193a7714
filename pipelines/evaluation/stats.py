"""``stat_tests``: the paired statistics of an evaluation (MedEvoEval section 4, "Statistical
comparisons", Appendix C.6 and E.4; issue 12 section 4), from ``episode_scores`` joined to ``episodes``.

Conditions are named by their label (``episodes.condition``, or another column such as ``doctor``)
and paired by ``case_id``: one episode per case and condition (a second one is an error). A case
missing from a compared condition, or whose endpoint is null there, is excluded and counted
(``n_excluded``). An endpoint is binary when its column is Boolean (``strict``, ``pass``), else
continuous (``score_s``, ``utility_u``, ``turns_t``, ``tests_e``, ``icr``, ...).

* ``A vs B`` (paired): ``scipy.stats.wilcoxon(a, b)`` for a continuous endpoint (two-sided,
  scipy's defaults: zero differences dropped, no continuity correction, exact or normal method
  chosen by scipy), statsmodels' exact McNemar test on the paired 2x2 table for a binary one.
  ``effect`` = the mean paired difference a - b, the first condition minus the second (for a
  binary endpoint: the difference in proportions); its interval is the percentile bootstrap of
  that mean (``scipy.stats.bootstrap``), resampling cases with their pair kept, from a numpy
  Generator seeded afresh for every row, so a row does not depend on the rows before it.
* ``A vs B vs C`` (omnibus, three or more levels, complete cases): Friedman's test
  (``scipy.stats.friedmanchisquare``) or Cochran's Q (statsmodels); no single effect or interval.
* ``A over stages`` (trend): the Mann-Kendall test (``pymannkendall.original_test``: the classic
  test, with the tie correction of its variance) over the condition's mean per stage, in stage
  order (rounded to :data:`TIE_DECIMALS` decimals); ``effect`` is Kendall's tau; no interval (ten
  stage points are descriptive). It needs a ``stage`` column on ``episodes`` (the protocol runner
  adds it; the contract's table has none). Paired and omnibus tests take the logged values as they
  are, as scipy recomputed from the exported tables would.

Degenerate inputs give a row with a null p-value and a ``note`` rather than an error: fewer than
:data:`MIN_CASES` cases (the bootstrap needs two; :data:`MIN_STAGES` stages for a trend), or nothing
that varies (every paired difference zero, every case tied across all levels, every stage mean
equal), where the libraries return NaN or a vacuous p = 1. Holm's correction
(``multipletests(method="holm")``) runs over the family's rows that have a p-value; the others keep
a null ``p_holm`` (as R's ``p.adjust`` counts only the p-values present).

Families are declared as :class:`Family` objects or as mappings (YAML, a preset)::

    family: heldout                        # the Holm family's name
    endpoints: [score_s, utility_u, strict]  # episode_scores columns
    paired: [[H3, H0]]                     # contrasts: first minus second
    omnibus: [[E0, E1, E2]]                # three or more levels each
    trend: [G1]                            # conditions whose stage trend is tested

with at least one of ``paired``, ``omnibus`` and ``trend``. Every endpoint is tested for every
contrast, and Holm's correction covers all of a family's rows. ``data/statistics.yaml`` declares
the families of the protocols (:func:`declared_families`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pymannkendall
from scipy.stats import bootstrap, friedmanchisquare, wilcoxon
from statsmodels.stats.contingency_tables import cochrans_q, mcnemar
from statsmodels.stats.multitest import multipletests

import schemas
from pipelines.evaluation.params import statistics_params

MIN_CASES = 2
MIN_STAGES = 3
TIE_DECIMALS = 12  # means that agree to 12 decimals are equal: float noise is neither a trend nor a rank change
STAGE = "stage"
FIELDS = ("family", "endpoints", "paired", "omnibus", "trend")


@dataclass(frozen=True)
class Family:
    """One Holm family: every endpoint under every contrast (module docstring)."""

    name: str
    endpoints: tuple[str, ...]
    paired: tuple[tuple[str, ...], ...] = ()  # (first, second) each
    omnibus: tuple[tuple[str, ...], ...] = ()
    trend: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problems = [f"paired contrast {list(p)} does not name two different conditions"
                    for p in self.paired if len(p) != 2 or p[0] == p[1]]
        problems += [f"omnibus contrast {list(o)} does not name three or more different conditions"
                     for o in self.omnibus if len(o) < 3 or len(set(o)) != len(o)]
        if not (self.paired or self.omnibus or self.trend):
            problems.append("it declares no paired, omnibus or trend contrast")
        if not self.endpoints:
            problems.append("it declares no endpoint")
        if not self.name:
            problems.append("it has no name")
        if problems:
            raise ValueError(f"family {self.name!r}: " + "; ".join(problems))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Family:
        unknown = sorted(set(data) - set(FIELDS))
        if unknown or "family" not in data or "endpoints" not in data:
            raise ValueError(f"a family declaration has the keys {', '.join(FIELDS)} (family and endpoints required); "
                             f"got {sorted(data)}")
        return cls(str(data["family"]), tuple(str(e) for e in data["endpoints"]),
                   tuple(tuple(str(c) for c in p) for p in data.get("paired", ())),
                   tuple(tuple(str(c) for c in o) for o in data.get("omnibus", ())),
                   tuple(str(c) for c in data.get("trend", ())))


def declared_families(protocol: str) -> tuple[Family, ...]:
    """The Holm families ``data/statistics.yaml`` declares for ``protocol`` (``heldout``, ``stream``, ...)."""
    declared = statistics_params().families
    if protocol not in declared:
        raise KeyError(f"no families declared for protocol {protocol!r}; declared: {', '.join(sorted(declared))}")
    return tuple(Family.from_mapping(d) for d in declared[protocol])


def scored_episodes(scores: pl.DataFrame, episodes: pl.DataFrame, label: str = "condition") -> pl.DataFrame:
    """``episode_scores`` rows with their episode's ``label`` (and ``stage`` where episodes has one)."""
    keep = [label, *([STAGE] if STAGE in episodes.columns else [])]
    return scores.join(episodes.select("episode_id", *keep), on="episode_id", how="inner")


def _row(comparison: str, endpoint: str, test: str, n: int, excluded: int, **values: Any) -> dict[str, Any]:
    return {"comparison": comparison, "endpoint": endpoint, "n": n, "n_excluded": excluded, "test": test,
            "statistic": None, "effect": None, "ci_low": None, "ci_high": None, "p_raw": None, "p_holm": None,
            "note": None} | values


def _binary(frame: pl.DataFrame, endpoint: str) -> bool:
    dtype = frame.schema[endpoint]
    if not (dtype == pl.Boolean or dtype.is_numeric()):
        raise ValueError(f"endpoint {endpoint!r} is a {dtype} column, neither numeric nor Boolean")
    return dtype == pl.Boolean


def case_matrix(frame: pl.DataFrame, label: str, levels: Sequence[str], endpoint: str) -> tuple[np.ndarray, int]:
    """``endpoint`` per case (rows, in case id order) and level (columns, as ``levels``) over the cases
    every level has a value for, and how many cases of any level were left out."""
    rows = frame.filter(pl.col(label).is_in(list(levels))).select("case_id", label, pl.col(endpoint).cast(pl.Float64))
    repeated = rows.group_by(label, "case_id").len().filter(pl.col("len") > 1)
    if repeated.height:
        first = repeated.sort(label, "case_id").row(0, named=True)
        raise ValueError(f"{label} {first[label]!r} has {first['len']} episodes of case {first['case_id']} "
                         f"({repeated.height} such cases): pairing needs one episode per case and {label}")
    wide = rows.pivot(on=label, index="case_id", values=endpoint)
    wide = wide.with_columns(pl.lit(None, pl.Float64).alias(level) for level in levels if level not in wide.columns)
    complete = wide.drop_nulls(list(levels)).sort("case_id")
    return complete.select(levels).to_numpy(), wide.height - complete.height


def paired_interval(differences: np.ndarray, resamples: int, seed: int, confidence: float) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean paired difference, resampling cases."""
    result = bootstrap((differences,), np.mean, n_resamples=resamples, confidence_level=confidence,
                       method="percentile", rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def paired_table(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The 2x2 table of paired binary outcomes: rows the first condition (1, 0), columns the second."""
    a, b = first.astype(bool), second.astype(bool)
    return np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])


def paired_test(frame: pl.DataFrame, label: str, first: str, second: str, endpoint: str, *, resamples: int,
                seed: int, confidence: float) -> dict[str, Any]:
    """One ``first vs second`` row: Wilcoxon or exact McNemar, mean difference and its interval."""
    binary = _binary(frame, endpoint)
    values, excluded = case_matrix(frame, label, (first, second), endpoint)
    a, b = values[:, 0], values[:, 1]
    differences = a - b
    row = _row(f"{first} vs {second}", endpoint, "mcnemar_exact" if binary else "wilcoxon", len(differences), excluded,
               effect=float(differences.mean()) if len(differences) else None)
    if len(differences) < MIN_CASES:
        return row | {"note": f"fewer than {MIN_CASES} paired cases"}
    row |= dict(zip(("ci_low", "ci_high"), paired_interval(differences, resamples, seed, confidence)))
    if not np.any(differences):
        return row | {"note": "every paired difference is zero"}
    result = mcnemar(paired_table(a, b), exact=True) if binary else wilcoxon(a, b)
    return row | {"statistic": float(result.statistic), "p_raw": float(result.pvalue)}


def omnibus_test(frame: pl.DataFrame, label: str, levels: Sequence[str], endpoint: str) -> dict[str, Any]:
    """One ``A vs B vs C`` row: Friedman or Cochran's Q over the complete cases."""
    binary = _binary(frame, endpoint)
    values, excluded = case_matrix(frame, label, levels, endpoint)
    row = _row(" vs ".join(levels), endpoint, "cochran_q" if binary else "friedman", len(values), excluded)
    if len(values) < MIN_CASES:
        return row | {"note": f"fewer than {MIN_CASES} complete cases"}
    if np.all(values == values[:, :1]):
        return row | {"note": "every case has the same value at every level"}
    result = cochrans_q(values.astype(int)) if binary else friedmanchisquare(*values.T)
    return row | {"statistic": float(result.statistic), "p_raw": float(result.pvalue)}


def trend_test(frame: pl.DataFrame, label: str, level: str, endpoint: str) -> dict[str, Any]:
    """One ``A over stages`` row: Mann-Kendall over the stage means, Kendall's tau as the effect."""
    _binary(frame, endpoint)  # a binary endpoint's stage means are proportions
    if STAGE not in frame.columns:
        raise ValueError(f"a stage trend needs a {STAGE!r} column on episodes")
    rows = frame.filter(pl.col(label) == level)
    staged = rows.filter(pl.col(STAGE).is_not_null() & pl.col(endpoint).is_not_null())
    means = staged.group_by(STAGE).agg(pl.col(endpoint).cast(pl.Float64).mean().round(TIE_DECIMALS)).sort(STAGE)
    means = means[endpoint].to_numpy()
    row = _row(f"{level} over stages", endpoint, "mann_kendall", len(means), rows.height - staged.height)
    if len(means) < MIN_STAGES:
        return row | {"note": f"fewer than {MIN_STAGES} stages"}
    if np.all(means == means[0]):
        return row | {"note": "every stage mean is the same"}
    result = pymannkendall.original_test(means)
    return row | {"statistic": float(result.s), "effect": float(result.Tau), "p_raw": float(result.p)}


def holm(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (one family) with ``p_holm``: Holm's correction over the rows that have a p-value."""
    tested = [i for i, r in enumerate(rows) if r["p_raw"] is not None]
    adjusted = multipletests([rows[i]["p_raw"] for i in tested], method="holm")[1] if tested else []
    by_row = dict(zip(tested, adjusted))
    return [r | {"p_holm": float(by_row[i])} if i in by_row else dict(r) for i, r in enumerate(rows)]


def family_rows(frame: pl.DataFrame, family: Family, label: str, *, resamples: int, seed: int,
                confidence: float) -> list[dict[str, Any]]:
    """Every row of one family, Holm-corrected within it."""
    rows = [
        *(paired_test(frame, label, a, b, e, resamples=resamples, seed=seed, confidence=confidence)
          for a, b in family.paired for e in family.endpoints),
        *(omnibus_test(frame, label, levels, e) for levels in family.omnibus for e in family.endpoints),
        *(trend_test(frame, label, level, e) for level in family.trend for e in family.endpoints),
    ]
    return [{"family": family.name} | r for r in holm(rows)]


def stat_table(scores: pl.DataFrame, episodes: pl.DataFrame, families: Sequence[Family], *,
               label: str = "condition", resamples: int | None = None, seed: int | None = None,
               confidence: float | None = None) -> pl.DataFrame:
    """The ``stat_tests`` table of ``families`` over ``scores`` (``episode_scores``) and their
    ``episodes``; the bootstrap's resamples, seed and confidence default to data/statistics.yaml's."""
    params = statistics_params()
    frame = scored_episodes(scores, episodes, label)
    unknown = sorted({e for f in families for e in f.endpoints} - set(frame.columns))
    if unknown:
        raise ValueError(f"endpoints not in episode_scores: {', '.join(unknown)}")
    rows = [r for family in families for r in family_rows(
        frame, family, label, resamples=params.resamples if resamples is None else resamples,
        seed=params.seed if seed is None else seed, confidence=params.confidence if confidence is None else confidence)]
    return schemas.conform("stat_tests", pl.DataFrame(rows, schema=schemas.empty("stat_tests").schema))
