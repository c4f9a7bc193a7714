"""Importance of information units (``key`` | ``supporting`` | ``background``), learned on TRAIN.

Rule
----
A unit stands for a *concept* (``unit_candidates.concept``, else its normalised text). On the
train split only, each concept ``c`` is set against each ICD-10 block ``b`` of the cases' primary
diagnoses. The unit of observation is a distinct (patient, block) pair, so repeated admissions of
one patient count once: ``n`` observations, ``n_c`` with the concept, ``n_b`` in the block,
``n_cb`` both; ``lift = n_cb * n / (n_c * n_b)`` and a one-sided hypergeometric p-value
``P(X >= n_cb)`` (scipy). A pair with ``n_cb >= min_support`` is *tested*; Benjamini-Hochberg
(statsmodels) adjusts the p-values of the tested pairs. Then, for a unit of a case in block ``b``:

1. ``background`` if its category is a social or demographic fact (:data:`BACKGROUND_CATEGORIES`);
2. ``key`` if ``(c, b)`` is associated: tested, ``lift >= key_lift`` and adjusted ``p <= alpha``;
3. ``background`` if ``c`` is common (``n_c >= min_support``) and not positively associated with
   ``b`` (``lift <= 1``, or it never occurs in ``b``): a fact most patients share;
4. ``supporting`` otherwise (positively but not significantly associated, or too rare to judge).

Every case with hidden units then gets at least one ``key`` hidden unit: when the rule gave none,
the hidden unit of a non-background category with the strongest evidence is promoted (smallest
unadjusted p of its concept in the case's block, then highest lift, category order, ordinal;
concepts never seen with the block in train rank last) and ``importance_notes`` records it. A
case whose hidden units are all social/demographic keeps no key unit and its note says so.
Everything is deterministic (sorted inputs, ties broken by unit order).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
from scipy.stats import hypergeom
from statsmodels.stats.multitest import multipletests

from pipelines.leakage import normalise
from pipelines.units.candidates import CATEGORY_ORDER

BACKGROUND_CATEGORIES = ("demographic", "social")


@dataclass(frozen=True)
class ImportanceRule:
    min_support: int = 3
    key_lift: float = 2.0
    alpha: float = 0.05


@dataclass(frozen=True)
class Labelled:
    units: pl.DataFrame  # the input units with `importance`
    notes: pl.DataFrame  # importance_notes rows
    associations: pl.DataFrame  # tested (concept, block) pairs with n, lift, p, p_adjusted, key


def with_concept_key(units: pl.DataFrame) -> pl.DataFrame:
    """``concept_key``: the unit's concept, else ``text:`` + its normalised text (computed once per text)."""
    units = units if "concept" in units.columns else units.with_columns(pl.lit(None, pl.Utf8).alias("concept"))
    texts = units.filter(pl.col("concept").is_null()).select("text").unique()
    keys = texts.with_columns(
        pl.col("text").map_elements(lambda t: "text:" + normalise(t), return_dtype=pl.Utf8).alias("_text_key")
    )
    return units.join(keys, on="text", how="left", maintain_order="left").with_columns(
        pl.coalesce("concept", "_text_key").alias("concept_key")
    ).drop("_text_key")


def learn(units: pl.DataFrame, cases: pl.DataFrame, rule: ImportanceRule) -> pl.DataFrame:
    """Concept x block statistics over the train cases (``cases``: case_id, split, block, patient_key).

    Observations are (patient, block) pairs: a patient admitted five times for the same condition
    counts once and cannot make their own history look typical of the block.
    """
    train = cases.filter(pl.col("split") == "train").select(
        "case_id", pl.concat_str([pl.col("patient_key"), pl.col("block").fill_null("")], separator="|").alias("obs"),
        "block",
    )
    pairs = units.select("case_id", "concept_key").join(train, on="case_id", how="inner").select(
        "obs", "block", "concept_key"
    ).unique()
    n = pairs["obs"].n_unique()
    if n == 0:
        return pl.DataFrame(schema={"concept_key": pl.Utf8, "block": pl.Utf8, "n_cb": pl.Int64, "n_c": pl.Int64,
                                    "n_b": pl.Int64, "lift": pl.Float64, "p": pl.Float64, "p_adjusted": pl.Float64})
    n_c = pairs.group_by("concept_key").agg(pl.len().cast(pl.Int64).alias("n_c"))
    n_b = pairs.select("obs", "block").unique().group_by("block").agg(pl.len().cast(pl.Int64).alias("n_b"))
    stats = (
        pairs.group_by("concept_key", "block").agg(pl.len().cast(pl.Int64).alias("n_cb"))
        .join(n_c, on="concept_key").join(n_b, on="block", nulls_equal=True)
        .with_columns((pl.col("n_cb") * n / (pl.col("n_c") * pl.col("n_b"))).alias("lift"))
        .sort("concept_key", "block")
    )
    p = hypergeom.sf(stats["n_cb"].to_numpy() - 1, n, stats["n_c"].to_numpy(), stats["n_b"].to_numpy())
    stats = stats.with_columns(pl.Series("p", p, dtype=pl.Float64))
    # Only pairs with enough support are tested (and corrected for); the others keep p for ranking.
    tested = (stats["n_cb"] >= rule.min_support).to_numpy()
    adjusted = [None] * stats.height
    if tested.any():
        for i, q in zip(tested.nonzero()[0], multipletests(p[tested], method="fdr_bh")[1]):
            adjusted[i] = float(q)
    return stats.with_columns(pl.Series("p_adjusted", adjusted, dtype=pl.Float64))


def label(units: pl.DataFrame, cases: pl.DataFrame, rule: ImportanceRule = ImportanceRule()) -> Labelled:
    """Label ``units`` (unit_candidates rows) for ``cases`` (case_id, split, block, patient_key).

    See the module docstring for the rule.
    """
    units = with_concept_key(units)
    stats = learn(units, cases, rule)
    frequency = stats.group_by("concept_key").agg(pl.col("n_c").first())
    units = (
        units.join(cases.select("case_id", "block"), on="case_id", how="left")
        .join(stats.select("concept_key", "block", "lift", "p", "p_adjusted"), on=["concept_key", "block"],
              how="left", nulls_equal=True)
        .join(frequency, on="concept_key", how="left")
    )
    associated = (pl.col("lift") >= rule.key_lift) & (pl.col("p_adjusted") <= rule.alpha)  # null when untested
    common_unrelated = (pl.col("n_c").fill_null(0) >= rule.min_support) & (pl.col("lift").fill_null(0.0) <= 1.0)
    background_category = pl.col("category").is_in(BACKGROUND_CATEGORIES)
    units = units.with_columns(
        pl.when(background_category).then(pl.lit("background"))
        .when(associated.fill_null(False)).then(pl.lit("key"))
        .when(common_unrelated).then(pl.lit("background"))
        .otherwise(pl.lit("supporting"))
        .alias("importance")
    )
    units, notes = _ensure_key(units)
    associations = stats.with_columns(associated.alias("key")).sort("concept_key", "block")
    return Labelled(units.drop("concept_key", "block", "lift", "p", "p_adjusted", "n_c"), notes, associations)


def _ensure_key(units: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    hidden = units.filter(~pl.col("disclosed"))
    with_key = hidden.filter(pl.col("importance") == "key").select("case_id").unique()
    lacking = hidden.join(with_key, on="case_id", how="anti")
    eligible = lacking.filter(~pl.col("category").is_in(BACKGROUND_CATEGORIES)).with_columns(
        pl.col("category").replace_strict(CATEGORY_ORDER, default=len(CATEGORY_ORDER)).alias("_rank")
    )
    chosen = eligible.sort(
        ["case_id", "p", "lift", "_rank", "ordinal", "unit_id"],
        descending=[False, False, True, False, False, False], nulls_last=True,
    ).unique(subset="case_id", keep="first", maintain_order=True)
    promoted = chosen.select(
        "case_id",
        pl.lit("promoted").alias("resolution"),
        "unit_id",
        pl.format(
            "no hidden unit reached the key rule; promoted the {} unit with the strongest association "
            "(concept {}, lift {}, p {})", "category", "concept_key",
            pl.col("lift").round(2).cast(pl.Utf8).fill_null("n/a"), pl.col("p").round(4).cast(pl.Utf8).fill_null("n/a"),
        ).alias("reason"),
    )
    no_key = lacking.join(chosen, on="case_id", how="anti").group_by("case_id").agg(
        pl.col("category").unique().sort().str.join(", ").alias("cats")
    ).select(
        "case_id",
        pl.lit("no_key").alias("resolution"),
        pl.lit(None, pl.Utf8).alias("unit_id"),
        pl.format("hidden units are only background facts ({})", "cats").alias("reason"),
    )
    units = units.with_columns(
        pl.when(pl.col("unit_id").is_in(chosen["unit_id"].implode()))
        .then(pl.lit("key")).otherwise(pl.col("importance")).alias("importance")
    )
    return units, pl.concat([promoted, no_key]).sort("case_id")
