"""Every score on hand-computed traces: ICR, TOC, ATC, exam precision / recall / F1, DCA, DSA,
S_diag, S_evi, S_plan, S, U, strict and pass, with empty denominators, repeated and unsupported
requests, a plan without a management rubric, an acceptable_icd10 alternative and an unsupported
evidence claim; then the conditions (full information, oracle block) and the live reward."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from evaluation_cases import HF, HF_TRACE, MEDEVOEVAL, PNEUMONIA, episode, event, finalize

from pipelines.episodes.actions import Finalize, RequestTest
from pipelines.episodes.controller import dispatch
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.settings import EpisodeSettings
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.scores import Conditions, exam_choice, exam_choice_by_case, score_traces, summary


def score(refs, *traces, conditions=MEDEVOEVAL):
    return score_traces(list(traces), refs, {"run": conditions}, OfflineJudge()).to_dicts()


def test_a_trace_with_repeated_and_unsupported_requests_scores_as_computed_by_hand(refs):
    (row,) = score(refs, episode(HF, HF_TRACE, n_tests=4, n_invalid=2))
    # hidden: 1 key, 3 supporting, 2 background (weights 1, 0.5, 0.25 -> 3.0); the key one elicited
    assert (row["n_hidden_key"], row["n_hidden_supporting"], row["n_hidden_background"]) == (1, 3, 2)
    assert row["n_elicited_key"] == 1 and row["icr"] == pytest.approx(1 / 3.0)
    # the first 3 exams that matter (all abnormal): only NT-proBNP was returned, once however often asked
    assert (row["n_exams_matter"], row["n_matter_ordered"], row["toc"]) == (3, 1, pytest.approx(1 / 3))
    assert (row["n_abnormal_matter"], row["n_abnormal_surfaced"], row["atc"]) == (3, 1, pytest.approx(1 / 3))
    # ordered {NT-proBNP, Troponin, Lipase} against the 4 exams that matter
    assert (row["n_exams_ordered"], row["n_targets"], row["n_targets_ordered"]) == (3, 4, 1)
    assert row["exam_precision"] == pytest.approx(1 / 3) and row["exam_recall"] == pytest.approx(1 / 4)
    assert row["exam_f1"] == pytest.approx(2 / 7)
    assert (row["dca"], row["dsa"], row["s_diag"], row["strict"]) == (1.0, 1.0, 1.0, True)
    # evidence: the swelling and the BNP match; "troponin elevated" was never shown (h = 1)
    assert (row["k_evi"], row["m_evi"], row["h_evi"]) == (3, 2, 1)
    assert row["s_evi"] == pytest.approx((2 - 0.5) / 3)
    # plan: "IV furosemide" meets "Furosemide (diuretic)"; a treatment asserts no finding
    assert (row["k_plan"], row["m_plan"], row["h_plan"], row["s_plan"]) == (1, 1, 0, 1.0)
    assert row["score_s"] == pytest.approx(0.5 + 0.3 * 0.5 + 0.2) and row["pass"]
    # T = 1 ASK + 4 REQUEST_TEST + 1 error turn (CALL_MDT and FINALIZE do not count); E = 4; R = 2 / 4
    assert (row["turns_t"], row["tests_e"], row["invalid_rate_r"], row["c_t"], row["e_max"]) == (6, 4, 0.5, 10, 3)
    assert row["utility_u"] == pytest.approx(0.6 * 0.85 - 0.2 * 6 / 10 - 0.1 * 4 / 3 - 0.1 * 0.5)
    assert not row["plan_redistributed"] and not row["full_information"] and row["judge_error"] is None


def test_the_examination_limit_caps_what_toc_and_atc_ask_for(refs):
    clinverse = Conditions(action_budget=20, test_limit=10)
    (row,) = score(refs, episode(HF, HF_TRACE, n_tests=4, n_invalid=2), conditions=clinverse)
    assert (row["n_exams_matter"], row["n_abnormal_matter"], row["toc"], row["atc"]) == (4, 3, 0.25, pytest.approx(1 / 3))
    assert row["utility_u"] == pytest.approx(0.6 * 0.85 - 0.2 * 6 / 20 - 0.1 * 4 / 10 - 0.1 * 0.5)


def test_empty_denominators_score_one(refs):
    trace = episode(HF, [finalize(1, "Heart failure", "I50.9")])
    bare = replace(refs[HF], hidden={}, targets=())
    refs._built[HF] = bare  # a case with nothing hidden and no exam that matters
    try:
        (row,) = score(refs, trace)
    finally:
        del refs._built[HF]
    assert (row["icr"], row["toc"], row["atc"]) == (1.0, 1.0, 1.0)
    assert (row["exam_precision"], row["exam_recall"], row["exam_f1"]) == (1.0, 1.0, 1.0)
    assert row["tests_e"] == 0 and row["invalid_rate_r"] == 0.0


def test_exam_choice_counts_an_episode_that_ordered_nothing_as_a_miss():
    matter = frozenset({"A", "B"})
    assert exam_choice([(frozenset(), matter), (frozenset({"A", "C"}), matter), (frozenset({"C"}), frozenset()),
                        (frozenset(), frozenset())]) == [(0.0, 0.0, 0.0), (0.5, 0.5, 0.5), (0.0, 1.0, 0.0),
                                                          (1.0, 1.0, 1.0)]


def test_per_case_exam_choice_keeps_cases_that_ordered_nothing(refs):
    nothing = episode(PNEUMONIA, [finalize(1, "Pneumonia", "J18.9")], suffix="2")
    rows = score_traces([episode(HF, HF_TRACE, n_tests=4, n_invalid=2), nothing], refs, {"run": MEDEVOEVAL},
                        OfflineJudge())
    by_case = exam_choice_by_case(rows)
    assert by_case.height == 2 and by_case.filter(by_case["case_id"] == PNEUMONIA)["ordered_any"].item() is False
    assert summary(rows)["case_exam_precision"] == pytest.approx((1 / 3 + 0.0) / 2, abs=1e-4)


def test_a_case_without_management_redistributes_the_plan_weight(refs):
    trace = episode(PNEUMONIA, [finalize(1, "Pneumonia", "J18.9", evidence=["cough with green sputum"],
                                         plan=["antibiotics"])], suffix="2")
    (row,) = score(refs, trace)
    assert row["plan_redistributed"] and row["k_plan"] == 0 and row["s_plan"] is None
    # "cough with green sputum" was never revealed here: it matches its key point and is unsupported
    assert (row["k_evi"], row["m_evi"], row["h_evi"]) == (2, 1, 1)
    assert row["s_evi"] == pytest.approx((1 - 0.5) / 2)
    assert row["score_s"] == pytest.approx(0.625 * 1.0 + 0.375 * 0.25)


def test_an_acceptable_icd10_alternative_counts_as_the_true_code(refs):
    alternative = episode(PNEUMONIA, [finalize(1, "Bacterial pneumonia", "J15.9")], suffix="2")
    elsewhere = episode(HF, [finalize(1, "Pneumonia", "J15.9")], suffix="3")
    same, other = score(refs, alternative, elsewhere)
    assert (same["s_diag"], same["dca"], same["dsa"], same["strict"]) == (1.0, 1.0, 1.0, True)
    assert (other["s_diag"], other["dca"], other["dsa"]) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(("code", "name", "level", "dca", "dsa"), [
    ("I50.9", "something", 1.0, 1.0, 1.0),
    ("R06.0", "heart failure, unspecified", 1.0, 0.0, 0.0),  # an acceptable name, whatever the code
    ("I50.1", "left ventricular failure", 0.75, 1.0, 1.0),  # the category
    ("I51.9", "heart disease", 0.5, 1.0, 0.0),  # the block I30-I5A
    ("I10", "hypertension", 0.25, 0.0, 0.0),  # the chapter
    ("J18.9", "pneumonia", 0.0, 0.0, 0.0),
    ("XYZ", "nonsense", 0.0, 0.0, 0.0),
])
def test_the_diagnosis_levels(refs, code, name, level, dca, dsa):
    (row,) = score(refs, episode(HF, [finalize(1, name, code)]))
    assert (row["s_diag"], row["dca"], row["dsa"]) == (level, dca, dsa)


def test_under_the_oracle_block_a_code_outside_the_block_is_wrong(refs):
    oracle = Conditions(10, 3, oracle_block=True)
    chapter, block = (score(refs, episode(HF, [finalize(1, n, c)]), conditions=oracle)[0]
                      for n, c in (("hypertension", "I10"), ("heart disease", "I51.9")))
    assert chapter["s_diag"] == 0.0 and chapter["oracle_block"] and block["s_diag"] == 0.5


def test_an_episode_that_did_not_finalise_scores_zero(refs):
    trace = episode(HF, [event(1, "doctor", "ERROR", "x", error="bad"), event(1, "controller", "END",
                                                                             "budget_exhausted")])
    (row,) = score(refs, trace)
    assert (row["s_diag"], row["score_s"], row["m_evi"], row["turns_t"]) == (0.0, 0.0, 0, 1)
    assert row["utility_u"] == pytest.approx(-0.2 / 10)


def test_the_full_information_doctor_collected_the_whole_case(refs):
    final = finalize(1, "Heart failure", "I50.9", evidence=["Sodium: 131 mmol/L", "swelling of both legs for a week"])
    full, partial = score(refs, episode(HF, [final], doctor="full_info"),
                          episode(HF, [final], doctor="retrieval", suffix="2"))
    assert full["full_information"] and (full["icr"], full["toc"], full["atc"], full["exam_recall"]) == (1, 1, 1, 1)
    assert full["h_evi"] == 0 and partial["h_evi"] == 2  # the same claims, never shown to the other doctor
    assert full["m_evi"] == partial["m_evi"] == 1


def test_get_reward_is_the_outcome_score_once_rubrics_exist(scoring_store, plain_store):
    settings = EpisodeSettings(scoring_store, "medevoeval", 7)
    env = DiagnosticEpisode(settings)
    env.reset(case_id=HF)
    dispatch(env, RequestTest(("NT-proBNP",)))
    assert env.get_reward() == 0.0  # not finalised yet
    dispatch(env, Finalize("Heart failure, unspecified", "I50.9", ("elevated NT-proBNP",), ("furosemide",), ()))
    # S_diag 1, evidence 1 of 3 matched, plan 1 of 1: 0.5 + 0.3 / 3 + 0.2
    assert env.get_reward() == pytest.approx(0.8)
    plain = DiagnosticEpisode(EpisodeSettings(plain_store, "medevoeval", 7))  # no rubrics: block agreement
    plain.reset(case_id=HF)
    dispatch(plain, Finalize("Heart disease", "I51.9", (), (), ()))
    assert plain.get_reward() == 1.0


def test_the_trace_reads_counts_from_the_episode_row_and_events():
    trace = episode(HF, HF_TRACE, n_tests=4, n_invalid=2)
    assert trace.returned == {"NT-proBNP"} and trace.ordered == {"NT-proBNP", "Troponin", "Lipase"}
    assert trace.final.icd10 == "I50.9" and json.loads(HF_TRACE[-2]["content"])["action"] == "FINALIZE"


def test_the_oracle_block_setting_gives_the_true_block_in_the_opening(plain_store):
    opening = DiagnosticEpisode(EpisodeSettings(plain_store, "medevoeval", 7, oracle_block=True)).reset(case_id=HF)
    assert "ICD-10 block I30-I5A" in opening
    assert "I30-I5A" not in DiagnosticEpisode(EpisodeSettings(plain_store, "medevoeval", 7)).reset(case_id=HF)
