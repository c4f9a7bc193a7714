"""Profiles agree with the record: source demographics, conditions fit for sex and age, nothing the
case denies (pipelines/profiles/record.py, plausible.py), on hand-built pools and cases."""

from datetime import date

import polars as pl
import pytest

from pipelines.profiles.augment import build_profiles
from pipelines.profiles.match import match_profiles, profile_violations
from pipelines.profiles.plausible import bounds
from pipelines.leakage import find_mentions
from pipelines.profiles import record
from pipelines.profiles.record import (
    _condition_terms,
    denied_conditions,
    source_demographics,
    without_denied_conditions,
)


@pytest.mark.parametrize("code, name, expected", [
    ("D49.59", "Neoplasm of prostate", ("M", None, None)),  # a non-specific code, a male name
    ("C50.919", "Malignant neoplasm of breast", ("F", None, None)),  # the code's title says female
    ("C61", "Malignant tumor of prostate", ("M", None, None)),
    ("Z33.1", "Normal pregnancy", ("F", 12, 55)),
    ("Z87.59", "Past pregnancy history of miscarriage", ("F", None, None)),  # history: any age
    ("J45.909", "Childhood asthma", (None, None, 17)),
    ("P07.30", "Preterm infant", (None, None, 0)),
    ("I10", "Essential hypertension", (None, None, None)),
])
def test_condition_bounds_from_the_rules_file(code, name, expected):
    assert bounds(code, name)[:3] == expected


@pytest.fixture
def pool(build):
    c, p = build.condition, build.patient
    return build.pool_of(
        p("w-old", "F_60-74", date(1955, 1, 1), [
            c("Neoplasm of prostate", "D49.59", date(2000, 1, 1)),
            c("Normal pregnancy", "Z33.1", date(1985, 1, 1), kind="finding"),
            c("Childhood asthma", "J45.909", date(1962, 1, 1)),
            c("Diabetes mellitus type 2", "E11.9", date(2005, 1, 1)),
            c("Essential hypertension", "I10", date(2006, 1, 1)),
        ], language="Spanish", race="Asian", marital_status="Married", ethnicity="Not Hispanic or Latino"),
        p("w-young", "F_18-39", date(1995, 1, 1), [
            c("Normal pregnancy", "Z33.1", date(2022, 1, 1), kind="finding"),
        ]),
    )


def test_unfit_conditions_never_reach_a_profile(build, pool):
    old = match_profiles(build.cases_of(build.case(1, "F", 68, "J18.9")), pool, seed=0).row(0, named=True)
    assert old["profile_conditions"] == ["Diabetes mellitus type 2", "Essential hypertension"]
    young = match_profiles(build.cases_of(build.case(2, "F", 29, "J18.9")), pool, seed=0).row(0, named=True)
    assert young["profile_conditions"] == ["Normal pregnancy"]


def test_source_demographics_map_to_the_pool_vocabulary():
    admissions = pl.DataFrame({
        "case_id": ["a", "b", "c", "d"],
        "language": ["ENGLISH", "?", "Spanish", None],
        "marital_status": ["SINGLE", "MARRIED", None, "WIDOWED"],
        "race": ["WHITE", "HISPANIC/LATINO - CUBAN", "UNABLE TO OBTAIN", "BLACK/CAPE VERDEAN"],
    })
    assert source_demographics(admissions).rows() == [
        ("a", "English (United States)", "Never Married", "White", None),
        ("b", None, "Married", None, "Hispanic or Latino"),
        ("c", "Spanish", None, None, None),
        ("d", None, "Widowed", "Black or African American", None),
    ]


def test_denied_conditions_are_dropped_with_their_codes():
    profiles = pl.DataFrame({"case_id": ["a", "b"],
                             "profile_conditions": [["Diabetes mellitus type 2", "Essential hypertension"], ["Asthma"]],
                             "profile_conditions_icd10": [["E11.9", "I10"], ["J45.909"]]})
    denied = pl.DataFrame({"case_id": ["a", "a", "b"], "text": ["no HTN", "no chest pain", "no fever"]})
    kept = without_denied_conditions(profiles, denied)
    assert kept.rows() == [("a", ["Diabetes mellitus type 2"], ["E11.9"]), ("b", ["Asthma"], ["J45.909"])]


@pytest.mark.parametrize("batch", [1, 2, 100])
def test_the_screened_pairs_find_what_matching_every_pair_finds(batch, monkeypatch):
    """denied_conditions screens the (condition, unit) pairs at once before matching: a unit that is
    not ASCII, a condition without a code, a unit naming a condition of another case, repeated
    pairs, a case's profile twice: the same rows as find_mentions over every pair, in whatever
    batches of profiles the pairs are made."""
    monkeypatch.setattr(record, "PAIR_BATCH_PROFILES", batch)
    profiles = pl.DataFrame({"case_id": ["a", "b", "c", "c"],
                             "profile_conditions": [["Diabetes mellitus type 2", "Essential hypertension"],
                                                    ["Asthma", "Sjögren syndrome"], ["Anemia", "Anemia"], ["Anemia"]],
                             "profile_conditions_icd10": [["E11.9", "I10"], ["J45.909", None], ["D64.9", "D64.9"],
                                                          ["D64.9"]]})
    denied = pl.DataFrame({"case_id": ["a", "a", "a", "b", "b", "b", "c", "c"],
                           "text": ["no HTN", "denies asthma", "no diabétes", "no asthma attacks", "no fever",
                                    "no sjogren syndrome", "no anemia", "no anemia"]})
    found = denied_conditions(profiles, denied)
    pairs = (profiles.explode("profile_conditions", "profile_conditions_icd10")
             .join(denied, on="case_id", maintain_order="left").rows())
    everyone = pl.DataFrame([(case, name, text) for case, name, code, text in pairs
                             if find_mentions(text, list(_condition_terms(name, code)))],
                            schema=list(found.columns), orient="row").unique(maintain_order=True)
    assert found.rows() == everyone.rows()
    assert {(case, name) for case, name, _ in found.rows()} >= {
        ("a", "Essential hypertension"), ("b", "Asthma"), ("c", "Anemia")}


def test_profiles_agree_with_the_record_and_the_check_counts_disagreement(build, pool):
    cases = build.cases_of(build.case(1, "F", 68, "J18.9"))
    case = cases["case_id"][0]
    source = pl.DataFrame({"case_id": [case], "language": ["English (United States)"], "marital_status": [None],
                           "race": ["White"], "ethnicity": [None]})
    denied = pl.DataFrame({"case_id": [case], "text": ["no history of diabetes"]})
    profile = build_profiles(cases, pool, seed=0, source=source, denied_units=denied)
    row = profile.row(0, named=True)
    assert (row["language"], row["race"], row["marital_status"], row["ethnicity"]) == (
        "English (United States)", "White", "Married", "Not Hispanic or Latino")  # the record wins where it says
    assert row["profile_conditions"] == ["Essential hypertension"]
    counts = profile_violations(cases, profile, pool, source, denied)
    assert not any(counts.values()), counts
    generated = build_profiles(cases, pool, seed=0)  # without the record: Synthea's values and all conditions
    counts = profile_violations(cases, generated, pool, source, denied)
    assert (counts["demographics_differ_from_record"], counts["conditions_denied_by_units"]) == (1, 1)
    unfit = profile.with_columns(profile_conditions=pl.lit(["Normal pregnancy"]),
                                 profile_conditions_icd10=pl.lit(["Z33.1"]))
    assert profile_violations(cases, unfit, pool)["conditions_unfit_for_sex_or_age"] == 1
