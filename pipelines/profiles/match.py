"""Match each case to one pool patient and keep only the facts that fit the case.

Matching rule (vectorised polars; no Python loop over cases or pool patients):

1. Candidates are the pool patients of the case's stratum (same sex, age band holding the case's
   age; pipelines/profiles/strata.py).
2. Candidates are ranked, best first, by
   a. no recorded condition (at any time) in the primary diagnosis's ICD-10-CM category;
   b. history complete up to the case's age: alive, or died at or after that age;
   c. overlap: the number of distinct ICD-10-CM categories of the case's secondary diagnoses that
      the candidate has among conditions with onset before the case's age;
   d. a keyed hash of (case_id, pool patient id, seed): SplitMix64 over the case id's HMAC bits
      mixed with the seed, xor BLAKE2b of the pool patient id.
   The primary diagnosis is never used for conditioning, only for exclusion (a), so a stratum
   where every candidate has the primary's category still gives a profile, with those
   conditions removed below.
3. Facts that contradict the case are removed from the profile:
   * conditions whose onset age (completed years, from the pool patient's birth date) is not below
     the case's age: they would happen at or after the admission;
   * conditions that do not fit the case's sex or age (pipelines/profiles/plausible.py, rules in
     ``condition_rules.csv``: no prostate condition for a woman, no pregnancy for a man or after
     55, no paediatric-only condition for an adult);
   * death records (kind ``death``) and anything without an ICD-10-CM code (pipelines/profiles/
     snomed.py: the safe rule), and administrative ``situation`` entries;
   * every condition in the primary diagnosis's ICD-10-CM category;
   the profile never carries the pool patient's death date or age: its age is the case's.
   What is left is listed once per condition name, in order of first onset.
4. A profile is patient-visible text, so it also passes the project's diagnosis-leakage test
   (pipelines.leakage, terms per case from pipelines.content.leakage_guard): a condition whose
   name mentions the diagnosis ("History of myocardial infarction", I25.2, for an NSTEMI case,
   I21) is dropped, and a demographic value that does (a family name "Gout" for a gout case) is
   left empty.
"""

from __future__ import annotations

import polars as pl

from pipelines.content.leakage_guard import CaseTerms, case_terms
from pipelines.leakage import mentions_any
from pipelines.profiles.keys import case_keys, mix, splitmix64, string_keys
from pipelines.profiles.plausible import condition_bounds, fits
from pipelines.profiles.pool import age_on
from pipelines.profiles.record import DEMOGRAPHICS, denied_conditions
from pipelines.profiles.snomed import SHOWN_KINDS
from pipelines.profiles.strata import with_strata

CASE_COLUMNS = ("case_id", "sex", "age", "primary_icd10_category", "secondary_icd10")
PATIENT_COLUMNS = (
    "given_name", "family_name", "marital_status", "race", "ethnicity", "language", "city", "state",
    "occupation_or_income",
)


class MissingStrataError(LookupError):
    """Cases need pool strata that have not been generated yet."""

    def __init__(self, strata: list[str]):
        self.strata = strata
        super().__init__(
            f"synthea_pool has no patients for strata {', '.join(strata)}: materialise those "
            "partitions of the synthea_pool asset first (pipelines.profiles.needed_strata lists them)"
        )


def _explode_conditions(pool: pl.DataFrame) -> pl.DataFrame:
    """One row per mapped pool condition, with the pool patient's age at its onset.

    ``pool`` carries ``patient`` (its row number), the integer key used inside matching.
    """
    return (
        pool.select("patient", "stratum", "birth_date", "conditions")
        .explode("conditions")
        .unnest("conditions")
        .filter(pl.col("icd10_category").is_not_null())
        .with_columns(onset_age=age_on(pl.col("birth_date"), pl.col("onset")))
        .drop("birth_date")
    )


def _showable(conditions: pl.DataFrame) -> pl.DataFrame:
    """Per pool patient, each condition name a profile may show, at its first onset, in onset order,
    with the sex and age bounds it fits (plausible.condition_bounds)."""
    shown = (
        conditions.filter(pl.col("kind").is_in(SHOWN_KINDS))
        .sort("patient", "onset", "name")
        .unique(["patient", "name"], keep="first", maintain_order=True)
        .select("patient", "name", "icd10cm", "icd10_category", "onset_age",
                rank=pl.int_range(pl.len()).over("patient"))
    )
    return shown.join(condition_bounds(shown), on=["name", "icd10cm"], how="left", nulls_equal=True)


def _candidates(wanted: pl.DataFrame, pool: pl.DataFrame, conditions: pl.DataFrame) -> pl.DataFrame:
    """Every (case, same-stratum pool patient) pair with the ranking criteria.

    Cases are keyed by their row number and categories by small integers, so the per-case joins
    and sorts run on integers rather than strings.
    """
    categories = conditions["icd10_category"].unique().sort()
    code = {category: i for i, category in enumerate(categories)}

    def category_code(expr: pl.Expr) -> pl.Expr:
        return expr.replace_strict(code, default=None, return_dtype=pl.UInt16)

    patients = pool.select(
        "patient", "stratum",
        death_age=age_on(pl.col("birth_date"), pl.col("deceased_date")),
        pool_key=pl.Series(string_keys(pool["pool_patient_id"]), dtype=pl.UInt64),
    )
    cases = wanted.select("row", "stratum", "age", "case_key", "secondary_icd10",
                          primary=category_code(pl.col("primary_icd10_category")))
    pairs = cases.drop("secondary_icd10").join(patients, on="stratum")
    patient_categories = conditions.select("patient", category=category_code(pl.col("icd10_category"))).unique()
    hits = pairs.join(patient_categories, left_on=["patient", "primary"], right_on=["patient", "category"], how="semi")
    secondary = (
        cases.select("row", "stratum", "age", "primary", "secondary_icd10")
        .explode("secondary_icd10")
        .with_columns(category=category_code(pl.col("secondary_icd10").str.slice(0, 3)))
        .filter(pl.col("category").is_not_null() & pl.col("category").ne_missing(pl.col("primary")))
        .unique(["row", "category"])
    )
    first_onsets = conditions.group_by("stratum", "patient", category=category_code(pl.col("icd10_category"))).agg(
        pl.col("onset_age").min())
    overlap = (
        secondary.join(first_onsets, on=["stratum", "category"])
        .filter(pl.col("age").is_null() | (pl.col("onset_age") < pl.col("age")))
        .group_by("row", "patient")
        .agg(overlap=pl.len().cast(pl.Int32))
    )
    pairs = (
        pairs.join(hits.select("row", "patient", hits_primary=pl.lit(True)), on=["row", "patient"], how="left")
        .join(overlap, on=["row", "patient"], how="left")
        .with_columns(
            hits_primary=pl.col("hits_primary").fill_null(False),
            overlap=pl.col("overlap").fill_null(0),
            complete=pl.col("death_age").is_null() | pl.col("age").is_null() | (pl.col("death_age") >= pl.col("age")),
        )
    )
    tie = splitmix64(pairs["case_key"].to_numpy() ^ pairs["pool_key"].to_numpy())
    return pairs.with_columns(tie=pl.Series(tie, dtype=pl.UInt64))


def _leaking(pairs: pl.DataFrame, column: str, terms: CaseTerms) -> pl.DataFrame:
    """The distinct (dx_key, value) pairs of ``column`` whose value mentions the diagnosis."""
    distinct = pairs.select("dx_key", column).drop_nulls().unique()
    rows = [(key, text) for key, text in distinct.iter_rows() if mentions_any(text, terms.terms.get(key, []))]
    return pl.DataFrame(rows, schema={"dx_key": pl.Int64, column: pl.Utf8}, orient="row")


def _shown_conditions(combos: pl.DataFrame, showable: pl.DataFrame, terms: CaseTerms) -> pl.DataFrame:
    """The profile conditions of each distinct (pool patient, age, primary category, sex, diagnosis)."""
    candidates = combos.join(showable, on="patient").filter(
        pl.col("icd10_category").ne_missing(pl.col("primary_icd10_category"))
        & (pl.col("age").is_null() | (pl.col("onset_age") < pl.col("age")))
        & fits(pl.col("profile_sex"), pl.col("age"))
    )
    return (
        candidates.join(_leaking(candidates, "name", terms), on=["dx_key", "name"], how="anti")
        .group_by("combo")
        .agg(profile_conditions=pl.col("name").sort_by("rank"),
             profile_conditions_icd10=pl.col("icd10cm").sort_by("rank"))
    )


def _without_leaking_values(profiles: pl.DataFrame, terms: CaseTerms) -> pl.DataFrame:
    """Empty the demographic values that mention the case's diagnosis."""
    distinct = profiles.select("dx_key", "patient", *PATIENT_COLUMNS).unique(["dx_key", "patient"])
    for column in PATIENT_COLUMNS:
        leaks = _leaking(distinct, column, terms).with_columns(leaks=pl.lit(True))
        if leaks.height:
            profiles = profiles.join(leaks, on=["dx_key", column], how="left").with_columns(
                pl.when(pl.col("leaks")).then(None).otherwise(pl.col(column)).alias(column)
            ).drop("leaks")
    return profiles


def match_profiles(cases: pl.DataFrame, pool: pl.DataFrame, seed: int, terms: CaseTerms | None = None) -> pl.DataFrame:
    """One matched pool patient per case, with the conditions the profile may show.

    ``cases`` needs ``case_id, sex, age, diagnosis_name, acceptable_names, primary_icd10,
    primary_icd10_category, secondary_icd10``; ``pool`` is the ``synthea_pool`` table (any subset
    of strata holding the cases' strata); ``terms`` are the cases' diagnosis terms
    (``case_terms(cases)`` when not given).
    """
    terms = terms if terms is not None else case_terms(cases)
    wanted = (
        with_strata(cases.select(CASE_COLUMNS))
        .with_row_index("row")
        .with_columns(case_key=pl.Series(mix(case_keys(cases["case_id"]), seed, "match"), dtype=pl.UInt64))
        .join(terms.cases, on="case_id", how="left", maintain_order="left")
    )
    missing = sorted(set(wanted["stratum"].unique().to_list()) - set(pool["stratum"].unique().to_list()))
    if missing:
        raise MissingStrataError(missing)
    pool = pool.with_row_index("patient")
    conditions = _explode_conditions(pool)
    chosen = (
        _candidates(wanted, pool, conditions)
        .sort(["row", "hits_primary", "complete", "overlap", "tie"], descending=[False, False, True, True, False])
        .unique("row", keep="first", maintain_order=True)
        .select("row", "patient", "overlap")
        .join(wanted.select("row", "case_id", "profile_sex", "age", "primary_icd10_category", "dx_key"), on="row")
    )
    # Cases that share a pool patient, age, primary category, sex and diagnosis share a profile
    # history: it is worked out once per such combination, not once per case.
    key = ["patient", "age", "primary_icd10_category", "profile_sex", "dx_key"]
    combos = chosen.select(key).unique().with_row_index("combo")
    empty = pl.lit([], dtype=pl.List(pl.Utf8))
    profiles = (
        chosen.join(combos, on=key, how="left", nulls_equal=True)
        .join(_shown_conditions(combos, _showable(conditions), terms), on="combo", how="left")
        .join(pool.select("patient", "pool_patient_id", "generator", "stratum", *PATIENT_COLUMNS), on="patient")
        .sort("row")
    )
    return _without_leaking_values(profiles, terms).select(
        "case_id", "generator",
        pl.col("pool_patient_id").alias("generator_patient_id"),
        pl.col("stratum").alias("pool_stratum"),
        *PATIENT_COLUMNS,
        pl.col("profile_conditions").fill_null(empty),
        pl.col("profile_conditions_icd10").fill_null(empty),
        pl.col("overlap").alias("match_overlap"),
    )


def _band(stratum: pl.Expr) -> pl.Expr:
    """``F_18-39`` -> ``18-39``."""
    return stratum.str.split("_").list.last()


def profile_violations(cases: pl.DataFrame, profiles: pl.DataFrame, pool: pl.DataFrame,
                       source: pl.DataFrame | None = None, denied_units: pl.DataFrame | None = None) -> dict[str, int]:
    """Counts of broken promises (all zero when the profiles are right); used by the asset check.

    ``source`` and ``denied_units`` are the record the profiles must agree with (see
    pipelines/profiles/record.py); without them those counts are zero."""
    per_case = profiles.group_by("case_id").len()
    wanted = with_strata(cases.select(CASE_COLUMNS))
    joined = (
        profiles.select("case_id", "generator_patient_id", "pool_stratum", "profile_conditions",
                        "profile_conditions_icd10")
        .join(wanted, on="case_id", how="inner")
        .join(pool.select(generator_patient_id="pool_patient_id", pool_sex="sex", pool_age="age_years",
                          drawn_from="stratum"),
              on="generator_patient_id", how="left")
    )
    in_primary = (
        joined.select("case_id", "primary_icd10_category", code=pl.col("profile_conditions_icd10"))
        .explode("code")
        .filter(pl.col("code").str.slice(0, 3).eq(pl.col("primary_icd10_category")))
    )
    return {
        "cases_without_profile": cases.join(profiles, on="case_id", how="anti").height,
        "cases_with_several_profiles": per_case.filter(pl.col("len") > 1).height,
        "profiles_without_case": profiles.join(cases, on="case_id", how="anti").height,
        "not_in_pool": joined.filter(pl.col("pool_sex").is_null()).height,
        "sex_differs": joined.filter(pl.col("sex").is_not_null() & pl.col("sex").ne(pl.col("pool_sex"))).height,
        # The case's band against the profile's label and against the pool patient it was drawn from
        # (the band alone: a patient of the other sex is counted by sex_differs).
        "age_band_differs": joined.filter(pl.col("stratum").ne(pl.col("pool_stratum"))
                                          | _band(pl.col("stratum")).ne(_band(pl.col("drawn_from")))).height,
        "conditions_in_primary_category": in_primary["case_id"].n_unique(),
        "condition_codes_misaligned": joined.filter(~_aligned()).height,
        "conditions_unfit_for_sex_or_age": _unfit(joined).height,
        "conditions_denied_by_units": denied_conditions(profiles, denied_units)["case_id"].n_unique(),
        "demographics_differ_from_record": _differing(profiles, source).height,
    }


def _aligned() -> pl.Expr:
    return pl.col("profile_conditions").list.len() == pl.col("profile_conditions_icd10").list.len()


def _unfit(joined: pl.DataFrame) -> pl.DataFrame:
    """Profile conditions outside the sex and age bounds of plausible.condition_rules (cases with one)."""
    shown = (joined.filter(_aligned())  # misaligned lists are condition_codes_misaligned's
             .select("case_id", "profile_sex", "age", name=pl.col("profile_conditions"),
                     icd10cm=pl.col("profile_conditions_icd10")).explode("name", "icd10cm").drop_nulls("name"))
    bounded = shown.join(condition_bounds(shown), on=["name", "icd10cm"], how="left", nulls_equal=True)
    return bounded.filter(~fits(pl.col("profile_sex"), pl.col("age"))).select("case_id").unique()


def _differing(profiles: pl.DataFrame, source: pl.DataFrame | None) -> pl.DataFrame:
    """Profiles with a demographic the record gives but the profile does not show."""
    if source is None or source.is_empty():
        return profiles.head(0)
    joined = profiles.join(source, on="case_id", suffix="_record")
    differs = pl.any_horizontal(pl.col(f"{c}_record").is_not_null() & pl.col(f"{c}_record").ne_missing(pl.col(c))
                                for c in DEMOGRAPHICS)
    return joined.filter(differs)

