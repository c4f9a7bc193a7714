"""The LLM judge against the loopback OpenAI-compatible server: its grades, its faults (malformed
output, numbers out of range, 5xx, timeouts) recorded and replaced by the offline grades, the
egress guard, and ``alt_judge`` agreement between two judges over the same traces."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from evaluation_cases import HF, HF_TRACE, MEDEVOEVAL, PNEUMONIA, episode, finalize
from scipy.stats import pearsonr
from sklearn.metrics import cohen_kappa_score

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.egress import DataOrigin, EgressRefused
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, last_user
from pipelines.evaluation.agreement import alt_judge
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.llm_judge import LLMJudge
from pipelines.evaluation.scores import score_traces, submission

GOOD = {"diagnosis_level": "code", "evidence_matched": [1, 2], "evidence_unsupported": [3], "plan_matched": [1],
        "plan_unsupported": []}


def _config(base_url: str, **role) -> LLMConfig:
    return LLMConfig({"judge": RoleConfig("judge", base_url, "judge-model", max_attempts=1, backoff_s=0, **role)})


def _traces():
    return [episode(HF, HF_TRACE, n_tests=4, n_invalid=2),
            episode(PNEUMONIA, [finalize(1, "Heart failure", "I50.9", evidence=["cough"])], suffix="2"),
            episode(HF, [{"turn": 1, "actor": "controller", "action": "END", "content": "budget_exhausted"}],
                    suffix="3")]


def _scores(refs, judge):
    return score_traces(_traces(), refs, {"run": MEDEVOEVAL}, judge)


def test_the_llm_judge_grades_through_the_loopback_server(refs):
    def answer(body):
        prompt = last_user(body)
        assert "Reference diagnosis:" in prompt and "What the doctor was shown:" in prompt
        grades = GOOD if "Heart failure, unspecified (ICD-10" in prompt.split("Submitted")[1] else \
            {**GOOD, "diagnosis_level": "none", "evidence_matched": [], "evidence_unsupported": [1], "plan_matched": []}
        return Reply(f"```json\n{json.dumps(grades)}\n```")  # a fenced answer is read all the same

    with FakeOpenAI(answer) as server:
        judge = LLMJudge(_config(server.base_url))
        llm = _scores(refs, judge)
    assert len(server.requests) == 2  # the episode that did not finalise is not sent
    assert llm["judge"].to_list() == ["llm"] * 3 and llm["judge_error"].null_count() == 3
    first = llm.row(0, named=True)
    assert (first["s_diag"], first["m_evi"], first["h_evi"], first["m_plan"]) == (1.0, 2, 1, 1)
    assert llm["s_diag"].to_list() == [1.0, 0.0, 0.0] and judge.ledger.requests[0].role == "judge"
    offline = _scores(refs, OfflineJudge())
    agreement = alt_judge(offline, llm)
    assert agreement["n"] == 3 and agreement["fallbacks_second"] == 0
    assert agreement["strict_kappa"] == pytest.approx(cohen_kappa_score(offline["strict"], llm["strict"]), abs=1e-4)
    assert agreement["s_pearson"] == pytest.approx(pearsonr(offline["score_s"], llm["score_s"]).statistic, abs=1e-4)


@pytest.mark.parametrize(("reply", "problem"), [
    (Reply("I think it is heart failure."), "no JSON object"),
    (Reply(json.dumps({**GOOD, "evidence_matched": [9]})), "evidence_matched holds a number outside 1.."),
    (Reply(json.dumps({**GOOD, "extra": 1})), "exactly the fields"),
    (Reply(json.dumps({**GOOD, "diagnosis_level": "close"})), "diagnosis_level must be one of"),
    (Reply(status=500), "server_error"),
    (Reply(json.dumps(GOOD), delay=2.0), "timeout"),
])
def test_a_judge_fault_is_recorded_and_the_offline_grades_stand_in(refs, reply, problem):
    with FakeOpenAI(lambda body: reply) as server:
        llm = _scores(refs, LLMJudge(_config(server.base_url, timeout_s=0.5)))
    offline = _scores(refs, OfflineJudge())
    errors = llm["judge_error"].to_list()
    assert problem in errors[0] and problem in errors[1] and errors[2] is None
    assert llm["score_s"].to_list() == offline["score_s"].to_list()
    assert alt_judge(offline, llm)["fallbacks_second"] == 2


def test_the_egress_guard_refuses_restricted_text_before_anything_is_sent(refs):
    restricted = replace(refs[HF], origin=DataOrigin("mimic_iv", "mimic-iv-2.2"))
    trace = _traces()[0]
    with FakeOpenAI(lambda body: Reply(json.dumps(GOOD))) as server:
        judge = LLMJudge(_config("http://judge.example.org/v1"), http_client=server.http_client)
        with pytest.raises(EgressRefused, match="judge.example.org"):
            judge.grade([submission(trace, restricted, MEDEVOEVAL)])
        assert server.requests == []
        loopback = LLMJudge(_config(server.base_url)).grade([submission(trace, restricted, MEDEVOEVAL)])
    assert loopback[0].error is None and loopback[0].m_evi == 2


def test_an_unconfigured_judge_fails_at_once():
    with pytest.raises(KeyError, match="judge role"):
        LLMJudge(LLMConfig())
