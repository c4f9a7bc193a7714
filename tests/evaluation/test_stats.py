"""stats.py on hand-made paired frames, every p-value, statistic and interval recomputed directly with
scipy / statsmodels / pymannkendall: Wilcoxon, exact McNemar, the paired bootstrap, Holm within
families, Friedman, Cochran's Q, Mann-Kendall; unpaired and degenerate inputs; the family
declarations; the ``stat_tests`` contract."""

from __future__ import annotations

import numpy as np
import polars as pl
import pymannkendall
import pytest
from scipy.stats import bootstrap, friedmanchisquare, kendalltau, wilcoxon
from stats_frames import tables
from statsmodels.stats.contingency_tables import cochrans_q, mcnemar
from statsmodels.stats.multitest import multipletests

import schemas
from pipelines.evaluation.stats import Family, declared_families, stat_table

H0_S = [0.20, 0.35, 0.50, 0.10, 0.40, 0.55, 0.30, 0.25, 0.45, 0.60]
H3_S = [0.30, 0.35, 0.70, 0.05, 0.65, 0.60, 0.50, 0.40, 0.45, 0.90]  # two zero differences, one negative
H0_U = [0.01, 0.02, -0.05, 0.10, 0.03, -0.02, 0.00, 0.04, 0.05, -0.01]
H3_U = [0.05, 0.01, 0.02, 0.12, 0.09, 0.01, 0.06, 0.03, 0.15, 0.04]
H0_STRICT = [True, False, False, False, True, False, False, True, False, False]
H3_STRICT = [True, True, True, False, True, True, False, False, True, True]
QUICK = {"resamples": 2000, "seed": 11}


def heldout(**extra):
    return tables({"H0": {"score_s": H0_S, "utility_u": H0_U, "strict": H0_STRICT},
                   "H3": {"score_s": H3_S, "utility_u": H3_U, "strict": H3_STRICT}, **extra})


def rows(table: pl.DataFrame) -> dict[tuple[str, str, str], dict]:
    return {(r["family"], r["comparison"], r["endpoint"]): r for r in table.iter_rows(named=True)}


HELDOUT = Family("heldout", ("score_s", "utility_u", "strict"), paired=(("H3", "H0"),))


def test_a_continuous_endpoint_gets_scipys_two_sided_wilcoxon_and_the_mean_paired_difference():
    row = rows(stat_table(*heldout(), [HELDOUT], **QUICK))["heldout", "H3 vs H0", "score_s"]
    expected = wilcoxon(H3_S, H0_S)  # scipy's defaults: two-sided, zeros dropped, no correction
    assert (row["test"], row["n"], row["n_excluded"]) == ("wilcoxon", 10, 0)
    assert row["statistic"] == pytest.approx(expected.statistic) and row["p_raw"] == pytest.approx(expected.pvalue)
    assert row["effect"] == pytest.approx(np.mean(np.array(H3_S) - np.array(H0_S)))  # H3 minus H0
    assert row["note"] is None


def test_a_binary_endpoint_gets_the_exact_mcnemar_test_and_the_difference_in_proportions():
    row = rows(stat_table(*heldout(), [HELDOUT], **QUICK))["heldout", "H3 vs H0", "strict"]
    # H3 right and H0 wrong in 5 cases, the reverse in 1; both right in 2, both wrong in 2
    expected = mcnemar([[2, 5], [1, 2]], exact=True)  # rows H3 (right, wrong), columns H0 (right, wrong)
    assert row["test"] == "mcnemar_exact"
    assert row["statistic"] == pytest.approx(expected.statistic) and row["p_raw"] == pytest.approx(expected.pvalue)
    assert row["effect"] == pytest.approx(np.mean(H3_STRICT) - np.mean(H0_STRICT)) == pytest.approx(0.4)


def test_the_interval_is_scipys_paired_percentile_bootstrap_with_the_given_seed():
    table = rows(stat_table(*heldout(), [HELDOUT], **QUICK))
    for endpoint, first, second in (("utility_u", H3_U, H0_U), ("strict", H3_STRICT, H0_STRICT)):
        differences = np.array(first, dtype=float) - np.array(second, dtype=float)
        expected = bootstrap((differences,), np.mean, n_resamples=2000, method="percentile",
                             rng=np.random.default_rng(11)).confidence_interval
        row = table["heldout", "H3 vs H0", endpoint]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((expected.low, expected.high))
        assert row["ci_low"] <= row["effect"] <= row["ci_high"]


def test_the_bootstrap_is_determined_by_its_seed():
    frames = heldout()
    first, again = (stat_table(*frames, [HELDOUT], resamples=500, seed=3) for _ in range(2))
    other = stat_table(*frames, [HELDOUT], resamples=500, seed=4)
    assert first.equals(again)
    assert not first["ci_low"].equals(other["ci_low"])
    assert first.drop("ci_low", "ci_high").equals(other.drop("ci_low", "ci_high"))  # the tests use no randomness


def test_holm_corrects_within_each_family_and_not_across():
    outcomes = Family("outcomes", ("score_s", "utility_u"), paired=(("H3", "H0"),))
    binary = Family("binary", ("strict",), paired=(("H3", "H0"),))
    table = stat_table(*heldout(), [outcomes, binary], **QUICK)
    for name in ("outcomes", "binary"):
        family = table.filter(pl.col("family") == name)
        assert family["p_holm"].to_list() == pytest.approx(list(multipletests(family["p_raw"], method="holm")[1]))
    pooled = multipletests(table["p_raw"], method="holm")[1]
    assert table["p_holm"].to_list() != pytest.approx(list(pooled))


def test_three_levels_get_friedman_and_cochrans_q_over_the_complete_cases():
    e0, e1, e2 = [0.1, 0.3, 0.2, 0.5, 0.4, 0.2], [0.2, 0.3, 0.4, 0.5, 0.6, 0.1], [0.4, 0.5, 0.4, 0.7, 0.6, 0.3]
    b0, b1, b2 = ([True, False, False, True, False, False], [True, True, False, True, False, True],
                  [True, True, True, True, False, True])
    frames = tables({"E0": {"score_s": e0, "pass": b0}, "E1": {"score_s": e1, "pass": b1},
                     "E2": {"score_s": e2 + [0.9], "pass": b2 + [True], "case_id": [f"c{i}" for i in range(7)]}})
    table = rows(stat_table(*frames, [Family("levels", ("score_s", "pass"), omnibus=(("E0", "E1", "E2"),))]))
    friedman, cochran = table["levels", "E0 vs E1 vs E2", "score_s"], table["levels", "E0 vs E1 vs E2", "pass"]
    expected = friedmanchisquare(e0, e1, e2)
    assert (friedman["test"], friedman["n"], friedman["n_excluded"]) == ("friedman", 6, 1)  # c6 is in E2 only
    assert friedman["statistic"] == pytest.approx(expected.statistic)
    assert friedman["p_raw"] == pytest.approx(expected.pvalue)
    expected = cochrans_q(np.array([b0, b1, b2], dtype=int).T)
    assert cochran["test"] == "cochran_q" and cochran["p_raw"] == pytest.approx(expected.pvalue)
    assert cochran["statistic"] == pytest.approx(expected.statistic)
    assert friedman["effect"] is None and friedman["ci_low"] is None  # an omnibus test has no single effect


def test_a_stage_trend_is_mann_kendall_over_the_stage_means_with_kendalls_tau():
    stages = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, None]
    utility = [0.0, 0.1, 0.1, 0.2, 0.1, 0.1, 0.3, 0.4, 0.4, 0.5, 0.9]
    frames = tables({"G1": {"utility_u": utility, "stage": stages}})
    row = rows(stat_table(*frames, [Family("g1", ("utility_u",), trend=("G1",))]))["g1", "G1 over stages", "utility_u"]
    means = np.array([0.05, 0.15, 0.1, 0.35, 0.45])
    expected = pymannkendall.original_test(means)
    assert (row["test"], row["n"], row["n_excluded"]) == ("mann_kendall", 5, 1)  # the episode without a stage
    assert row["p_raw"] == pytest.approx(expected.p) and row["statistic"] == pytest.approx(expected.s)
    assert row["effect"] == pytest.approx(expected.Tau) == pytest.approx(kendalltau(range(5), means).statistic)
    assert row["ci_low"] is None


def test_unpaired_cases_and_missing_values_are_excluded_and_counted():
    frames = tables({"H0": {"score_s": [0.1, 0.2, 0.3, 0.4, 0.5], "case_id": ["c0", "c1", "c2", "c3", "c4"]},
                     "H3": {"score_s": [0.3, None, 0.6, 0.4, 0.9], "case_id": ["c0", "c1", "c2", "c3", "c9"]}})
    row = stat_table(*frames, [Family("f", ("score_s",), paired=(("H3", "H0"),))], **QUICK).row(0, named=True)
    # c1 has no H3 value, c4 is in H0 only, c9 in H3 only: c0, c2, c3 remain
    assert (row["n"], row["n_excluded"]) == (3, 3)
    assert row["p_raw"] == pytest.approx(wilcoxon([0.3, 0.6, 0.4], [0.1, 0.3, 0.4]).pvalue)
    assert row["effect"] == pytest.approx((0.2 + 0.3 + 0.0) / 3)


def test_degenerate_comparisons_give_a_null_p_value_and_a_reason():
    frames = tables({"A": {"score_s": [0.5, 0.5, 0.2], "pass": [True, False, True], "stage": [1, 2, 3]},
                     "B": {"score_s": [0.5, 0.5, 0.2], "pass": [True, False, True], "stage": [1, 2, 3]},
                     "C": {"score_s": [0.5, 0.5, 0.2], "pass": [True, False, True], "stage": [1, 1, 1],
                           "case_id": ["c0", "c1", "c2"]},
                     "D": {"score_s": [0.9], "pass": [True], "case_id": ["c0"]}})
    families = [Family("f", ("score_s", "pass"), paired=(("A", "B"), ("A", "D"), ("A", "Z")),
                       omnibus=(("A", "B", "C"),), trend=("A", "C"))]
    table = rows(stat_table(*frames, families, **QUICK))
    assert table["f", "A vs B", "score_s"]["note"] == "every paired difference is zero"
    assert (table["f", "A vs B", "score_s"]["ci_low"], table["f", "A vs B", "score_s"]["effect"]) == (0.0, 0.0)
    assert table["f", "A vs B", "pass"]["note"] == "every paired difference is zero"  # no discordant pair
    assert table["f", "A vs D", "score_s"]["note"] == "fewer than 2 paired cases"
    assert table["f", "A vs D", "score_s"]["effect"] == pytest.approx(-0.4)
    assert (table["f", "A vs Z", "score_s"]["n"], table["f", "A vs Z", "score_s"]["n_excluded"]) == (0, 3)
    assert table["f", "A vs B vs C", "score_s"]["note"] == "every case has the same value at every level"
    assert table["f", "A over stages", "pass"]["p_raw"] is not None
    assert table["f", "C over stages", "score_s"]["note"] == "fewer than 3 stages"
    assert all(r["p_holm"] is None for r in table.values() if r["p_raw"] is None)
    tested = [r for r in table.values() if r["p_raw"] is not None]
    assert [r["p_holm"] for r in tested] == pytest.approx(list(multipletests([r["p_raw"] for r in tested],
                                                                             method="holm")[1]))


def test_a_flat_stage_trend_is_not_tested():
    frames = tables({"G0": {"score_s": [0.2, 0.4, 0.3, 0.3, 0.1, 0.5], "stage": [1, 1, 2, 2, 3, 3]}})
    row = stat_table(*frames, [Family("g0", ("score_s",), trend=("G0",))]).row(0, named=True)
    assert (row["note"], row["p_raw"], row["effect"]) == ("every stage mean is the same", None, None)


def test_two_episodes_of_one_case_in_one_condition_cannot_be_paired():
    frames = tables({"H0": {"score_s": [0.1, 0.2], "case_id": ["c0", "c0"]},
                     "H3": {"score_s": [0.3], "case_id": ["c0"]}})
    with pytest.raises(ValueError, match="one episode per case"):
        stat_table(*frames, [Family("f", ("score_s",), paired=(("H3", "H0"),))])


def test_conditions_can_be_any_episodes_column_such_as_the_doctor():
    frames = tables({"full_info": {"score_s": H3_S}, "random": {"score_s": H0_S}}, label="doctor")
    row = stat_table(*frames, [Family("doctors", ("score_s",), paired=(("full_info", "random"),))], label="doctor",
                     **QUICK).row(0, named=True)
    assert row["comparison"] == "full_info vs random" and row["p_raw"] == pytest.approx(wilcoxon(H3_S, H0_S).pvalue)


def test_family_declarations_from_mappings_and_their_mistakes():
    family = Family.from_mapping({"family": "x", "endpoints": ["score_s"], "paired": [["H3", "H0"]],
                                  "omnibus": [["E0", "E1", "E2"]], "trend": ["G1"]})
    assert family == Family("x", ("score_s",), (("H3", "H0"),), (("E0", "E1", "E2"),), ("G1",))
    for bad, message in (({"family": "x", "endpoints": ["score_s"]}, "no paired"),
                         ({"family": "x", "endpoints": ["score_s"], "paired": [["H3", "H3"]]}, "two different"),
                         ({"family": "x", "endpoints": ["score_s"], "omnibus": [["E0", "E1"]]}, "three or more"),
                         ({"family": "x", "endpoints": [], "trend": ["G1"]}, "no endpoint"),
                         ({"family": "x", "endpoints": ["score_s"], "pairs": [["A", "B"]]}, "keys")):
        with pytest.raises(ValueError, match=message):
            Family.from_mapping(bad)
    (heldout_family,) = declared_families("heldout")
    assert heldout_family.paired == (("H3", "H0"),) and "utility_u" in heldout_family.endpoints
    assert {f.name for f in declared_families("update")} >= {"update_g0_trends", "update_g1_trends"}
    with pytest.raises(KeyError, match="no families declared"):
        declared_families("nonsense")


def test_unknown_endpoints_and_a_trend_without_stages_are_refused():
    frames = heldout()
    with pytest.raises(ValueError, match="not in episode_scores: nonsense"):
        stat_table(*frames, [Family("f", ("nonsense",), paired=(("H3", "H0"),))])
    with pytest.raises(ValueError, match="stage"):
        stat_table(*frames, [Family("f", ("score_s",), trend=("H3",))])


def test_the_table_satisfies_the_stat_tests_contract():
    table = stat_table(*heldout(), [HELDOUT], **QUICK)
    assert table.columns == list(schemas.get("stat_tests").columns)
    schemas.validate("stat_tests", table)
    assert (table["p_holm"] >= table["p_raw"]).all()
    assert stat_table(*heldout(), []).height == 0
    broken = table.with_columns(pl.col("p_raw") + 0.5)
    with pytest.raises(schemas.ContractError):
        schemas.validate("stat_tests", broken)
