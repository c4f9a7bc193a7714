from datetime import date

import polars as pl
import pytest

from pipelines.profiles.augment import build_profiles
from pipelines.profiles.match import MissingStrataError, match_profiles, profile_violations
from pipelines.profiles.pool import age_on
from pipelines.profiles.strata import needed_strata


@pytest.fixture
def pool(build):
    c, p = build.condition, build.patient
    return build.pool_of(
        # women 40-59
        p("w-htn", "F_40-59", date(1975, 6, 1), [c("Essential hypertension", "I10", date(2005, 1, 1)),
                                                 c("Hyperlipidemia", "E78.5", date(2010, 1, 1))]),
        p("w-dm", "F_40-59", date(1972, 3, 1), [c("Diabetes mellitus type 2", "E11.9", date(2000, 1, 1)),
                                                c("Essential hypertension", "I10", date(2001, 1, 1))]),
        p("w-dead", "F_40-59", date(1970, 1, 1), [c("Essential hypertension", "I10", date(1995, 1, 1)),
                                                  c("Hyperlipidemia", "E78.5", date(1996, 1, 1))],
          deceased=date(2000, 1, 1)),
        # men 60-74
        p("m-1", "M_60-74", date(1958, 1, 1), [
            c("Prostate cancer", "C61", date(1990, 1, 1)),
            c("Normal pregnancy", "Z33.1", date(1995, 1, 1), kind="finding"),  # wrong sex for a man
            c("Died in hospice", None, date(2000, 1, 1), kind="death"),
            c("Medication review due", None, date(1990, 6, 1), kind="situation"),
            c("Something unmapped", None, date(1991, 1, 1), kind="unmapped"),
            c("Acute bronchitis", "J20.9", date(2020, 1, 1)),  # onset at 62
            c("Essential hypertension", "I10", date(2000, 1, 1)),
        ]),
    )


def test_sex_band_and_contradictions(build, pool):
    cases = build.cases_of(build.case(1, "M", 61, "I21.4", ["I10"]))
    profile = match_profiles(cases, pool, seed=0).row(0, named=True)
    assert profile["generator_patient_id"] == "m-1" and profile["pool_stratum"] == "M_60-74"
    # prostate cancer fits a man; pregnancy, death, administrative, unmapped and the later bronchitis go
    assert profile["profile_conditions"] == ["Prostate cancer", "Essential hypertension"]
    assert profile["profile_conditions_icd10"] == ["C61", "I10"]
    # at 63 the bronchitis (onset at 62) happened before the admission
    later = match_profiles(build.cases_of(build.case(1, "M", 63, "I21.4")), pool, seed=0)
    assert "Acute bronchitis" in later["profile_conditions"][0]


def test_primary_category_excludes_candidates_and_conditions(build, pool):
    cases = build.cases_of(*[build.case(i, "F", 50, "E11.65") for i in range(20)])
    chosen = match_profiles(cases, pool, seed=0)
    assert "w-dm" not in chosen["generator_patient_id"].to_list()
    # when every candidate has the primary's category, the profile still exists without it
    htn = match_profiles(build.cases_of(build.case(99, "F", 50, "I10")), pool, seed=0)
    assert htn.height == 1 and "I10" not in htn["profile_conditions_icd10"][0]


def test_secondary_overlap_and_complete_history_rank_first(build, pool):
    cases = build.cases_of(*[build.case(i, "F", 55, "J18.9", ["E78.5", "I10"]) for i in range(20)])
    chosen = match_profiles(cases, pool, seed=0)
    # w-dead shares both categories but died at 29, so w-htn (both, alive) wins every time
    assert chosen["generator_patient_id"].unique().to_list() == ["w-htn"]
    assert chosen["match_overlap"].unique().to_list() == [2]


def test_ties_are_broken_by_a_seeded_hash(build, pool):
    cases = build.cases_of(*[build.case(i, "F", 45, "J18.9") for i in range(40)])
    first = match_profiles(cases, pool, seed=0)
    assert first.equals(match_profiles(cases, pool, seed=0))
    assert set(first["generator_patient_id"]) == {"w-htn", "w-dm"}  # both complete, no overlap
    other = match_profiles(cases, pool, seed=1)
    assert (first["generator_patient_id"] != other["generator_patient_id"]).any()


def test_missing_strata_and_unknown_sex_or_age(build, pool):
    with pytest.raises(MissingStrataError, match="F_0-17"):
        match_profiles(build.cases_of(build.case(1, "F", 5, "J45.909")), pool, seed=0)
    cases = build.cases_of(*[build.case(i, None, None, "J18.9") for i in range(30)])
    assert set(needed_strata(cases)) == {"F_40-59", "M_40-59"}
    assert needed_strata(cases.filter(pl.col("case_id") == cases["case_id"][0])) == needed_strata(cases.head(1))
    women = cases.filter(pl.Series(needed_strata(cases.slice(i, 1))[0] == "F_40-59" for i in range(30)))
    profiles = match_profiles(women, pool, seed=0)
    assert profiles.height == women.height and set(profiles["pool_stratum"]) == {"F_40-59"}


def test_build_profiles_drops_text_naming_the_diagnosis(build, pool):
    cases = build.cases_of(build.case(1, "M", 70, "I16.9", name="Hypertension"))
    profile = build_profiles(cases, pool, seed=0).row(0, named=True)
    # I10 is not the primary's category (I16), but "Essential hypertension" names the diagnosis
    assert profile["profile_conditions"] == ["Prostate cancer", "Acute bronchitis"]
    assert 0 <= profile["neuroticism"] <= 1 and profile["speech_style"].startswith("{")


def test_build_profiles_in_batches_equals_one_batch(build, pool):
    cases = build.cases_of(*[build.case(i, sex, age, dx, ["I10", "E78.5"])
                             for i, (sex, age, dx) in enumerate([("F", 50, "J18.9"), ("M", 61, "I21.4"),
                                                                  ("F", 45, "I10"), ("M", 70, "I16.9")] * 5)])
    whole = build_profiles(cases, pool, seed=3, batch_cases=cases.height)
    assert whole.height == cases.height and whole["generator_patient_id"].n_unique() > 1
    for size in (1, 3, 7):
        assert build_profiles(cases, pool, seed=3, batch_cases=size).equals(whole)


def test_violations_are_counted(build, pool):
    cases = build.cases_of(build.case(1, "M", 61, "I21.4"), build.case(2, "F", 50, "J18.9"))
    profiles = build_profiles(cases, pool, seed=0)
    assert not any(profile_violations(cases, profiles, pool).values())
    broken = profiles.with_columns(
        generator_patient_id=pl.when(pl.col("pool_stratum") == "F_40-59").then(pl.lit("m-1")).otherwise("generator_patient_id"),
        profile_conditions_icd10=pl.lit(["I21.9"]), profile_conditions=pl.lit(["x"]),
    )
    counts = profile_violations(cases.head(1).vstack(cases.tail(1)), pl.concat([broken, broken.head(1)]), pool)
    assert counts["sex_differs"] == 1 and counts["conditions_in_primary_category"] == 1
    assert counts["cases_with_several_profiles"] == 1
    assert profile_violations(cases, profiles.head(1), pool)["cases_without_profile"] == 1


def test_a_name_that_names_the_diagnosis_is_left_empty(build):
    pool = build.pool_of(build.patient("p", "M_60-74", date(1958, 1, 1), family_name="Gout"))
    cases = build.cases_of(build.case(1, "M", 65, "M10.9", name="Gout"),
                           build.case(2, "M", 65, "I21.4", name="Myocardial infarction"))
    profiles = build_profiles(cases, pool, seed=0)
    assert profiles["family_name"].to_list() == [None, "Gout"]


def test_age_on_counts_completed_years():
    frame = pl.DataFrame({"birth": [date(1950, 4, 23), date(1950, 1, 1), date(2008, 12, 2), date(1960, 12, 31)]})
    ages = frame.select(age=age_on(pl.col("birth"), pl.lit(date(2025, 1, 1))))["age"].to_list()
    assert ages == [74, 75, 16, 64]
