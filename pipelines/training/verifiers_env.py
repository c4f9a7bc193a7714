"""The verifiers environment: the one episode engine and the one scorer as a verifiers taskset.

Targets verifiers 0.4.0 and its ``verifiers.v1`` API generation (a Taskset yields Tasks; a Task
names its per-rollout tool servers, a Toolset, and scores a finished Trace with ``@reward``
methods; a Harness runs the policy's program), the one that version ships. The installable
package environments/clinverse_env exports what is here, which is what ``vf-eval clinverse-env``
resolves, and ``load_environment(**args)`` builds the same environment in Python.

* :class:`ClinverseTaskset` yields one :class:`DiagnosticTask` per case of a split (train unless
  ``split`` says test), in case id order: the tool instruction as the system prompt, the
  episode's opening as the prompt.
* Per rollout verifiers starts :class:`EpisodeToolset` as its own MCP server
  (``python -m pipelines.training.verifiers_env``). It resets a
  :class:`~pipelines.episodes.environment.DiagnosticEpisode` on the task's case (deterministic per
  case, so every rollout of a group meets the same patient) and serves the episode's methods
  ``ask``, ``request_test``, ``call_mdt`` and ``finalize`` as the tools, with their docstrings.
  After each call it copies the episode's record (the ``episodes`` counts and the
  ``episode_events`` rows) into the rollout state, which verifiers syncs back to the host.
* The task files that record in the trace (``trace.info["clinverse"]``, so ``traces.jsonl`` can
  be re-scored) and scores it with the project's scorer (pipelines/evaluation: the trace, the
  offline judge, ``score_rows``): rewards ``s`` (weight 1) and ``u``, ``icr``, ``toc``, ``atc``,
  ``dca``, ``dsa`` (weight 0: reported; ``--env.taskset.task.rewards.NAME.weight`` re-weights
  them). A rollout that never called a tool is scored on the episode as it opened.
* The patient is offline by default, or a model on its own OpenAI-compatible endpoint
  (``patient_base_url``, ``patient_model``), called from the tool server through
  pipelines/episodes/llm behind the egress guard. Its requests never pass verifiers'
  interception, so the patient is never the policy and never trained.
* :class:`ChatHarness` (the taskset's default harness) is verifiers' own null-harness chat
  program, chat completions with the tools and no shell, run on the interpreter of this
  environment (whose packages are the ones the program declares) when the runtime is a local
  subprocess, instead of a script environment that uv would download at run time; and
  :class:`ClinverseEnv` seats the doctor in a local subprocess by default (verifiers' default
  is a remote sandbox, which a program that runs no code does not need).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.harnesses.null import NullHarness

from pipelines.config import environment_values
from pipelines.episodes.engine import EpisodeOver
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows
from pipelines.episodes.llm.client import Bridge, LLMClient, Tags
from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.driver import case_origins
from pipelines.episodes.llm.egress import EgressGuard
from pipelines.episodes.llm.ledger import Ledger
from pipelines.episodes.llm.roles import LLMPatient
from pipelines.episodes.patient import Patient
from pipelines.episodes.settings import DEFAULT_HOME, DEFAULT_PRESET, DEFAULT_SEED, EpisodeSettings, episode_seed
from pipelines.episodes.store import CaseStore, EpisodeCase
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.reference import References
from pipelines.evaluation.reward import TRAINER, store_references
from pipelines.evaluation.scores import Conditions, score_rows
from pipelines.evaluation.trace import trace_of
from pipelines.training.trl_env import SPLITS, tool_instruction

TASKSET_ID = "clinverse-env"
RUN = "verifiers"  # the run id of every live record (the scores need one)
REWARDS = {"s": ("score_s", 1.0), "u": ("utility_u", 0.0), "icr": ("icr", 0.0), "toc": ("toc", 0.0),
           "atc": ("atc", 0.0), "dca": ("dca", 0.0), "dsa": ("dsa", 0.0)}  # reward -> (episode_scores column, weight)


class EpisodeToolsConfig(vf.ToolsetConfig):
    """What every episode of the run shares (``--env.taskset.task.tools.*``)."""

    home: str = ""
    """The warehouse; empty: CLINVERSE_HOME, else ./warehouse."""
    preset: str = DEFAULT_PRESET
    seed: int = DEFAULT_SEED
    patient_base_url: str = ""
    """The patient model's OpenAI-compatible endpoint; empty: the offline patient."""
    patient_model: str = ""
    patient_api_key_var: str = ""
    """The variable holding the patient endpoint's key; empty: none (local servers accept any).
    A local subprocess runtime hands the tool server no variable whose name holds API_KEY."""


class EpisodeState(vf.State):
    """The rollout's episode record, as the tool server last left it."""

    episode: dict[str, Any] = Field(default_factory=dict)  # the ``episodes`` fields the scores read
    events: list[dict[str, Any]] = Field(default_factory=list)  # its ``episode_events`` rows
    done: bool = False


class DiagnosticData(vf.TaskData):
    case_id: str


def warehouse_home(value: str) -> Path:
    """The configured warehouse, else the one every ClinVerse command uses (CLINVERSE_HOME)."""
    return Path(value or environment_values("build").get("home") or DEFAULT_HOME)


@cache
def store_at(home: Path) -> CaseStore:
    return CaseStore.from_home(home)


def episode_record(episode: DiagnosticEpisode, case_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What the scores read of a live episode: its ``episodes`` fields and its event rows."""
    engine, tally = episode.engine, episode.engine.tally
    row = {"episode_id": engine.episode_id, "run_id": RUN, "case_id": case_id, "doctor": TRAINER,
           "n_tests": tally.n_tests, "n_invalid_tests": tally.n_invalid_tests}
    return row, event_rows(engine.episode_id, engine.events)


def score_record(references: References, settings: EpisodeSettings, episode: dict[str, Any],
                 events: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``episode_scores`` row of a record, graded by the offline judge under the run's preset."""
    config = settings.config()
    conditions = Conditions(config.action_budget, config.test_limit, config.oracle_block)
    return score_rows([trace_of(episode, events)], references, {episode["run_id"]: conditions}, OfflineJudge())[0]


class PatientSettings(EpisodeSettings):
    """Episode settings whose patient is the LLM patient of pipelines/episodes/llm, on its own
    endpoint, reached from the tool server's worker thread through the loop's client."""

    def __init__(self, store: CaseStore, preset_name: str, seed: int, bridge: Bridge):
        super().__init__(store, preset_name, seed)
        self._bridge = bridge
        self._origins = case_origins(store)

    def patient(self, case: EpisodeCase, episode: str, seed: int) -> Patient:
        tags = Tags(episode, case.case_id, self._origins[case.case_id])
        return LLMPatient(case.patient, self._bridge, tags, episode_seed(seed, case.case_id))


@cache
def offline_settings(home: Path, preset_name: str, seed: int) -> EpisodeSettings:
    return EpisodeSettings(store_at(home), preset_name, seed)


class EpisodeToolset(vf.Toolset[EpisodeToolsConfig, EpisodeState]):
    """One rollout's episode, its methods served as the doctor's tools."""

    TOOL_PREFIX = None  # the tools keep the episode's names

    async def setup_task(self, task: DiagnosticData) -> None:
        config = self.config
        home = warehouse_home(config.home)
        if config.patient_base_url:
            settings = self._patient_settings(home, task.case_id)
        else:
            settings = offline_settings(home, config.preset, config.seed)
        self.case_id = task.case_id
        self.episode = DiagnosticEpisode(settings)
        self.episode.reset(case_id=task.case_id)

    def _patient_settings(self, home: Path, case_id: str) -> PatientSettings:
        """The LLM patient's settings; the egress guard refuses a case its host may not see."""
        config = self.config
        key = os.environ.get(config.patient_api_key_var, "EMPTY") if config.patient_api_key_var else "EMPTY"
        role = RoleConfig("patient", config.patient_base_url, config.patient_model, key)
        llm = LLMConfig({"patient": role}, allowed_hosts=LLMConfig.from_env().allowed_hosts)
        store = store_at(home)
        EgressGuard(llm.allowed_hosts).check(role.base_url, case_origins(store)[case_id], "patient",
                                             f", case {case_id}")
        client = LLMClient(llm, Ledger(RUN))
        self._exit_stack.push_async_callback(client.aclose)  # closed with the server
        return PatientSettings(store, config.preset, config.seed, Bridge(client, asyncio.get_running_loop()))

    async def _call(self, step: Callable[..., str], *args: Any) -> str:
        """One tool call on the episode (in a worker thread: an LLM patient answers through the
        loop), then the record into the rollout state."""
        try:
            observation = await asyncio.to_thread(step, *args)
        except EpisodeOver as over:
            observation = str(over)
        self.state.episode, self.state.events = episode_record(self.episode, self.case_id)
        self.state.done = self.episode.engine.done
        return observation

    @vf.tool
    async def ask(self, questions: list[str]) -> str:
        return await self._call(self.episode.ask, questions)

    @vf.tool
    async def request_test(self, names: list[str]) -> str:
        return await self._call(self.episode.request_test, names)

    @vf.tool
    async def call_mdt(self, question: str) -> str:
        return await self._call(self.episode.call_mdt, question)

    @vf.tool
    async def finalize(self, diagnosis: str, icd10: str, evidence: list[str], plan: list[str],
                       follow_up: list[str]) -> str:
        return await self._call(self.episode.finalize, diagnosis, icd10, evidence, plan, follow_up)

    ask.__doc__ = DiagnosticEpisode.ask.__doc__
    request_test.__doc__ = DiagnosticEpisode.request_test.__doc__
    call_mdt.__doc__ = DiagnosticEpisode.call_mdt.__doc__
    finalize.__doc__ = DiagnosticEpisode.finalize.__doc__


class DiagnosticTaskConfig(vf.TaskConfig):
    tools: EpisodeToolsConfig = EpisodeToolsConfig()


class DiagnosticTask(vf.Task[DiagnosticData, EpisodeState, DiagnosticTaskConfig]):
    """One case: its episode's tools, its stop, and its scores."""

    @classmethod
    def toolsets(cls, config: DiagnosticTaskConfig) -> list[vf.Toolset]:
        return [EpisodeToolset(config.tools)]

    @property
    def key(self) -> str:
        return self.data.case_id

    @vf.stop
    async def episode_over(self, trace: vf.Trace) -> bool:
        """Finalised, or the budget spent: the model is not asked again."""
        return trace.state.done

    async def finalize(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        """File the episode's record in the trace (the episode as it opened if no tool was called)."""
        state: EpisodeState = trace.state
        if state.events:
            episode, events = state.episode, state.events
        else:
            opened = DiagnosticEpisode(self._settings())
            opened.reset(case_id=self.data.case_id)
            episode, events = episode_record(opened, self.data.case_id)
        trace.info["clinverse"] = {"episode": episode, "events": events}

    def _settings(self) -> EpisodeSettings:
        tools = self.config.tools
        return offline_settings(warehouse_home(tools.home), tools.preset, tools.seed)

    def scores(self, trace: vf.Trace) -> dict[str, Any]:
        """The record's ``episode_scores`` row, computed once and filed beside the record."""
        filed = trace.info["clinverse"]
        if "scores" not in filed:
            settings = self._settings()
            filed["scores"] = score_record(store_references(settings.store), settings, filed["episode"],
                                           filed["events"])
        return filed["scores"]

    @vf.reward(weight=REWARDS["s"][1])
    async def s(self, trace: vf.Trace) -> float:
        """The outcome score S = 0.5 S_diag + 0.3 S_evi + 0.2 S_plan."""
        return self.scores(trace)[REWARDS["s"][0]]

    @vf.reward(weight=REWARDS["u"][1])
    async def u(self, trace: vf.Trace) -> float:
        """The utility U: S less the cost of turns, examinations and invalid requests."""
        return self.scores(trace)[REWARDS["u"][0]]

    @vf.reward(weight=REWARDS["icr"][1])
    async def icr(self, trace: vf.Trace) -> float:
        """Information collection rate: the hidden units elicited, weighted by importance."""
        return self.scores(trace)[REWARDS["icr"][0]]

    @vf.reward(weight=REWARDS["toc"][1])
    async def toc(self, trace: vf.Trace) -> float:
        """Test ordering coverage: the examinations that matter ordered."""
        return self.scores(trace)[REWARDS["toc"][0]]

    @vf.reward(weight=REWARDS["atc"][1])
    async def atc(self, trace: vf.Trace) -> float:
        """Abnormal test coverage: the abnormal examinations that matter surfaced."""
        return self.scores(trace)[REWARDS["atc"][0]]

    @vf.reward(weight=REWARDS["dca"][1])
    async def dca(self, trace: vf.Trace) -> float:
        """Diagnosis block agreement (ICD-10 block)."""
        return self.scores(trace)[REWARDS["dca"][0]]

    @vf.reward(weight=REWARDS["dsa"][1])
    async def dsa(self, trace: vf.Trace) -> float:
        """Diagnosis category agreement (ICD-10 category)."""
        return self.scores(trace)[REWARDS["dsa"][0]]


class ClinverseTasksetConfig(vf.TasksetConfig):
    split: str = "train"
    """The cases: train (default) or test."""
    task: DiagnosticTaskConfig = DiagnosticTaskConfig()


class ClinverseTaskset(vf.Taskset[DiagnosticTask, ClinverseTasksetConfig]):
    """One task per case of the split, in case id order."""

    def load(self) -> Iterator[DiagnosticTask]:
        if self.config.split not in SPLITS:
            raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {self.config.split!r}")
        tools = self.config.task.tools
        settings = offline_settings(warehouse_home(tools.home), tools.preset, tools.seed)
        if store_references(settings.store) is None:
            raise ValueError(f"the warehouse at {warehouse_home(tools.home)} has no case_rubrics / case_exam_targets "
                             "to score episodes with: build it first (clinverse build)")
        for case_id in sorted(settings.store.case_ids(self.config.split)):
            opening = DiagnosticEpisode(settings).reset(case_id=case_id)
            yield DiagnosticTask(DiagnosticData(id=case_id, name=case_id, case_id=case_id, prompt=opening,
                                                system_prompt=tool_instruction()), self.config.task)


class _ThisInterpreter:
    """A local runtime whose PEP 723 scripts run on the interpreter running verifiers."""

    def __init__(self, runtime: vf.Runtime):
        self._runtime = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str | bytes, env: dict[str, str] | None = None, *,
                                activate: bool = True) -> list[str]:
        data = script.encode() if isinstance(script, str) else script
        path = f"vf-script-{hashlib.sha256(data).hexdigest()[:16]}.py"
        await self._runtime.write(path, data)
        return [sys.executable, path]


class ChatHarness(NullHarness):
    """The null harness's chat program (the episode's tools, no shell); on a local subprocess
    runtime it runs on this interpreter, which has every package the program declares."""

    async def setup(self, runtime: vf.Runtime) -> None:
        if runtime.type != "subprocess":
            await super().setup(runtime)

    async def launch(self, ctx: vf.ModelContext, trace: vf.Trace, runtime: vf.Runtime, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: vf.TaskData,
                     tool_interception_url: str | None = None) -> vf.ProgramResult:
        local = _ThisInterpreter(runtime) if runtime.type == "subprocess" else runtime
        return await super().launch(ctx, trace, local, endpoint, secret, mcp_urls, data, tool_interception_url)


class ClinverseEnvConfig(vf.SingleAgentEnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The doctor's seat: a local subprocess by default, since its program runs no code."""


class ClinverseEnv(vf.SingleAgentEnv, vf.Env[ClinverseEnvConfig]):
    """The single-agent environment, its seat local by default (``--env.agent.runtime.type``)."""


def load_environment(split: str = "train", **tools: Any) -> vf.Env:
    """The environment ``vf-eval clinverse-env`` runs, built in Python: ``split`` picks the cases,
    ``tools`` are :class:`EpisodeToolsConfig` fields (home, preset, seed, patient_base_url,
    patient_model, patient_api_key_var)."""
    config = vf.resolve_env_config({"taskset": {"id": TASKSET_ID, "split": split, "task": {"tools": tools}}})
    return vf.load_environment(config)


if __name__ == "__main__":  # the tool server verifiers starts per rollout
    EpisodeToolset.run()
