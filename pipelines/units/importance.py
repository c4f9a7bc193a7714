"""Importance of information units (``key`` | ``supporting`` | ``background``), learned on TRAIN.

Rule
----
A unit stands for a *concept* (``unit_candidates.concept``, else its normalised text). On the
train split only, each concept ``c`` is set against each ICD-10 block ``b`` of the cases' primary
diagnoses. The unit of observation is a distinct (patient, block) pair, so repeated admissions of
one patient count once: ``n`` observations, ``n_c`` with the concept, ``n_b`` in the block,
``n_cb`` both; ``lift = n_cb * n / (n_c * n_b)`` and a one-sided hypergeometric p-value
``P(X >= n_cb)`` (scipy). A pair with ``n_cb >= min_support`` is *tested*, and only tested pairs
get a p-value; Benjamini-Hochberg (statsmodels) adjusts them. Then, for a unit of a case in block
``b``:

1. ``background`` if its category is demographic, or social (:data:`BACKGROUND_CATEGORIES`) and
   not a knowledge association (step 3: smoking, alcohol and drug use can be);
2. ``key`` if ``(c, b)`` is associated: tested, ``lift >= key_lift`` and adjusted ``p <= alpha``;
3. where the statistics found no association (positively but not significantly associated, too
   rare to test, which on a small cohort is nearly every unit, or not more frequent in ``b``), the
   knowledge-based fallback: ``key`` if ``key_associations.csv`` associates the unit (a coded
   condition, a drug, a symptom phrase) with the case's primary ICD-10-CM code
   (pipelines.units.knowledge), so that warfarin is key for an intracranial hemorrhage and a
   multivitamin is key for nothing. It comes before step 4: a lift at or under 1 on a small cohort
   does not show that atrial fibrillation is unrelated to an embolic stroke (three stroke patients
   without it made it background on the real MIMIC-IV demo);
4. ``background`` if ``c`` is common (``n_c >= min_support``) and not positively associated with
   ``b`` (``lift <= 1``, or it never occurs in ``b``): a fact most patients share. Only for a block
   with at least ``min_support`` train observations: a block the train split has barely seen (a
   test case's rare diagnosis) cannot show that a weight is unrelated to appendicitis;
5. ``supporting`` otherwise.

``importance_basis`` (of the labelled units; published through ``importance_notes``) says which
step decided: ``category`` (1), ``statistics`` (2, 4, or a tested pair left supporting),
``knowledge`` (3), ``none`` (5: too rare to test, no association). Nothing is promoted to key
without one of these reasons. ``importance_notes`` has one row per case with hidden units or a key unit: its
resolution (``statistics``: a hidden key from the statistics; ``knowledge``: hidden keys only from
the fallback, the reason names the association; ``no_key``: none, and why) and the unit ids of its
keys by basis. Everything is deterministic (sorted inputs, ties broken by unit order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy.stats import hypergeom
from statsmodels.stats.multitest import multipletests

from pipelines.leakage import normalise
from pipelines.units import knowledge
from pipelines.units.candidates import CATEGORY_ORDER

BACKGROUND_CATEGORIES = ("demographic", "social")


@dataclass(frozen=True)
class ImportanceRule:
    min_support: int = 3
    key_lift: float = 2.0
    alpha: float = 0.05


@dataclass(frozen=True)
class Labelled:
    units: pl.DataFrame  # the input units with `importance` and `importance_basis`
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
    # Only pairs with enough support are tested (and corrected for), and only they get a p-value:
    # the tail sums cost (Boost's, per pair) and a large cohort has far more untested pairs than tested.
    tested = (stats["n_cb"] >= rule.min_support).to_numpy()
    p, adjusted = np.full(stats.height, np.nan), np.full(stats.height, np.nan)
    if tested.any():
        both, concept, block = (stats[c].to_numpy()[tested] for c in ("n_cb", "n_c", "n_b"))
        p[tested] = hypergeom.sf(both - 1, n, concept, block)
        adjusted[tested] = multipletests(p[tested], method="fdr_bh")[1]
    return stats.with_columns(pl.Series("p", p, nan_to_null=True), pl.Series("p_adjusted", adjusted, nan_to_null=True))


def label(units: pl.DataFrame, cases: pl.DataFrame, rule: ImportanceRule = ImportanceRule()) -> Labelled:
    """Label ``units`` (unit_candidates rows) for ``cases`` (case_id, split, block, patient_key,
    primary_icd10). See the module docstring for the rule.
    """
    units = with_concept_key(units)
    stats = learn(units, cases, rule)
    frequency = stats.group_by("concept_key").agg(pl.col("n_c").first())
    observed = stats.group_by("block").agg(pl.col("n_b").first())
    known = knowledge.matches(units, cases)
    units = (
        units.join(cases.select("case_id", "block"), on="case_id", how="left")
        .join(observed, on="block", how="left", nulls_equal=True)
        .join(stats.select("concept_key", "block", "lift", "p", "p_adjusted"), on=["concept_key", "block"],
              how="left", nulls_equal=True)
        .join(frequency, on="concept_key", how="left")
        .join(known, on="unit_id", how="left")
    )
    associated = (pl.col("lift") >= rule.key_lift) & (pl.col("p_adjusted") <= rule.alpha)  # null when untested
    common_unrelated = ((pl.col("n_c").fill_null(0) >= rule.min_support) & (pl.col("lift").fill_null(0.0) <= 1.0)
                        & (pl.col("n_b").fill_null(0) >= rule.min_support))
    by_knowledge = pl.col("association").is_not_null()
    # Social facts are never key by statistics (marital status, language), only by a known association.
    social = pl.col("category") == "social"
    background_category = (pl.col("category") == "demographic") | (social & ~by_knowledge)
    decided = (
        pl.when(background_category).then(pl.lit("background|category"))
        .when(~social & associated.fill_null(False)).then(pl.lit("key|statistics"))
        .when(by_knowledge).then(pl.lit("key|knowledge"))
        .when(~social & common_unrelated).then(pl.lit("background|statistics"))
        .when(pl.col("p_adjusted").is_not_null()).then(pl.lit("supporting|statistics"))
        .otherwise(pl.lit("supporting|none"))
    )
    units = units.with_columns(decided.str.split_exact("|", 1).struct.rename_fields(["importance", "importance_basis"])
                               .alias("_decided")).unnest("_decided")
    notes = _notes(units)
    associations = stats.with_columns(associated.alias("key")).sort("concept_key", "block")
    return Labelled(units.drop("concept_key", "block", "n_b", "lift", "p", "p_adjusted", "n_c", "association", "why"),
                    notes, associations)


def _first_key(basis: str) -> pl.Expr:
    key = (pl.col("importance") == "key") & (pl.col("importance_basis") == basis)
    return pl.col("unit_id").filter(key & ~pl.col("disclosed")).first()


def _notes(units: pl.DataFrame) -> pl.DataFrame:
    """importance_notes: one row per case with hidden units or a key, saying where its key units came from."""
    ranked = units.with_columns(
        pl.col("category").replace_strict(CATEGORY_ORDER, default=len(CATEGORY_ORDER)).alias("_rank")
    ).sort("case_id", "_rank", "ordinal", "unit_id")
    key = pl.col("importance") == "key"
    per_case = ranked.group_by("case_id", maintain_order=True).agg(
        pl.col("unit_id").filter(key & (pl.col("importance_basis") == "statistics")).alias("statistics_keys"),
        pl.col("unit_id").filter(key & (pl.col("importance_basis") == "knowledge")).alias("knowledge_keys"),
        _first_key("statistics").alias("_by_statistics"), _first_key("knowledge").alias("_by_knowledge"),
        pl.col("why").filter(key & ~pl.col("disclosed")).drop_nulls().first().alias("_why"),
        (~pl.col("disclosed")).any().alias("_hidden"),
        key.any().alias("_keyed"),
        pl.col("category").filter(~pl.col("disclosed")).is_in(BACKGROUND_CATEGORIES).all().alias("_only_background"),
        pl.col("category").filter(~pl.col("disclosed")).unique().sort().str.join(", ").alias("_cats"),
    ).filter(pl.col("_hidden") | pl.col("_keyed"))  # a fully disclosed case's keys need their basis too
    resolution = (pl.when(pl.col("_by_statistics").is_not_null()).then(pl.lit("statistics"))
                  .when(pl.col("_by_knowledge").is_not_null()).then(pl.lit("knowledge"))
                  .otherwise(pl.lit("no_key")))
    reason = (
        pl.when(pl.col("_by_statistics").is_not_null())
        .then(pl.format("{} key unit(s) associated with the diagnosis block on train (and {} by the knowledge-based "
                        "fallback)", pl.col("statistics_keys").list.len(), pl.col("knowledge_keys").list.len()))
        .when(pl.col("_by_knowledge").is_not_null())
        .then(pl.format("the train statistics gave no key unit; {} key by the knowledge-based fallback "
                        "(key_associations.csv), first: {}", pl.col("knowledge_keys").list.len(), pl.col("_why")))
        .when(~pl.col("_hidden"))
        .then(pl.lit("every unit is disclosed in the presentation: nothing is hidden to be key"))
        .when(pl.col("_only_background"))
        .then(pl.format("hidden units are only background facts ({})", "_cats"))
        .otherwise(pl.format("no hidden unit ({}) is associated with the diagnosis by the train statistics or "
                             "the knowledge-based fallback (key_associations.csv): none is key", "_cats"))
    )
    return per_case.select(
        "case_id", resolution.alias("resolution"), pl.coalesce("_by_statistics", "_by_knowledge").alias("unit_id"),
        reason.alias("reason"), "statistics_keys", "knowledge_keys",
    ).sort("case_id")


def key_problems(units: pl.DataFrame, notes: pl.DataFrame) -> dict[str, int]:
    """What the information_units check counts: cases with hidden units but neither a key hidden
    unit nor a ``no_key`` note, key units that no note gives a basis for (statistics or knowledge:
    an arbitrary promotion), and cases that have a key although their note says they have none."""
    hidden = units.filter(~pl.col("disclosed"))
    keys = units.filter(pl.col("importance") == "key")
    with_key = hidden.filter(pl.col("importance") == "key").select("case_id").unique()
    no_key = notes.filter(pl.col("resolution") == "no_key").select("case_id")
    unexplained = hidden.select("case_id").unique().join(with_key, on="case_id", how="anti").join(
        no_key, on="case_id", how="anti")
    based = notes.select("case_id", pl.concat_list("statistics_keys", "knowledge_keys").alias("unit_id")).explode(
        "unit_id")
    baseless = keys.join(based, on=["case_id", "unit_id"], how="anti")
    return {"cases_without_key_or_note": unexplained.height, "keys_without_basis": baseless.height,
            "no_key_notes_with_a_key": with_key.join(no_key, on="case_id", how="semi").height}


def basis_counts(notes: pl.DataFrame) -> dict[str, int]:
    """Key units per basis and cases per resolution (asset metadata), from importance_notes."""
    resolutions = dict(notes.group_by("resolution").len().iter_rows())
    return {
        "keys_from_statistics": int(notes["statistics_keys"].list.len().sum()) if notes.height else 0,
        "keys_from_knowledge": int(notes["knowledge_keys"].list.len().sum()) if notes.height else 0,
        **{f"cases_keyed_by_{r}": resolutions.get(r, 0) for r in ("statistics", "knowledge")},
        "cases_without_key": resolutions.get("no_key", 0),
    }
