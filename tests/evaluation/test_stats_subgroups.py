"""subgroups.py: age bands and the mean endpoints per condition by age band, sex and ICD-10 block."""

from __future__ import annotations

import polars as pl
import pytest
from stats_frames import tables

from pipelines.evaluation.subgroups import age_band, age_bands, subgroup_means


def test_age_bands_are_left_closed_and_a_missing_age_has_none():
    assert age_bands([18, 45, 65, 80]) == ["0-17", "18-44", "45-64", "65-79", "80+"]
    ages = pl.DataFrame({"age": [0, 17, 18, 44, 45, 79, 80, 101, None]}, schema={"age": pl.Int32})
    assert ages.select(age_band(pl.col("age"), [18, 45, 65, 80]))["age"].to_list() == [
        "0-17", "0-17", "18-44", "18-44", "45-64", "65-79", "80+", "80+", None]


CASES = pl.DataFrame({"case_id": ["c0", "c1", "c2", "c3"], "age": [30, 70, 72, None], "sex": ["F", "M", "F", "M"],
                      "primary_icd10_block": ["I30-I5A", "I30-I5A", "J09-J18", None]},
                     schema_overrides={"age": pl.Int32})


def test_subgroup_means_per_condition_match_the_episodes_they_average():
    scores, episodes = tables({"H0": {"score_s": [0.2, 0.4, 0.6, 0.8], "pass": [False, False, True, True]},
                               "H3": {"score_s": [0.3, 0.5, 0.7, 0.9], "pass": [False, True, True, True]}})
    table = subgroup_means(scores, episodes, CASES, endpoints=("score_s", "pass"))
    by = {(r["subgroup"], r["level"], r["group"]): r for r in table.iter_rows(named=True)}
    assert set(table["subgroup"]) == {"age_band", "sex", "icd10_block"}
    female = by["sex", "F", "H3"]  # c0 and c2
    assert (female["n"], female["score_s"], female["pass"]) == (2, pytest.approx(0.5), pytest.approx(0.5))
    assert by["age_band", "65-79", "H0"]["score_s"] == pytest.approx(0.5)  # c1 and c2
    assert by["age_band", None, "H0"]["score_s"] == pytest.approx(0.8)  # c3 has no age
    assert by["icd10_block", "I30-I5A", "H3"]["pass"] == pytest.approx(0.5)
    assert by["icd10_block", None, "H3"]["n"] == 1
    for subgroup in ("age_band", "sex", "icd10_block"):  # every episode in exactly one level per subgroup
        assert table.filter(pl.col("subgroup") == subgroup)["n"].sum() == 8
