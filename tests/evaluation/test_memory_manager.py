"""The manager's write-back (pipelines/evaluation/memory/manager.py, llm_manager.py): the offline
templates over hand-made scored traces, and the LLM manager against the loopback server."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from evaluation_cases import HF, HF_TRACE, MEDEVOEVAL, PNEUMONIA, UNIT, episode, event, finalize, result

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.egress import DataOrigin, EgressRefused
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, last_user
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.memory.cards import read_card, units
from pipelines.evaluation.memory.llm_manager import LLMManager, ManagerOutputError, parse_cards
from pipelines.evaluation.memory.manager import OfflineManager, ScoredEpisode
from pipelines.evaluation.scores import score_traces

HF_SEEN = "A 70-year-old man presenting with shortness of breath. swelling of both legs for a week"


def _scored(refs, case, events, n_tests=0, n_invalid=0, **case_changes) -> ScoredEpisode:
    trace = episode(case, events, n_tests=n_tests, n_invalid=n_invalid)
    score = score_traces([trace], refs, {"run": MEDEVOEVAL}, OfflineJudge()).row(0, named=True)
    return ScoredEpisode(trace, tuple(events), score, refs[case], replace(refs.store.case(case), **case_changes))


def _texts(drafts) -> list[tuple[str, str]]:
    return [(d.memory_type, d.rule_text) for d in drafts]


def test_a_right_diagnosis_writes_a_success_card_and_two_rules(refs):
    drafts = OfflineManager().cards(_scored(refs, HF, HF_TRACE, n_tests=4, n_invalid=2))
    assert _texts(drafts) == [
        ("success", f"IF {HF_SEEN} THEN diagnose Heart failure, unspecified [I50.9] and order NT-proBNP first."),
        ("rule", f"ACTION=REQUEST_TEST NT-proBNP early IF {HF_SEEN}."),
        # the final evidence cites no reply: no question was needed for it
        ("rule", "ACTION=FINALIZE after 0 questions IF A 70-year-old man presenting with shortness of breath."),
    ]
    assert drafts[0].search_text == f"{HF_SEEN} Heart failure, unspecified I50.9 NT-proBNP"


def test_the_finalise_rule_counts_the_questions_up_to_the_last_cited_reply(refs):
    cited = [*HF_TRACE[:-2], finalize(8, "Heart failure, unspecified", "I50.9",
                                      evidence=["My legs have been swelling for a week.", "elevated NT-proBNP"]),
             HF_TRACE[-1]]
    rule = OfflineManager().cards(_scored(refs, HF, cited, n_tests=4, n_invalid=2))[-1]
    assert rule.rule_text.startswith("ACTION=FINALIZE after 1 questions IF")


def test_a_wrong_diagnosis_writes_a_correction_card(refs):
    events = [event(0, "controller", "START", "opening"),
              event(1, "doctor", "ASK", '{"action": "ASK", "question": "Any cough?"}'),
              event(1, "patient", "REPLY", "I have a cough with green sputum and chills.", unit_ids=[UNIT("05", 1)]),
              event(2, "doctor", "REQUEST_TEST", "{}", test_name="Lipase"), result(2, "Lipase", "not_in_case", False),
              finalize(3, "Heart failure, unspecified", "I50.9", evidence=["cough"]),
              event(3, "controller", "END", "finalized")]
    drafts = OfflineManager().cards(_scored(refs, PNEUMONIA, events, n_tests=1, n_invalid=1))
    avoid = ("IF A 35-year-old man presenting with fever. cough with green sputum and chills AVOID Heart failure, "
             "unspecified [I50.9] and skip Lipase.")
    assert _texts(drafts) == [("correction", avoid)]


def test_an_episode_without_a_final_diagnosis_leaves_no_verdict(refs):
    events = [event(0, "controller", "START", "opening"), event(1, "controller", "END", "budget_exhausted")]
    assert OfflineManager().cards(_scored(refs, HF, events)) == []


def test_every_card_fits_80_units_and_stays_readable(refs):
    long = " ".join(["breathless"] * 120)
    drafts = OfflineManager().cards(_scored(refs, HF, HF_TRACE, n_tests=4, n_invalid=2, presentation=long))
    assert len(drafts) == 3 and all(units(d.rule_text) <= 80 and units(d.search_text) <= 80 for d in drafts)
    assert all(read_card(d.rule_text) is not None for d in drafts)


# --------------------------------------------------------------------------------- LLM manager

GOOD = {"cards": [{"memory_type": "success", "rule_text": "IF breathless with swollen legs THEN diagnose heart "
                   "failure and order NT-proBNP first " + "really " * 90, "search_text": "breathless legs NT-proBNP"},
                  {"memory_type": "rule", "rule_text": "ACTION=FINALIZE once the legs are swollen.",
                   "search_text": "legs"}]}


def _llm(base_url: str, **role) -> LLMConfig:
    return LLMConfig({"manager": RoleConfig("manager", base_url, "manager-model", max_attempts=1, backoff_s=0, **role)})


def test_the_llm_manager_writes_cards_through_the_loopback_server(refs):
    def answer(body):
        prompt = last_user(body)
        assert "What the doctor was shown:" in prompt and "Verdict: the diagnosis was right" in prompt
        assert "Tests that returned an abnormal result: NT-proBNP" in prompt
        return Reply(f"```json\n{json.dumps(GOOD)}\n```")

    with FakeOpenAI(answer) as server:
        manager = LLMManager(_llm(server.base_url), run_id="run")
        drafts = manager.cards(_scored(refs, HF, HF_TRACE, n_tests=4, n_invalid=2))
    assert [d.memory_type for d in drafts] == ["success", "rule"] and units(drafts[0].rule_text) == 80
    assert manager.errors == []
    requests = manager.requests()
    assert requests["role"].to_list() == ["manager"] and requests["parsed"].to_list() == [True]
    assert manager.requests().height == 0  # the ledger starts again after each batch


@pytest.mark.parametrize(("reply", "problem"), [
    (Reply("Heart failure, well done."), "no JSON object"),
    (Reply(json.dumps({"cards": []})), "1 to 3 cards"),
    (Reply(json.dumps({"cards": [{"memory_type": "rule", "rule_text": "IF legs THEN rest", "search_text": ""}]})),
     "a rule card must read"),
    (Reply(status=500), "server_error"),
])
def test_an_unusable_answer_falls_back_to_the_offline_cards(refs, reply, problem):
    scored = _scored(refs, HF, HF_TRACE, n_tests=4, n_invalid=2)
    with FakeOpenAI(lambda body: reply) as server:
        manager = LLMManager(_llm(server.base_url), run_id="run")
        drafts = manager.cards(scored)
    assert drafts == OfflineManager().cards(scored)
    assert len(manager.errors) == 1 and problem in manager.errors[0][1]


def test_parse_cards_checks_the_shape_of_each_card():
    assert [d.memory_type for d in parse_cards(json.dumps(GOOD))] == ["success", "rule"]
    with pytest.raises(ManagerOutputError, match="memory_type must be one of"):
        parse_cards(json.dumps({"cards": [{"memory_type": "advice", "rule_text": "x", "search_text": ""}]}))
    with pytest.raises(ManagerOutputError, match="exactly the text fields"):
        parse_cards(json.dumps({"cards": [{"memory_type": "rule", "rule_text": "ACTION=ASK"}]}))


def test_the_egress_guard_refuses_restricted_cases_before_anything_is_sent(refs):
    restricted = replace(_scored(refs, HF, HF_TRACE), reference=replace(refs[HF], origin=DataOrigin("mimic_iv",
                                                                                                   "mimic-iv-2.2")))
    with FakeOpenAI(lambda body: Reply(json.dumps(GOOD))) as server:
        manager = LLMManager(_llm("http://manager.example.org/v1"), http_client=server.http_client)
        with pytest.raises(EgressRefused, match="manager.example.org"):
            manager.check([(HF, restricted.reference.origin)])
        with pytest.raises(EgressRefused):
            manager.cards(restricted)
        assert server.requests == []
    with pytest.raises(KeyError, match="manager role"):
        LLMManager(LLMConfig())
