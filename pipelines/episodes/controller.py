"""Running offline doctors: each doctor output goes through the Template B.1 parser and then
through :class:`DiagnosticEpisode`'s public actions, the same engine a trainer drives.

:func:`run_episodes` runs one doctor with one patient simulator under one preset on a list of
cases and returns the ``runs``, ``episodes`` and ``episode_events`` frames (schemas/). The same
configuration and seed give the same traces; only ``duration_s`` and ``created_at`` differ.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import polars as pl

import schemas
from pipelines.episodes import actions
from pipelines.episodes.actions import Action, Ask, CallMdt, Finalize, ProtocolError, RequestTest
from pipelines.episodes.doctors import Doctor, Opening
from pipelines.episodes.engine import Engine
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows, events_frame
from pipelines.episodes.settings import EpisodeSettings, episode_seed
from pipelines.episodes.store import CaseStore

PATIENTS = ("offline",)
JUDGE = "icd10_block"  # the reward until the evaluation issue's judge exists


def dispatch(episode: DiagnosticEpisode, action: Action) -> str:
    """Carry out a parsed doctor action through the episode's public methods (one engine)."""
    match action:
        case Ask(questions):
            return episode.ask(list(questions))
        case RequestTest(names):
            return episode.request_test(list(names))
        case CallMdt(question):
            return episode.call_mdt(question)
        case Finalize(diagnosis, icd10, evidence, plan, follow_up):
            return episode.finalize(diagnosis, icd10, list(evidence), list(plan), list(follow_up))


EpisodeResult = tuple[dict[str, Any], list[dict[str, Any]]]  # an ``episodes`` row and its event rows


def run_episode(settings: EpisodeSettings, doctor_name: str, case_id: str, run_id: str,
                condition: str = "baseline") -> EpisodeResult:
    """One episode of ``doctor_name`` on ``case_id`` with the offline patient: its ``episodes`` row
    and its event rows."""
    start = time.perf_counter()
    episode = DiagnosticEpisode(settings)
    observation = episode.reset(case_id=case_id, run_id=run_id)
    engine = episode.engine
    seed = episode_seed(settings.seed, case_id)
    doctor = settings.doctor(doctor_name, seed, engine.config)
    begin(doctor, settings, engine, case_id, observation)
    while not engine.done:
        action, observation = parse_turn(engine, doctor.act(observation))
        if action is not None:
            observation = dispatch(episode, action)
    return episode_row(engine, run_id, case_id, condition, doctor_name, "offline", seed, start), \
        event_rows(engine.episode_id, engine.events)


def begin(doctor: Doctor, settings: EpisodeSettings, engine: Engine, case_id: str, observation: str) -> None:
    """Give a doctor its opening: the presentation (as the engine shows it: the whole case under
    ``vignette``, reworded under a shift), what it may order, and (only a privileged doctor such as
    ``full_info``) the case's patient and exam views."""
    case = settings.store.case(case_id)
    doctor.begin(Opening(observation, engine.presentation, settings.catalog_names(engine.config), engine.config,
                         (case.patient, case.exams) if doctor.privileged else None))


def parse_turn(engine: Engine, output: str) -> tuple[Action | None, str | None]:
    """A doctor's output as an action, or (None, the reply to an error turn) when it is unusable."""
    try:
        return actions.parse(output), None
    except ProtocolError as exc:
        return None, engine.error_turn(output, str(exc))


def episode_row(engine: Engine, run_id: str, case_id: str, condition: str, doctor: str, patient: str, seed: int,
                started: float) -> dict[str, Any]:
    """The ``episodes`` row of a finished episode (``started``: its ``time.perf_counter()`` start)."""
    tally, final = engine.tally, engine.final
    return {
        "episode_id": engine.episode_id, "run_id": run_id, "case_id": case_id, "condition": condition,
        "doctor": doctor, "patient_simulator": patient, "seed": seed, "turns": tally.turns,
        "n_questions": tally.n_questions, "n_tests": tally.n_tests, "n_invalid_tests": tally.n_invalid_tests,
        "n_error_turns": tally.n_error_turns, "called_mdt": tally.mdt_calls > 0, "termination": engine.termination,
        "final_diagnosis": final.diagnosis if final else None, "final_icd10": final.icd10 if final else None,
        "duration_s": time.perf_counter() - started,
    }


def run_episodes(store: CaseStore, doctor: str, patient: str, preset: str, cases: Sequence[str] | None, seed: int,
                 run_id: str, *, condition: str = "baseline", case_selection: str | None = None,
                 **overrides: Any) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Run ``doctor`` on ``cases`` (default: the test split); returns (runs, episodes, episode_events)."""
    if patient not in PATIENTS:
        raise KeyError(f"no patient simulator {patient!r}; known: {PATIENTS}")
    settings = EpisodeSettings(store, preset, seed, **overrides)
    case_ids = list(cases) if cases is not None else store.case_ids("test")
    results = [run_episode(settings, doctor, case_id, run_id, condition) for case_id in case_ids]
    runs = run_row(settings, run_id, doctor, patient, condition,
                   case_selection or ("test split" if cases is None else f"{len(case_ids)} given case ids"))
    episodes, events = episode_frames(results)
    return runs, episodes, events


def run_row(settings: EpisodeSettings, run_id: str, doctor: str, patient: str, condition: str,
            case_selection: str, memory: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """The ``runs`` row of a run: who played, under which preset and seed, every setting as JSON.
    ``memory``: the run's experience memory (its ``mode``, ``source_run`` and settings; None: off)."""
    config = {"episode": asdict(settings.config()), "doctor": doctor, "patient": patient, "condition": condition}
    if memory is not None:
        config["memory"] = dict(memory)
    runs = pl.DataFrame([{
        "run_id": run_id, "created_at": datetime.now(UTC), "protocol": settings.preset, "doctor": doctor,
        "doctor_model": None, "patient_simulator": patient, "patient_model": None, "judge": JUDGE,
        "memory_mode": memory["mode"] if memory else "off",
        "memory_source_run": memory.get("source_run") if memory else None, "seed": settings.seed,
        "config": json.dumps(config, sort_keys=True), "case_selection": case_selection,
    }], schema=schemas.empty("runs").schema)
    return schemas.conform("runs", runs)


def episode_frames(results: Sequence[EpisodeResult]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``episodes`` and ``episode_events`` of :func:`run_episode` results, validated."""
    episodes = pl.DataFrame([row for row, _ in results], schema=schemas.empty("episodes").schema)
    events = events_frame([event for _, rows in results for event in rows])
    return schemas.conform("episodes", episodes), schemas.conform("episode_events", events)
