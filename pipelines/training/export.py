"""`clinverse export`: the warehouse's episodes as datasets for offline training, MedEvoEval's
training-oriented derivatives (complete-episode trajectories, and step-level decision samples from
high-scoring episodes, low-scoring and failed ones excluded).

Files, in one folder, each written under a temporary name and renamed into place, every frame
validated against its schema first (schemas/trajectories.py, schemas/step_samples.py):

* ``trajectories.jsonl`` / ``.parquet``: one row per episode of the chosen runs (default: every run);
* ``step_samples.jsonl`` / ``.parquet``: one row per decision of each episode that finalised with an
  outcome score S >= ``min_score`` (default the judge's pass threshold, S >= 0.7) and whose replay
  reproduces its trace (pipelines/training/replay.py). Error turns are not samples, but an episode
  with error turns keeps its other decisions: S does not reward the error turns, and a later
  sample's context shows them with their answer because the doctor read it;
* ``README.md``: the dataset card (pipelines/training/card.py).

The same warehouse gives the same bytes: rows in run and case order, nothing timed or random.

Data use: content derived from a restricted source (the egress rule: MIMIC-IV and SICdb, anything
but MedQA and the generated demo, which the warehouse tells apart by ``cases.dataset == 'demo'``) is
exported only with ``acknowledge_data_use``; without it :class:`DataUseNotAcknowledged` is raised
before anything is written, and with it the card carries the restriction.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

import schemas
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.params import scoring_params
from pipelines.evaluation.runs import SCORES
from pipelines.training.card import data_use_terms, render, restricted_origins
from pipelines.training.replay import Decision, Observed, RecordedMemory, from_trace, replay, replayable, run_settings
from pipelines.training.trl_env import tool_instruction
from pipelines.warehouse import Warehouse

TRAJECTORIES, SAMPLES = "trajectories", "step_samples"
CARD = "README.md"
FILES = (f"{TRAJECTORIES}.jsonl", f"{TRAJECTORIES}.parquet", f"{SAMPLES}.jsonl", f"{SAMPLES}.parquet", CARD)
FINALIZED = "finalized"
ProgressFn = Callable[[int, int], None]  # (episodes done, episodes exported)
Row = dict[str, Any]


class DataUseNotAcknowledged(PermissionError):
    """An export of restricted content without the acknowledgement of its data use agreement."""


@dataclass(frozen=True)
class ExportSettings:
    runs: tuple[str, ...] = ()  # the runs to export; empty: every run
    min_score: float = field(default_factory=lambda: scoring_params().pass_threshold)  # S of a sampled episode
    acknowledge_data_use: bool = False  # restricted content may be written (the card says so)

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_score <= 1.0:
            raise ValueError(f"the score threshold is an outcome score S in [0, 1], not {self.min_score}")


@dataclass(frozen=True)
class Export:
    out: Path
    trajectories: pl.DataFrame
    samples: pl.DataFrame
    excluded: dict[str, int]  # episodes that gave no step samples, by reason (data/card.yaml "exclusions")
    restricted: list[str]  # the restricted sources the export holds content of (card.yaml source keys)


def export(warehouse: Warehouse, out: Path, settings: ExportSettings | None = None,
           progress: ProgressFn | None = None) -> Export:
    """Write the export of ``warehouse``'s runs into ``out`` (see the module docstring)."""
    settings = settings or ExportSettings()
    runs = _runs(warehouse, settings.runs)
    episodes = _episodes(warehouse, runs)
    restricted = restricted_origins(episodes)
    if restricted and not settings.acknowledge_data_use:
        terms = data_use_terms(restricted)
        raise DataUseNotAcknowledged(
            f"the export holds content derived from {terms.sources}: credentialed data under the {terms.licences} "
            f"and {terms.terms}, to be shared only with people bound by the same agreement. Nothing was written; "
            "pass --acknowledge-data-use (ExportSettings.acknowledge_data_use) to write it: its card then carries "
            "the restriction.")
    store = CaseStore.from_warehouse(warehouse)
    cards = _card_texts(warehouse, runs)
    trajectories: list[Row] = []
    samples: list[Row] = []
    excluded: Counter[str] = Counter()
    for run in runs.iter_rows(named=True):
        events = _events(warehouse, run["run_id"])
        for episode in episodes.filter(pl.col("run_id") == run["run_id"]).iter_rows(named=True):
            observed = _observe(store, run, episode, events[episode["episode_id"]], cards)
            chat = messages(observed)
            trajectories.append(trajectory_row(episode, observed, chat))
            reason = exclusion(episode, observed, settings.min_score)
            if reason:
                excluded[reason] += 1
            else:
                samples += step_rows(episode, observed, chat)
            if progress:
                progress(len(trajectories), episodes.height)
    written = Export(out, _frame(TRAJECTORIES, trajectories), _frame(SAMPLES, samples), dict(excluded), restricted)
    _write_files(written, settings.min_score)
    return written


def _runs(warehouse: Warehouse, wanted: Sequence[str]) -> pl.DataFrame:
    if not warehouse.exists("runs"):
        raise ValueError(f"no episode runs in the warehouse at {warehouse.home}: play some first (clinverse episodes)")
    runs = warehouse.read("runs").sort("run_id")
    unknown = sorted(set(wanted) - set(runs["run_id"]))
    if unknown:
        raise ValueError(f"no run {', '.join(unknown)} in the warehouse at {warehouse.home}; "
                         f"its runs: {', '.join(runs['run_id'])}")
    return runs.filter(pl.col("run_id").is_in(list(wanted))) if wanted else runs


def _episodes(warehouse: Warehouse, runs: pl.DataFrame) -> pl.DataFrame:
    """The runs' episodes, each with its case's split and origin, its run's doctor model and protocol
    and its scores (null where the run is not scored), in run and case order."""
    columns = list(schemas.get(TRAJECTORIES).columns)
    scores = warehouse.scan(SCORES) if warehouse.exists(SCORES) else schemas.empty(SCORES).lazy()
    score_columns = [c for c in schemas.get(SCORES).columns if c in columns and c not in ("run_id", "case_id")]
    frame = (warehouse.scan("episodes").filter(pl.col("run_id").is_in(runs["run_id"].to_list()))
             .join(warehouse.scan("cases").select("case_id", "split", "source", "dataset"), on="case_id", how="left")
             .join(runs.lazy().select("run_id", "doctor_model", "protocol"), on="run_id")
             .join(scores.select(score_columns), on="episode_id", how="left")
             .sort("run_id", "case_id").collect())
    lost = frame.filter(pl.col("split").is_null())
    if lost.height:
        raise ValueError(f"{lost.height} episode(s) of run(s) {', '.join(sorted(set(lost['run_id'])))} play cases no "
                         f"longer in the warehouse (e.g. {lost['case_id'][0]}): it was rebuilt since; "
                         "export the other runs with --run")
    return frame


def _events(warehouse: Warehouse, run_id: str) -> dict[str, list[Row]]:
    """The run's trace per episode, each in recorded order."""
    events = warehouse.read_partition("episode_events", run_id)
    out: dict[str, list[Row]] = {}
    for row in events.iter_rows(named=True):
        out.setdefault(row["episode_id"], []).append(row)
    return out


def _card_texts(warehouse: Warehouse, runs: pl.DataFrame) -> dict[str, str]:
    """Every memory card's text, when a run showed cards (a frozen bank's are another run's)."""
    if runs.filter(pl.col("memory_mode") != "off").is_empty() or not warehouse.exists("memory_cards"):
        return {}
    return dict(warehouse.read("memory_cards").select("card_id", "rule_text").iter_rows())


def _observe(store: CaseStore, run: Row, episode: Row, events: list[Row], cards: Mapping[str, str]) -> Observed:
    """The episode's observations: replayed where the run's roles allow and the replay reproduces the
    trace, else read off the trace."""
    if not replayable(run):
        return from_trace(events)
    memory = None
    if run["memory_mode"] != "off":
        memory = RecordedMemory.of(events, cards)
        if memory is None:
            return from_trace(events)
    return replay(run_settings(store, run, memory), episode["case_id"], run["run_id"], events) or from_trace(events)


def exclusion(episode: Row, observed: Observed, min_score: float) -> str | None:
    """Why the episode gives no step samples (a key of data/card.yaml "exclusions"), or None."""
    if episode["termination"] != FINALIZED:
        return "failed"
    if episode["score_s"] is None:
        return "unscored"
    if episode["score_s"] < min_score:
        return "below_threshold"
    return None if observed.replayed else "not_replayed"


# ------------------------------------------------------------------------------------- rows


def message(role: str, content: str, **fields: Any) -> Row:
    return {"role": role, "content": content, "tool_calls": None, "tool_call_id": None, "name": None, **fields}


def messages(observed: Observed) -> list[Row]:
    """The episode as chat messages: the instruction with the opening (one user message, as TRL's
    rollouts build it), then two messages per decision (:func:`exchange`)."""
    out = [message("user", f"{tool_instruction()}\n\n{observed.opening}")]
    for decision in observed.decisions:
        out += exchange(decision)
    return out


def exchange(decision: Decision) -> list[Row]:
    """A decision and its answer: a tool call and the tool's reply, or an unusable output and the
    controller's reply to it."""
    if decision.call is None:
        return [message("assistant", decision.output), message("user", decision.observation)]
    call_id = f"call_{decision.turn}"
    arguments = json.dumps(decision.call.arguments, ensure_ascii=False)
    call = {"id": call_id, "type": "function", "function": {"name": decision.call.name, "arguments": arguments}}
    return [message("assistant", "", tool_calls=[call]),
            message("tool", decision.observation, tool_call_id=call_id, name=decision.call.name)]


def trajectory_row(episode: Row, observed: Observed, chat: list[Row]) -> Row:
    """The episode's ``trajectories`` row (``chat``: its :func:`messages`)."""
    final = next((d.call.arguments for d in observed.decisions if d.action == "FINALIZE" and d.call), None)
    row = {c: episode[c] for c in schemas.get(TRAJECTORIES).columns if c in episode}
    return row | {"observed": "replayed" if observed.replayed else "trace", "messages": chat, "final_output": final}


def sample_id(episode_id: str, turn: int) -> str:
    return "s_" + hashlib.sha256(f"{episode_id}:{turn}".encode()).hexdigest()[:16]


def step_rows(episode: Row, observed: Observed, chat: list[Row]) -> list[Row]:
    """One sample per decision that is not an error turn; its context is every message of ``chat``
    (the episode's :func:`messages`) before it."""
    questions: list[str] = []
    tests: list[str] = []
    rows = []
    for i, decision in enumerate(observed.decisions):
        if decision.call is None:
            continue
        target = {"action": decision.action, "output": json.loads(decision.output), "tool_call": asdict(decision.call),
                  "observation": decision.observation}
        rows.append({"sample_id": sample_id(episode["episode_id"], decision.turn), "episode_id": episode["episode_id"],
                     "turn": decision.turn, "context": chat[:1 + 2 * i], "previous_questions": list(questions),
                     "previous_tests": list(tests), "available_actions": list(decision.available),
                     "target_action": json.dumps(target, ensure_ascii=False), "episode_score": episode["score_s"],
                     "split": episode["split"]})
        questions += decision.call.arguments.get("questions", [])  # only ask has questions
        tests += decision.call.arguments.get("names", [])  # only request_test has names
    return rows


def _frame(table: str, rows: list[Row]) -> pl.DataFrame:
    return schemas.conform(table, pl.DataFrame(rows, schema=schemas.empty(table).schema))


# ------------------------------------------------------------------------------------ files


def _write_files(written: Export, min_score: float) -> None:
    out = written.out
    out.mkdir(parents=True, exist_ok=True)
    card = render(written.trajectories, written.samples, written.excluded, min_score)
    for table, frame in ((TRAJECTORIES, written.trajectories), (SAMPLES, written.samples)):
        _publish(out / f"{table}.jsonl", frame.write_ndjson)
        _publish(out / f"{table}.parquet", lambda path, f=frame: f.write_parquet(path, compression="zstd"))
    _publish(out / CARD, lambda path: path.write_text(card, encoding="utf-8"))


def _publish(target: Path, write: Callable[[Path], object]) -> None:
    """``write`` to a temporary name beside ``target``, then rename it into place."""
    tmp = target.with_name(f".{target.name}.partial")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
