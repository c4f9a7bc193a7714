"""The OpenAI-compatible backend against a scripted server on loopback (pipelines/episodes/llm/loopback.py).

Covers a whole LLM-doctor episode, the LLM patient (its view, the self-check) and consultant,
unusable output as error turns, 5xx retried and counted, timeouts as error turns after retries,
the normaliser switch, the bound on requests in flight, the resource ledger, the configuration,
and the egress guard (refusal before any connection; MedQA, demo and allow-listed hosts pass).
"""

from __future__ import annotations

import asyncio
import json
import socket

import polars as pl
import pytest
from episode_cases import case_id, frames

import schemas
from pipelines.config import SettingError
from pipelines.episodes.actions import TEMPLATE_FIELDS, Ask, Finalize, RequestTest
from pipelines.episodes.llm.client import Bridge, LLMClient, LLMFault, Tags
from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.driver import run_llm_episodes
from pipelines.episodes.llm.egress import DataOrigin, EgressRefused, is_loopback
from pipelines.episodes.llm.ledger import Ledger
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, first_user, last_user, turn_of
from pipelines.episodes.llm.normalise import TestNames, normalise
from pipelines.episodes.llm.roles import LLMPatient, prompts
from pipelines.episodes.store import CaseStore

HF, PNEUMONIA = case_id("01"), case_id("05")
REMOTE = "http://llm.example.org:8000/v1"
FINAL = {"action": "FINALIZE", "diagnosis": ["Heart failure"], "icd10": "I50.9", "evidence": ["raised NT-proBNP"],
         "plan": ["diuretics"], "followup": ["clinic in a week"]}
SCRIPT = [{"action": "ASK", "question": "Have your legs been swollen?"},
          {"action": "REQUEST_TEST", "test_name": "NT-proBNP"}, FINAL]


def scripted(*outputs: object, patient: str = "Yes, both legs, for about a week.", facts=(2,),
             consultant: dict | None = None, delay: float = 0.0):
    """A responder: the doctor's outputs by turn (the last repeats), a patient and a consultant."""
    texts = [o if isinstance(o, str) else json.dumps(o) for o in outputs]

    def respond(body):
        if body["model"] == "patient-model":
            return Reply(json.dumps({"utterance": patient, "facts": list(facts)}), delay=delay)
        if body["model"] == "consultant-model":
            return Reply(json.dumps(consultant or {"advice_action": "FINALIZE", "consult_opinion": "Looks cardiac.",
                                                   "recommended_diagnosis": ["heart failure"], "confidence": 0.8}))
        return Reply(texts[min(turn_of(body), len(texts) - 1)], delay=delay)

    return respond


def config(base_url: str, roles=("doctor",), **role_options) -> LLMConfig:
    options = {"timeout_s": 5.0, "max_attempts": 3, "backoff_s": 0.01} | role_options
    return LLMConfig({r: RoleConfig(r, base_url, f"{r}-model", **options) for r in roles})


def run(store, server_url, responder=None, *, cases=(HF,), patient="offline", preset="medevoeval", llm=None,
        **options):
    llm = llm or config(server_url, ("doctor", "patient", "consultant"))
    return run_llm_episodes(store, "llm", patient, preset, list(cases), 7, "llm-run", llm=llm, **options)


def kinds(result, case=HF):
    episode = result.episodes.filter(pl.col("case_id") == case)["episode_id"].item()
    return [(t, a, x) for t, a, x in result.events.filter(pl.col("episode_id") == episode)
            .select("turn", "actor", "action").iter_rows()]


def store_with(source: str, dataset: str) -> CaseStore:
    tables = frames()
    tables["cases"] = tables["cases"].with_columns(pl.lit(source).alias("source"), pl.lit(dataset).alias("dataset"))
    return CaseStore(tables)


@pytest.fixture
def no_sockets(monkeypatch):
    """Record (and refuse) every name lookup and connection the process attempts."""
    attempts = []

    def refuse(kind):
        def fail(*args, **kwargs):
            attempts.append((kind, args[1:] if kind == "connect" else args[:2]))
            raise OSError(f"the test forbids network access ({kind})")
        return fail

    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect"))
    return attempts


# ----------------------------------------------------------------------------------------- episodes


def test_a_whole_episode_with_an_llm_doctor_produces_a_trace(store):
    with FakeOpenAI(scripted(*SCRIPT)) as server:
        result = run(store, server.base_url)
    assert kinds(result) == [(0, "controller", "START"), (1, "doctor", "ASK"), (1, "patient", "REPLY"),
                             (2, "doctor", "REQUEST_TEST"), (2, "lab", "RESULT"), (3, "doctor", "FINALIZE"),
                             (3, "controller", "END")]
    episode = result.episodes.row(0, named=True)
    assert (episode["termination"], episode["final_icd10"], episode["n_error_turns"]) == ("finalized", "I50.9", 0)
    assert result.events.filter(pl.col("actor") == "lab")["match_type"].to_list() == ["exact"]
    runs = result.runs.row(0, named=True)
    assert (runs["doctor"], runs["doctor_model"], runs["patient_simulator"], runs["patient_model"]) == \
        ("llm", "doctor-model", "offline", None)
    assert "api_key" not in runs["config"] and json.loads(runs["config"])["llm"]["roles"]["doctor"]["model"]
    for table, frame in zip(("runs", "episodes", "episode_events"), result.frames):
        schemas.conform(table, frame)
    # The doctor's prompts: MedEvoEval's Prompt B.1 with Template B.1 + icd10, the catalog, the opening.
    first = server.requests[0]["messages"]
    assert first[0]["role"] == "system" and '"icd10": "string"' in first[0]["content"]
    assert "NT-proBNP" in first[0]["content"] and "A 70-year-old man" in first[1]["content"]
    assert "Turn 1 of 10" in first[1]["content"]
    # The ledger: one row per request, with the tokens the server reported.
    ledger = result.requests
    assert ledger.height == 3 and ledger["status"].to_list() == ["ok"] * 3
    assert ledger["turn"].to_list() == [1, 2, 3] and ledger["parsed"].all()
    assert ledger["prompt_tokens"].sum() == server.prompt_tokens > 0
    assert result.resources["completion_tokens"] == server.completion_tokens
    assert result.resources["requests"] == 3 and result.resources["by_role"]["doctor"]["requests"] == 3
    assert result.resources["wall_s"] > 0
    per_episode = result.per_episode().row(0, named=True)
    assert (per_episode["role"], per_episode["requests"], per_episode["failed"]) == ("doctor", 3, 0)


def test_an_offline_doctor_can_talk_to_the_llm_patient(store):
    with FakeOpenAI(scripted(*SCRIPT)) as server:
        result = run_llm_episodes(store, "retrieval", "llm", "medevoeval", [HF], 7, "r",
                                  llm=config(server.base_url, ("patient",)))
    assert result.episodes["termination"].item() == "finalized"
    assert set(server.models()) == {"patient-model"} and result.requests.height == len(server.requests) > 0
    assert (result.runs["doctor_model"].item(), result.runs["patient_model"].item()) == (None, "patient-model")


def test_the_bridge_refuses_to_block_the_event_loop():
    async def call():
        Bridge(None, asyncio.get_running_loop()).complete("patient", [], None)  # type: ignore[arg-type]

    with pytest.raises(RuntimeError, match="worker thread"):
        asyncio.run(call())


def test_the_llm_patient_speaks_from_its_view_through_the_self_check(store):
    def respond(body):
        if body["model"] != "patient-model":
            return scripted({"action": "ASK", "question": "Have your legs been swollen? Anything else?"}, FINAL)(body)
        if "Anything else" in last_user(body):
            return Reply(json.dumps({"utterance": "They said my NT-proBNP was 5400.", "facts": []}))
        return Reply(json.dumps({"utterance": "Yes, both legs, for a week.", "facts": [2, 99, "x"]}))

    with FakeOpenAI(respond) as server:
        result = run(store, server.base_url, respond, patient="llm")
    replies = result.events.filter(pl.col("actor") == "patient")
    assert replies["content"][0] == "Yes, both legs, for a week."
    assert replies["unit_ids"].to_list()[0] == [store.case(HF).patient.units[1].unit_id]
    assert replies["self_check"].to_list() == ["passed", "blocked"]  # the leaked value never reaches the doctor
    assert "5400" not in " ".join(replies["content"])
    assert result.runs["patient_model"].item() == "patient-model"
    system = next(r for r in server.requests if r["model"] == "patient-model")["messages"][0]["content"]
    assert "swelling of both legs for a week" in system and "a sentence or two" in system  # its speech style
    assert "5400" not in system and "Heart failure" not in system and "I50" not in system


def test_the_llm_patient_is_built_from_the_patient_view_only(store):
    case = store.case(HF)
    with pytest.raises(TypeError):
        LLMPatient(case.exams, None, Tags("e", HF, DataOrigin("medqa", "x")), 1)  # type: ignore[arg-type]


def test_the_llm_consultant_reviews_the_transcript(store):
    with FakeOpenAI(scripted(SCRIPT[1], {"action": "CALL_MDT", "question": "What do you think?"}, FINAL)) as server:
        result = run(store, server.base_url, consultant="llm")
    advice = result.events.filter(pl.col("actor") == "consultant")["content"].item()
    assert advice.startswith("Consultant's review: Looks cardiac.") and "Suggested diagnosis: heart failure" in advice
    consultant = next(r for r in server.requests if r["model"] == "consultant-model")
    assert "5400" in consultant["messages"][1]["content"]  # it reads what the doctor has learnt


# -------------------------------------------------------------------------------------------- faults


def test_unusable_output_is_an_error_turn_that_consumes_budget(store):
    with FakeOpenAI(scripted("I think this is heart failure.")) as server:
        result = run(store, server.base_url, cases=(HF, PNEUMONIA))
    assert result.episodes["termination"].to_list() == ["budget_exhausted"] * 2
    assert result.episodes["n_error_turns"].to_list() == [10, 10] and result.episodes["turns"].to_list() == [10, 10]
    errors = result.events.filter(pl.col("action") == "ERROR")
    assert errors["content"][0] == "I think this is heart failure." and "no JSON object" in errors["error"][0]
    assert result.requests.height == 20 and not result.requests["parsed"].any()
    assert result.resources["unparsed_outputs"] == 20 and result.resources["error_turns"] == 20


def test_a_server_error_is_retried_and_counted(store):
    calls = []

    def respond(body):
        calls.append(body)
        return Reply(status=500) if len(calls) == 1 else scripted(*SCRIPT)(body)

    with FakeOpenAI(respond) as server:
        result = run(store, server.base_url)
    assert result.episodes["termination"].item() == "finalized" and result.episodes["n_error_turns"].item() == 0
    first = result.requests.row(0, named=True)
    assert (first["status"], first["attempts"], first["retries"]) == ("ok", 2, 1)
    assert len(server.requests) == 4 and result.resources["requests"] == 3
    assert (result.resources["attempts"], result.resources["retries"]) == (4, 1)


def test_a_server_that_keeps_failing_gives_error_turns_not_a_crash(store):
    with FakeOpenAI(lambda body: Reply(status=503)) as server:
        result = run(store, server.base_url, llm=config(server.base_url, max_attempts=2), action_budget=3)
    assert result.episodes["termination"].item() == "budget_exhausted" and result.episodes["n_error_turns"].item() == 3
    assert result.requests["status"].to_list() == ["server_error"] * 3 and len(server.requests) == 6
    assert (result.resources["failed"], result.resources["retries"]) == (3, 3)


def test_client_errors_are_not_retried(store):
    calls = []

    def respond(body):
        calls.append(body)
        return Reply(status=400) if len(calls) == 1 else scripted(*SCRIPT)(body)

    with FakeOpenAI(respond) as server:
        result = run(store, server.base_url)
    assert len(server.requests) == 4  # 400 once, then the three turns
    first = result.requests.row(0, named=True)
    assert (first["status"], first["attempts"], first["retries"]) == ("client_error", 1, 0)
    errors = result.events.filter(pl.col("action") == "ERROR")
    assert errors.height == 1 and "HTTP 400" in errors["error"].item()
    assert result.episodes["termination"].item() == "finalized"


def test_a_timeout_becomes_an_error_turn_after_retries_and_the_run_goes_on(store):
    slow = []

    def respond(body):  # the heart-failure case's first request times out on both attempts
        if "70-year-old" in first_user(body) and len(slow) < 2:
            slow.append(body)
            return Reply(json.dumps(SCRIPT[0]), delay=1.0)
        return scripted(*SCRIPT)(body)

    with FakeOpenAI(respond) as server:
        llm = config(server.base_url, timeout_s=0.2, max_attempts=2, backoff_s=0.01)
        result = run(store, server.base_url, cases=(HF, PNEUMONIA), llm=llm)
    hf = result.episodes.filter(pl.col("case_id") == HF).row(0, named=True)
    assert (hf["termination"], hf["n_error_turns"]) == ("finalized", 1)
    error = result.events.filter(pl.col("action") == "ERROR").row(0, named=True)
    assert error["turn"] == 1 and "timeout" in error["error"] and "2 attempt" in error["error"]
    timed_out = result.requests.filter(pl.col("status") == "timeout").row(0, named=True)
    assert (timed_out["attempts"], timed_out["retries"]) == (2, 1) and timed_out["latency_s"] >= 0.4
    assert result.resources["failed"] == 1
    other = result.episodes.filter(pl.col("case_id") == PNEUMONIA)
    assert other["termination"].item() == "finalized" and other["n_error_turns"].item() == 0
    # The failed turn's observation is said again with the next one (no two user messages in a row).
    retried = [r for r in server.requests if "70-year-old" in first_user(r) and turn_of(r) == 0]
    assert len(retried) == 3 and [m["role"] for m in retried[-1]["messages"]] == ["system", "user"]
    assert "A 70-year-old man" in retried[-1]["messages"][1]["content"]


# -------------------------------------------------------------------------------------- normaliser


REPAIRABLE = ("Here is my decision:\n```json\n{'action': 'finalise', 'diagnosis': 'Heart failure', 'ICD-10': 'i50.9', "
              "'evidence': ['raised NT-proBNP'], 'plan': ['diuretics'], 'follow_up': ['clinic'],}\n```")


@pytest.mark.parametrize("on", [True, False])
def test_the_normaliser_switch_changes_the_outcome_on_repairable_output(store, on):
    with FakeOpenAI(scripted(REPAIRABLE)) as server:
        result = run(store, server.base_url, llm=LLMConfig(config(server.base_url).roles, normalise=on))
    episode = result.episodes.row(0, named=True)
    if on:
        assert (episode["termination"], episode["final_icd10"], episode["turns"]) == ("finalized", "I50.9", 1)
        repairs = result.requests["repairs"].item()
        assert {"fence", "surrounding_text", "single_quotes", "trailing_comma", "action:finalise->FINALIZE",
                "field:follow_up->followup", "icd10:i50.9->I50.9"} <= set(repairs)
        assert result.resources["repaired_outputs"] == 1
    else:
        assert (episode["termination"], episode["n_error_turns"]) == ("budget_exhausted", 10)
        assert result.resources["repaired_outputs"] == 0 and result.resources["unparsed_outputs"] == 10
    assert json.loads(result.runs["config"].item())["llm"]["normalise"] is on


def test_the_normaliser_maps_only_uniquely_mappable_test_names(store):
    names = TestNames(store.catalog.names + ("CBC",), store.catalog)
    assert names.map("hemoglobin") == "Hemoglobin"
    assert names.map("Hgb") == "Hemoglobin" and names.map("CXR") == "Chest X-ray"
    assert names.map("complete blood count") == "CBC"  # a panel alias (exam vocabulary)
    assert names.map("WBC") is None  # two catalog exams carry it
    assert names.map("glucose") == "Glucose"  # the canonical name wins over an alias
    assert names.map("Troponin") is None
    out = normalise('{"action": "order_tests", "test_name": ["Hgb", "WBC", "proBNP"]}', names)
    assert json.loads(out.text)["test_name"] == ["Hemoglobin", "WBC", "NT-proBNP"]
    assert set(out.repairs) == {"action:order_tests->REQUEST_TEST", "test:Hgb->Hemoglobin", "test:proBNP->NT-proBNP"}


@pytest.mark.parametrize(("raw", "action"), [
    ('{"action": "ask", "question": ["Any fever?", "Any cough?"]}', Ask(("Any fever?", "Any cough?"))),
    ('{"action": "Request Tests", "tests": "Na", "extra": 1}', RequestTest(("Sodium",))),
    ("[{'action': 'diagnose', 'diagnosis': ['Pneumonia'], 'icd10': 'j189', 'plan': [], 'needs_mdt': False}]",
     Finalize("Pneumonia", "J18.9", (), (), ())),
    ('{"action": "ASK", "utterance": "When did it start?"}', Ask(("When did it start?",))),
])
def test_the_normaliser_repairs_json_fields_and_aliases(store, raw, action):
    from pipelines.episodes import actions

    out = normalise(raw, TestNames(store.catalog.names, store.catalog))
    assert actions.parse(out.text) == action and out.repairs


@pytest.mark.parametrize("raw", ["no json here", "{'action': 'ASK', 'question': }", "[1, 2]", ""])
def test_unrepairable_output_stays_unusable(raw):
    assert normalise(raw).text is None and normalise(raw).error


def test_the_doctor_template_is_template_b1_plus_icd10():
    assert set(json.loads(prompts("doctor")["template"])) == TEMPLATE_FIELDS
    assert "icd10" in TEMPLATE_FIELDS


# ------------------------------------------------------------------------------------- concurrency


def test_requests_in_flight_are_bounded_across_episodes_and_roles(store):
    cases = store.case_ids()
    with FakeOpenAI(scripted(SCRIPT[0], FINAL, delay=0.05)) as server:
        result = run(store, server.base_url, cases=cases, patient="llm",
                     llm=LLMConfig(config(server.base_url, ("doctor", "patient")).roles, max_in_flight=2))
    assert result.episodes.height == 5 and set(result.episodes["termination"]) == {"finalized"}
    assert 1 < server.max_in_flight <= 2
    assert 1 < result.resources["max_in_flight"] <= 2 and result.resources["max_in_flight_limit"] == 2
    assert result.resources["by_role"]["patient"]["requests"] == 5
    assert result.resources["requests"] == len(server.requests) == 15


# -------------------------------------------------------------------------------------- egress guard


@pytest.mark.parametrize("source", ["mimic_iv", "sicdb"])
def test_egress_refuses_restricted_text_to_a_host_not_allow_listed_before_any_connection(no_sockets, source):
    store = store_with(source, "mimic-iv-2.2" if source == "mimic_iv" else "sicdb-1.0")
    with pytest.raises(EgressRefused) as refused:  # the SDK's own HTTP client: it would resolve and connect
        run_llm_episodes(store, "llm", "offline", "medevoeval", [HF], 7, "r", llm=config(REMOTE))
    message = str(refused.value)
    assert "llm.example.org" in message and source in message and "CLINVERSE_LLM_ALLOWED_HOSTS" in message
    assert no_sockets == []
    with FakeOpenAI(scripted(*SCRIPT)) as server, pytest.raises(EgressRefused):
        run_llm_episodes(store, "llm", "offline", "medevoeval", [HF], 7, "r", llm=config(REMOTE),
                         http_client=server.http_client)
    assert server.requests == []


def test_the_socket_recorder_sees_a_request_the_guard_lets_through(no_sockets):
    async def send():
        client = LLMClient(config(REMOTE, max_attempts=1), Ledger("r"))
        try:
            await client.complete("doctor", [{"role": "user", "content": "hi"}],
                                  Tags("e", HF, DataOrigin("medqa", "medqa-usmle")))
        finally:
            await client.aclose()

    with pytest.raises(LLMFault, match="connection_error"):
        asyncio.run(send())
    assert no_sockets  # so an empty record above means no lookup and no connection was attempted


def test_egress_is_checked_again_before_each_request(no_sockets):
    async def send():
        client = LLMClient(config(REMOTE), Ledger("r"))
        try:
            await client.complete("doctor", [{"role": "user", "content": "hi"}],
                                  Tags("e", HF, DataOrigin("mimic_iv", "mimic-iv-2.2")))
        finally:
            await client.aclose()
        return client

    with pytest.raises(EgressRefused, match="llm.example.org"):
        asyncio.run(send())
    assert no_sockets == []


@pytest.mark.parametrize(("source", "dataset"), [("medqa", "medqa-usmle"), ("mimic_iv", "demo")])
def test_egress_lets_medqa_and_demo_text_go_anywhere(no_sockets, source, dataset):
    with FakeOpenAI(scripted(*SCRIPT)) as server:
        result = run_llm_episodes(store_with(source, dataset), "llm", "offline", "medevoeval", [HF], 7, "r",
                                  llm=config(REMOTE), http_client=server.http_client)
    assert result.episodes["termination"].item() == "finalized" and len(server.requests) == 3
    assert result.requests["host"].unique().to_list() == ["llm.example.org"]
    assert no_sockets == []


def test_egress_lets_restricted_text_go_to_an_allow_listed_host(no_sockets, monkeypatch):
    monkeypatch.setenv("CLINVERSE_LLM_DOCTOR_BASE_URL", REMOTE)
    monkeypatch.setenv("CLINVERSE_LLM_MODEL", "doctor-model")
    monkeypatch.setenv("CLINVERSE_LLM_ALLOWED_HOSTS", " other.example , LLM.example.org ")
    with FakeOpenAI(scripted(*SCRIPT)) as server:
        result = run_llm_episodes(store_with("mimic_iv", "mimic-iv-2.2"), "llm", "offline", "medevoeval", [HF], 7,
                                  "r", http_client=server.http_client)
    assert result.episodes["termination"].item() == "finalized" and no_sockets == []


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("LOCALHOST.", True), ("::ffff:127.0.0.1", True), ("128.0.0.1", False), ("0.0.0.0", False),
    ("10.0.0.5", False), ("localhost.example.com", False), ("127.0.0.1.nip.io", False), ("api.openai.com", False),
])
def test_loopback_is_recognised_as_written(host, loopback):
    assert is_loopback(host) is loopback


def test_origins_that_are_restricted():
    assert DataOrigin("mimic_iv", "mimic-iv-2.2").restricted and DataOrigin("sicdb", "sicdb").restricted
    assert DataOrigin(None, None).restricted  # unknown: fail closed
    assert not DataOrigin("medqa", "medqa-usmle").restricted and not DataOrigin("mimic_iv", "demo").restricted


# -------------------------------------------------------------------------------------- configuration


def test_role_configuration_from_the_environment():
    env = {"CLINVERSE_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "CLINVERSE_LLM_MODEL": "shared",
           "CLINVERSE_LLM_API_KEY": "secret-key", "CLINVERSE_LLM_PATIENT_MODEL": "small",
           "CLINVERSE_LLM_PATIENT_TEMPERATURE": "0.7", "CLINVERSE_LLM_MAX_IN_FLIGHT": "64",
           "CLINVERSE_LLM_NORMALISE": "0"}
    llm = LLMConfig.from_env(env)
    assert sorted(llm.roles) == ["consultant", "doctor", "judge", "manager", "patient"]
    assert (llm.role("doctor").model, llm.role("patient").model, llm.role("patient").temperature) == \
        ("shared", "small", 0.7)
    assert (llm.role("doctor").max_tokens, llm.role("patient").max_tokens) == (1200, 500)  # MedEvoEval Table 9
    assert (llm.max_in_flight, llm.normalise) == (64, False)
    assert "secret-key" not in repr(llm) and "secret-key" not in json.dumps(llm.public(("doctor",)))
    with pytest.raises(SettingError, match="CLINVERSE_LLM_DOCTOR_TIMEOUT_S"):
        LLMConfig.from_env(env | {"CLINVERSE_LLM_DOCTOR_TIMEOUT_S": "soon"})
    with pytest.raises(KeyError, match="CLINVERSE_LLM_DOCTOR_BASE_URL"):
        LLMConfig.from_env({}).role("doctor")
    with pytest.raises(SettingError, match="CLINVERSE_LLM_NORMALISE: cannot read 'maybe'; write 1 or 0"):
        LLMConfig.from_env(env | {"CLINVERSE_LLM_NORMALISE": "maybe"})
    with pytest.raises(SettingError, match="CLINVERSE_LLM_CONSULTANT_BASE_URL: .*http"):
        LLMConfig.from_env(env | {"CLINVERSE_LLM_CONSULTANT_BASE_URL": "localhost:8000"})
    with pytest.raises(SettingError, match="CLINVERSE_LLM_PATIENT_MODEL: a model name is required"):
        LLMConfig.from_env({"CLINVERSE_LLM_PATIENT_BASE_URL": "http://127.0.0.1:9/v1"})
    assert RoleConfig("doctor", "http://x/v1", "m", backoff_s=0.5).backoff(3) == 2.0
