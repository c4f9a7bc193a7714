"""The verifiers environment package on a copy of the demo warehouse: ``load_environment``, the
patient on its own OpenAI-compatible endpoint, and ``vf-eval clinverse-env`` end to end against a
loopback server whose scripted policy asks, orders a test and finalises through native tool calls.
Each rollout's rewards must be the project's scores of the episode its tools drove, and that
episode the one the same calls give on the engine directly."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import verifiers.v1 as vf

from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, ToolCall, turn_of
from pipelines.evaluation.reward import store_references
from pipelines.training import verifiers_env
from pipelines.training.trl_env import tool_instruction

pytestmark = pytest.mark.slow

PRESET = "medevoeval"  # no results predictor to fit
VF_EVAL = Path(sys.executable).with_name("vf-eval")
QUESTIONS = ["What brings you in today?", "Any other symptoms?"]
EVIDENCE, PLAN, FOLLOW_UP = ["the history"], ["treat the cause"], ["review in a week"]


@pytest.fixture(scope="module")
def home(demo_home, tmp_path_factory):
    return shutil.copytree(demo_home, tmp_path_factory.mktemp("vf") / "home", symlinks=True)


@pytest.fixture(scope="module")
def settings(home):
    return verifiers_env.offline_settings(home, PRESET, verifiers_env.DEFAULT_SEED)


@pytest.fixture(scope="module")
def case(settings):
    """The first train case, what the scripted doctor orders (its first exam that matters) and
    what it concludes (the true code)."""
    case_id = sorted(settings.store.case_ids("train"))[0]
    targets = store_references(settings.store)[case_id].targets
    return {"case_id": case_id, "manager": settings.store.case(case_id).manager,
            "exam": targets[0].exam_name if targets else settings.store.catalog.names[0]}


def test_load_environment_gives_the_cases_their_tools_and_the_weighted_rewards(home, settings):
    environment = verifiers_env.load_environment(home=str(home), preset=PRESET)
    tasks = list(environment.taskset.take(2))
    case_ids = sorted(settings.store.case_ids("train"))
    assert [t.data.case_id for t in tasks] == [t.key for t in tasks] == case_ids[:2]
    assert tasks[0].data.prompt == DiagnosticEpisode(settings).reset(case_id=case_ids[0])
    assert tasks[0].data.system_prompt == tool_instruction()
    assert type(environment) is verifiers_env.ClinverseEnv
    assert type(environment._harnesses["agent"]) is verifiers_env.ChatHarness  # no shell for the doctor
    assert environment.config.agent.runtime.type == "subprocess"
    tools = verifiers_env.DiagnosticTask.toolsets(tasks[0].config)
    assert [type(t) for t in tools] == [verifiers_env.EpisodeToolset] and tools[0].config.home == str(home)
    weights = {fn.__name__: fn._vf_weight for fn in tasks[0].hooks("reward")}
    assert weights == {"s": 1.0, "u": 0.0, "icr": 0.0, "toc": 0.0, "atc": 0.0, "dca": 0.0, "dsa": 0.0}
    test = verifiers_env.load_environment(split="test", home=str(home), preset=PRESET)
    assert [t.data.case_id for t in test.taskset.take(3)] == sorted(settings.store.case_ids("test"))[:3]
    with pytest.raises(ValueError, match="split"):
        list(verifiers_env.load_environment(split="dev", home=str(home), preset=PRESET).taskset)


def test_the_patient_is_a_model_on_its_own_endpoint(home, case):
    reply = json.dumps({"utterance": "It started two days ago.", "facts": []})
    with FakeOpenAI(lambda body: Reply(reply)) as patient:
        config = verifiers_env.EpisodeToolsConfig(home=str(home), preset=PRESET, patient_base_url=patient.base_url,
                                                  patient_model="patient-sim")

        async def one_question():
            toolset = verifiers_env.EpisodeToolset(config)
            await toolset.setup_task(verifiers_env.DiagnosticData(case_id=case["case_id"]))
            return await toolset.ask(QUESTIONS[:1]), toolset.state

        observation, state = asyncio.run(one_question())
    assert "It started two days ago." in observation
    assert patient.models() == ["patient-sim"]
    assert QUESTIONS[0] in patient.requests[0]["messages"][-1]["content"]
    assert [(e["actor"], e["action"]) for e in state.events[-2:]] == [("doctor", "ASK"), ("patient", "REPLY")]
    assert state.episode["case_id"] == case["case_id"] and not state.done


def test_a_rollout_that_called_no_tool_is_scored_on_the_episode_as_it_opened(home, settings, case):
    task = next(iter(verifiers_env.load_environment(home=str(home), preset=PRESET).taskset.take(1)))
    trace = vf.Trace(task=vf.TraceTask(type="DiagnosticTask", data=task.data), state=verifiers_env.EpisodeState(),
                     agent=vf.AgentInfo(config=vf.AgentConfig()))

    async def close():
        await task.finalize(trace, None)
        await task.score(trace)

    asyncio.run(close())
    opened = DiagnosticEpisode(settings)
    opened.reset(case_id=case["case_id"])
    episode, events = verifiers_env.episode_record(opened, case["case_id"])
    assert trace.info["clinverse"]["events"] == events and [e["action"] for e in events] == ["START"]
    scores = verifiers_env.score_record(store_references(settings.store), settings, episode, events)
    assert {name: r.score for name, r in trace.rewards.items()} == pytest.approx(
        {name: scores[column] for name, (column, _) in verifiers_env.REWARDS.items()}, abs=1e-12)
    assert trace.reward == scores["score_s"] == 0.0


def scripted_doctor(case, requests):
    """The policy: ask, order one examination, finalise on the true code, then stop talking."""
    manager = case["manager"]
    script = [ToolCall("ask", {"questions": QUESTIONS}), ToolCall("request_test", {"names": [case["exam"]]}),
              ToolCall("finalize", {"diagnosis": manager.diagnosis_name, "icd10": manager.primary_icd10,
                                    "evidence": EVIDENCE, "plan": PLAN, "follow_up": FOLLOW_UP})]

    def respond(body):
        requests.append(body)
        turn = turn_of(body)
        return Reply(tool_calls=(script[turn],)) if turn < len(script) else Reply("Done.")
    return respond


def replay(settings, case):
    """The scripted calls straight on a DiagnosticEpisode: the record the tools should have filed."""
    episode = DiagnosticEpisode(settings)
    episode.reset(case_id=case["case_id"])
    episode.ask(QUESTIONS)
    episode.request_test([case["exam"]])
    episode.finalize(case["manager"].diagnosis_name, case["manager"].primary_icd10, EVIDENCE, PLAN, FOLLOW_UP)
    return episode, verifiers_env.episode_record(episode, case["case_id"])


def test_vf_eval_scores_each_rollout_with_the_projects_scorer(home, tmp_path, settings, case):
    requests = []
    with FakeOpenAI(scripted_doctor(case, requests)) as policy:
        command = [str(VF_EVAL), "clinverse-env", "-m", "scripted-doctor", "--client.base-url", policy.base_url,
                   "--client.api-key-var", "CLINVERSE_POLICY_KEY", "-n", "1", "-r", "2", "--no-push",
                   "-o", str(tmp_path), "--run.dir", "run", "--env.taskset.task.tools.home", str(home),
                   "--env.taskset.task.tools.preset", PRESET]
        done = subprocess.run(command, capture_output=True, text=True, timeout=400,
                              env={**os.environ, "CLINVERSE_POLICY_KEY": "loopback"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    episodes = [json.loads(line) for line in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    traces = [trace for episode in episodes for trace in episode["traces"]]
    assert len(traces) == 2 and all(t["ok"] for t in traces)
    assert len(requests) == 6  # three turns a rollout: the stop ends it once the episode is finalised
    for body in requests:  # the episode's methods, their docstrings as the descriptions
        tools = {tool["function"]["name"]: tool["function"] for tool in body["tools"]}
        assert sorted(tools) == ["ask", "call_mdt", "finalize", "request_test"]
        assert tools["ask"]["description"] == DiagnosticEpisode.ask.__doc__.strip()
        assert tools["finalize"]["parameters"]["required"] == ["diagnosis", "icd10", "evidence", "plan", "follow_up"]

    episode, (expected_episode, expected_events) = replay(settings, case)
    scores = verifiers_env.score_record(store_references(settings.store), settings, expected_episode, expected_events)
    for trace in traces:  # both members of the group: the same case, the same episode, the same scores
        assert trace["task"]["data"]["case_id"] == case["case_id"] and trace["stop_condition"] == "episode_over"
        filed = trace["info"]["clinverse"]
        assert filed["episode"] == expected_episode and filed["events"] == expected_events
        rewards = trace["rewards"]
        assert {name: r["score"] for name, r in rewards.items()} == pytest.approx(
            {name: scores[column] for name, (column, _) in verifiers_env.REWARDS.items()}, abs=1e-12)
        weights = {name: weight for name, (_, weight) in verifiers_env.REWARDS.items()}
        assert {name: r["weight"] for name, r in rewards.items()} == weights
        assert rewards["s"]["score"] == pytest.approx(episode.get_reward(), abs=1e-12)  # the TRL reward too
    assert scores["score_s"] > 0 and scores["dca"] == 1.0 and scores["turns_t"] == 2
