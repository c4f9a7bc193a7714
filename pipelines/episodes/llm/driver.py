"""Running episodes with LLM roles: many episodes at once on one asyncio loop.

:func:`run_llm_episodes` (or :func:`run_llm_episodes_async` inside a running loop) runs one doctor
(``llm``, or an offline doctor) with a patient (``offline`` or ``llm``) and a consultant
(``offline`` or ``llm``) under one preset on a list of cases, and returns the same ``runs``,
``episodes`` and ``episode_events`` frames as :func:`pipelines.episodes.controller.run_episodes`
(``doctor_model`` and ``patient_model`` filled), plus the request ledger and the run's resource
summary (:class:`LLMRun`).

How it runs. Each episode is a coroutine that drives its own
:class:`~pipelines.episodes.environment.DiagnosticEpisode` step by step; the engine's steps are
fast and synchronous, so the coroutine only awaits the doctor's completion. A step that calls an
LLM patient or consultant (ASK, CALL_MDT) runs in a worker thread of a pool sized to the
in-flight bound, and the role's facade submits its request to the loop
(:class:`~pipelines.episodes.llm.client.Bridge`): one client, one semaphore and one ledger serve
every role of every episode. Before anything is sent, the egress guard checks every case of the
run against every LLM role's host; a refusal raises
:class:`~pipelines.episodes.llm.egress.EgressRefused` and the run does not start.

LLM faults never crash a run: a doctor request that fails after its retries is an error turn
(it consumes budget and is counted), and so is an output that is unusable after normalising;
a failed patient or consultant request gives a fixed non-answer. Every request is in the ledger.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import polars as pl

import schemas
from pipelines.episodes.actions import Ask, CallMdt
from pipelines.episodes.controller import (EpisodeResult, begin, dispatch, episode_frames, episode_row, parse_turn,
                                           run_row)
from pipelines.episodes.engine import Consultant, Memory
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows
from pipelines.episodes.llm import CONSULTANTS_LLM, DOCTORS_LLM, LLM, PATIENTS_LLM, llm_roles
from pipelines.episodes.llm.client import Bridge, HttpClientFactory, LLMClient, LLMFault, Tags
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.llm.egress import DataOrigin, EgressGuard
from pipelines.episodes.llm.ledger import Ledger, per_episode
from pipelines.episodes.llm.roles import LLMConsultant, LLMDoctor, LLMPatient
from pipelines.episodes.patient import Patient
from pipelines.episodes.settings import EpisodeSettings, episode_seed
from pipelines.episodes.store import CaseStore, EpisodeCase



@dataclass(frozen=True)
class LLMRun:
    """A run's frames (as ``run_episodes`` returns them), its request ledger and resource summary."""

    runs: pl.DataFrame
    episodes: pl.DataFrame
    events: pl.DataFrame
    requests: pl.DataFrame  # one row per LLM request (pipelines/episodes/llm/ledger.py)
    resources: dict[str, Any]  # the run's totals (MedEvoEval Table 10), for asset metadata

    @property
    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        return self.runs, self.episodes, self.events

    def per_episode(self) -> pl.DataFrame:
        """The ledger summed per episode and role."""
        return per_episode(self.requests)


def case_origins(store: CaseStore) -> dict[str, DataOrigin]:
    """Each case's ``source`` and ``dataset`` (None where the store lacks them: restricted)."""
    frame = store.cases
    sources = frame["source"].to_list() if "source" in frame.columns else [None] * frame.height
    datasets = frame["dataset"].to_list() if "dataset" in frame.columns else [None] * frame.height
    return {c: DataOrigin(s, d) for c, s, d in zip(frame["case_id"].to_list(), sources, datasets)}


def check_egress(guard: EgressGuard, config: LLMConfig, roles: Sequence[str], origins: Sequence[DataOrigin],
                 case_ids: Sequence[str]) -> None:
    """Refuse the run before any request if any of its cases may not go to any role's host."""
    for role in roles:
        base_url = config.role(role).base_url
        refused = [c for c, o in zip(case_ids, origins) if not guard.permits(base_url, o)]
        if refused:
            origin = origins[list(case_ids).index(refused[0])]
            guard.check(base_url, origin, role, f", {len(refused)} case(s) of this run, e.g. {refused[0]}")


class _Run:
    """What the episodes of one LLM run share on the loop."""

    def __init__(self, run_id: str, client: LLMClient, bridge: Bridge, origins: dict[str, DataOrigin],
                 patient: str, consultant: str):
        self.run_id, self.client, self.bridge, self.origins = run_id, client, bridge, origins
        self.patient, self.consultant = patient, consultant

    def tags(self, episode: str, case_id: str) -> Tags:
        return Tags(episode, case_id, self.origins.get(case_id, DataOrigin(None, None)))


class LLMEpisodeSettings(EpisodeSettings):
    """Episode settings whose patient and consultant may be LLM facades (the role hooks)."""

    def __init__(self, store: CaseStore, preset_name: str, seed: int, run: _Run, **overrides: Any):
        super().__init__(store, preset_name, seed, **overrides)
        self._run = run

    def patient(self, case: EpisodeCase, episode: str, seed: int) -> Patient:
        if self._run.patient != LLM:
            return super().patient(case, episode, seed)
        return LLMPatient(case.patient, self._run.bridge, self._run.tags(episode, case.case_id),
                          episode_seed(seed, case.case_id))

    def consultant(self, case: EpisodeCase, episode: str) -> Consultant:
        if self._run.consultant != LLM:
            return super().consultant(case, episode)
        return LLMConsultant(self._run.bridge, self._run.tags(episode, case.case_id))


async def _episode(settings: LLMEpisodeSettings, run: _Run, executor: ThreadPoolExecutor, doctor_name: str,
                   normalise_outputs: bool, case_id: str, condition: str) -> EpisodeResult:
    start = time.perf_counter()
    loop = asyncio.get_running_loop()
    episode = DiagnosticEpisode(settings)
    observation = episode.reset(case_id=case_id, run_id=run.run_id)
    engine = episode.engine
    seed = episode_seed(settings.seed, case_id)
    if doctor_name == LLM:
        doctor: Any = LLMDoctor(run.client, run.tags(engine.episode_id, case_id), normalise_outputs=normalise_outputs,
                                catalog=settings.store.catalog)
    else:
        doctor = settings.doctor(doctor_name, seed, engine.config)
    begin(doctor, settings, engine, case_id, observation)
    while not engine.done:
        if doctor_name == LLM:
            try:
                turn = await doctor.act(observation, engine.tally)
            except LLMFault as fault:
                observation = engine.error_turn("", str(fault))
                continue
            if turn.action is None:
                observation = engine.error_turn(turn.raw, turn.error or "unusable output")
                continue
            action = turn.action
        else:
            action, observation = parse_turn(engine, doctor.act(observation))
            if action is None:
                continue
        threaded = (isinstance(action, Ask) and run.patient == LLM) or \
                   (isinstance(action, CallMdt) and run.consultant == LLM)
        if threaded:
            observation = await loop.run_in_executor(executor, dispatch, episode, action)
        else:
            observation = dispatch(episode, action)
    row = episode_row(engine, run.run_id, case_id, condition, doctor_name, run.patient, seed, start)
    return row, event_rows(engine.episode_id, engine.events)


def llm_run_row(settings: EpisodeSettings, run_id: str, doctor: str, patient: str, consultant: str,
                condition: str, case_selection: str, llm: LLMConfig,
                memory: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """The ``runs`` row of a run with LLM roles: the offline row plus the consultant, each LLM role's
    endpoint and sampling (never its key) and the doctor's and patient's models."""
    used = llm_roles(doctor, patient, consultant)
    runs = run_row(settings, run_id, doctor, patient, condition, case_selection, memory)
    config = json.loads(runs["config"].item()) | {"consultant": consultant, "llm": llm.public(used)}
    models = llm.models(used)
    runs = runs.with_columns(pl.lit(models.get("doctor"), pl.Utf8).alias("doctor_model"),
                             pl.lit(models.get("patient"), pl.Utf8).alias("patient_model"),
                             pl.lit(json.dumps(config, sort_keys=True)).alias("config"))
    return schemas.conform("runs", runs)


async def run_llm_episodes_async(store: CaseStore, doctor: str, patient: str, preset: str,
                                 cases: Sequence[str] | None, seed: int, run_id: str, *,
                                 llm: LLMConfig | None = None, consultant: str = "offline",
                                 condition: str = "baseline", case_selection: str | None = None,
                                 http_client: HttpClientFactory | None = None, memory: Memory | None = None,
                                 **overrides: Any) -> LLMRun:
    """Run ``doctor`` with ``patient`` and ``consultant`` on ``cases`` (default: the test split);
    ``llm`` defaults to :meth:`LLMConfig.from_env`. ``http_client`` builds each endpoint's
    ``httpx2.AsyncClient`` (tests, benchmarks); by default the SDK's, with no redirects and no proxy.
    ``memory``: the experience memory shown before every doctor decision (None: off)."""
    for name, value, known in (("doctor", doctor, DOCTORS_LLM), ("patient", patient, PATIENTS_LLM),
                               ("consultant", consultant, CONSULTANTS_LLM)):
        if value not in known:
            raise KeyError(f"no {name} {value!r}; known: {', '.join(known)}")
    llm = llm if llm is not None else LLMConfig.from_env()
    used = llm_roles(doctor, patient, consultant)
    llm.models(used)  # an unconfigured role fails now
    case_ids = list(cases) if cases is not None else store.case_ids("test")
    origins = case_origins(store)
    for case_id in case_ids:
        if case_id not in origins:
            raise KeyError(f"no case {case_id!r} in the store")
    check_egress(EgressGuard(llm.allowed_hosts), llm, used, [origins[c] for c in case_ids], case_ids)

    ledger = Ledger(run_id)
    client = LLMClient(llm, ledger, http_client=http_client)
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=llm.max_in_flight + 1, thread_name_prefix="clinverse-llm")
    run = _Run(run_id, client, Bridge(client, loop), origins, patient, consultant)
    settings = LLMEpisodeSettings(store, preset, seed, run, memory=memory, **overrides)
    start = time.perf_counter()
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_episode(settings, run, executor, doctor, llm.normalise, case_id, condition))
                     for case_id in case_ids]
    finally:
        await client.aclose()
        executor.shutdown(wait=False, cancel_futures=True)
    wall_s = time.perf_counter() - start
    results = [task.result() for task in tasks]

    selection = case_selection or ("test split" if cases is None else f"{len(case_ids)} given case ids")
    runs = llm_run_row(settings, run_id, doctor, patient, consultant, condition, selection, llm)
    episodes, events = episode_frames(results)
    resources = ledger.summary(wall_s, llm.max_in_flight) | {
        "episodes": episodes.height, "error_turns": int(episodes["n_error_turns"].sum() or 0)}
    return LLMRun(runs, episodes, events, ledger.frame(), resources)


def run_llm_episodes(store: CaseStore, doctor: str, patient: str, preset: str, cases: Sequence[str] | None,
                     seed: int, run_id: str, **options: Any) -> LLMRun:
    """:func:`run_llm_episodes_async` on a fresh event loop (from synchronous code)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_llm_episodes_async(store, doctor, patient, preset, cases, seed, run_id, **options))
    raise RuntimeError("run_llm_episodes was called inside a running event loop; await run_llm_episodes_async")
