"""Episode runs in the warehouse: one partition per run of ``runs``, ``episodes`` and
``episode_events``, written in batches so an interrupted run resumes where it stopped.

A run is named by a :class:`RunSpec`; without an explicit id the id is derived from the spec, so
the same command twice resumes rather than duplicates. A spec's ``settings`` change episode
settings of its preset (an evaluation condition: ``vignette``, ``shift``, ``replace_fraction`` ...;
pipelines/episodes/config.py); they are part of the spec a resumed run must match, and of a
derived id. A role played by an LLM (doctor, patient or consultant ``llm``) runs through
:func:`pipelines.episodes.llm.driver.run_llm_episodes`, one batch on one event loop, and its
request ledger lands in ``llm_requests`` beside the batch. Rerunning a run skips every case whose
episode is already written and appends the rest as further batch files (``<run_id>-00003``); an id
reused with a different spec is refused. Traces also export as JSON lines, one episode per line.

A run with experience memory (``RunSpec.memory`` other than ``off``; pipelines/evaluation/memory/)
plays its cases one after the other in case order: each episode is shown its bank's cards before
every decision, then scored by the offline judge, and the manager's cards for it are filed before
the next episode starts; they land in ``memory_cards`` beside the batch. A resumed memory run
rebuilds its bank from the cards already written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipelines.episodes.config import preset
from pipelines.episodes.controller import EpisodeResult, episode_frames, run_episode, run_row
from pipelines.episodes.engine import Memory
from pipelines.episodes.judge import Judge
from pipelines.episodes.llm import CONSULTANTS_LLM, DOCTORS_LLM, LLM, PATIENTS_LLM, llm_roles
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.llm.ledger import totals
from pipelines.episodes.settings import DEFAULT_PRESET, DEFAULT_SEED, EpisodeSettings
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.memory.bank import FROM_SOURCE, cards_frame
from pipelines.evaluation.memory.cards import card_settings
from pipelines.evaluation.memory.manager import Manager, OfflineManager
from pipelines.evaluation.memory.runs import TABLE as CARDS
from pipelines.evaluation.memory.runs import WriteBack, open_bank
from pipelines.evaluation.runs import SCORES, has_rubrics, references, score_run
from pipelines.evaluation.scores import SUMMARY, Conditions
from pipelines.evaluation.scores import summary as scores_summary
from pipelines.evaluation.stages import STUDY
from pipelines.warehouse import Warehouse
from schemas.runs import MEMORY_MODES

MANAGERS = ("offline", LLM)
RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]+)*$")
BATCH_EPISODES = 50  # episodes per batch file: what an interruption can lose


@dataclass(frozen=True)
class RunSpec:
    doctor: str
    patient: str = "offline"
    preset: str = DEFAULT_PRESET
    split: str = "test"
    cases: int | None = None  # N cases of the split (by case_id) from ``offset`` on; None: all from there
    offset: int = 0  # cases of the split (by case_id) left out before them
    condition: str = "baseline"
    seed: int = DEFAULT_SEED
    run_id: str | None = None
    consultant: str = "offline"
    memory: str = "off"  # off | empty | prepopulated | frozen (runs.memory_mode)
    memory_from: str | None = None  # the run a prepopulated or frozen bank starts from
    memory_k: int | None = None  # cards shown per decision (None: top_k of data/memory_cards.yaml)
    manager: str = "offline"  # who writes the cards: offline (templates) or llm
    mdt: bool = True  # False: the consultant may not be called (mdt_calls = 0)
    study: str | None = None  # the evaluation protocol the run belongs to (pipelines/evaluation/protocols.py)
    stages: int | None = None  # the study's stages over the run's case stream (runs.config "study")
    settings: dict[str, Any] = field(default_factory=dict)  # episode settings changed in the preset (JSON values)

    def __post_init__(self) -> None:
        for role, value, known in (("doctor", self.doctor, DOCTORS_LLM), ("patient simulator", self.patient, PATIENTS_LLM),
                                   ("consultant", self.consultant, CONSULTANTS_LLM), ("memory mode", self.memory,
                                                                                     MEMORY_MODES),
                                   ("manager", self.manager, MANAGERS)):
            if value not in known:
                raise ValueError(f"unknown {role} {value!r}; known: {', '.join(known)}")
        if self.memory in FROM_SOURCE and not self.memory_from:
            raise ValueError(f"memory {self.memory} starts from another run's bank: name it with --memory-from RUN_ID")
        if self.memory not in FROM_SOURCE and self.memory_from:
            raise ValueError(f"--memory-from goes with --memory prepopulated or frozen, not {self.memory}")
        if self.memory_k is not None and (self.memory == "off" or self.memory_k < 1):
            raise ValueError("--memory-k is the number of cards shown per decision (>= 1), with memory on")
        if self.manager != "offline" and self.memory not in ("empty", "prepopulated"):
            raise ValueError("--manager writes cards into a writable bank: use it with --memory empty or prepopulated")
        if (self.study is None) != (self.stages is None) or (self.stages is not None and self.stages < 1):
            raise ValueError("a study run names its protocol and its stages (>= 1) together")
        if self.split not in ("train", "test"):
            raise ValueError(f"split must be train or test, not {self.split!r}")
        if self.offset < 0 or (self.cases is not None and self.cases < 0):
            raise ValueError("cases and offset count cases: use numbers >= 0")
        if self.run_id is not None and (not RUN_ID.match(self.run_id) or re.search(r"-\d{5}$", self.run_id)):
            raise ValueError(f"run id {self.run_id!r}: use letters, digits, '.', '_' and single '-', "
                             "not ending in -NNNNN (that suffix numbers batch files)")
        preset(self.preset, **self.overrides)  # an unknown setting or value fails before anything runs

    @property
    def id(self) -> str:
        if self.run_id:
            return self.run_id
        size = (f"n{self.cases}" if self.cases is not None else "all") + (f"o{self.offset}" if self.offset else "")
        consultant = "" if self.consultant == "offline" else f"-mdt.{self.consultant}"
        memory = "" if self.memory == "off" else "-mem." + ".".join(
            [self.memory, *([_digest(self.memory_from)] if self.memory_from else []),
             *([f"k{self.memory_k}"] if self.memory_k else []), *([self.manager] if self.manager != "offline" else [])])
        settings = "-set." + _digest(json.dumps(self.settings, sort_keys=True)) if self.settings else ""
        return (f"{self.doctor}-{self.patient}{consultant}{'' if self.mdt else '-nomdt'}-{self.preset}-{self.split}"
                f"-{size}-{self.condition}-s{self.seed}{memory}{settings}")

    @property
    def llm_roles(self) -> tuple[str, ...]:
        return llm_roles(self.doctor, self.patient, self.consultant)

    def selection(self) -> str:
        start = f" after the first {self.offset}" if self.offset else ""
        return f"{self.split} split, {'all cases' if self.cases is None else f'{self.cases} by case_id'}{start}"

    @property
    def top_k(self) -> int:
        return self.memory_k or card_settings().top_k

    @property
    def overrides(self) -> dict[str, Any]:
        """Episode settings the spec changes in its preset: ``settings``, and no consultation without mdt."""
        return self.settings | ({} if self.mdt else {"mdt_calls": 0})


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


@dataclass(frozen=True)
class RunWritten:
    run_id: str
    total: int  # episodes the run is made of
    new: int  # written by this call
    resumed: int  # already written before this call


ProgressFn = Callable[[int, int], None]  # (episodes done, episodes in the run)


def run_cases(store: CaseStore, spec: RunSpec) -> list[str]:
    case_ids = store.case_ids(spec.split)[spec.offset:]
    return case_ids if spec.cases is None else case_ids[: spec.cases]


def _existing_spec(warehouse: Warehouse, run_id: str) -> dict | None:
    runs = warehouse.read_partition("runs", run_id)
    return json.loads(runs["config"].item()).get("spec") if runs.height else None


def run(warehouse: Warehouse, store: CaseStore, spec: RunSpec, progress: ProgressFn | None = None,
        batch: int = BATCH_EPISODES, llm: LLMConfig | None = None) -> RunWritten:
    """Write the run's episodes that are not written yet, batch by batch; returns what it did.
    ``llm`` serves the spec's LLM roles and LLM manager (default :meth:`LLMConfig.from_env`); a
    resumed run must use the same models."""
    run_id = spec.id
    llm = llm or (LLMConfig.from_env() if spec.llm_roles or spec.manager == LLM else None)
    manager = _manager(spec, llm, store)  # an unconfigured LLM role fails before anything is written
    recorded = _existing_spec(warehouse, run_id)
    wanted = asdict(spec) | {"run_id": run_id} | _models(spec, llm)
    if not spec.settings:  # as runs recorded before specs had settings
        del wanted["settings"]
    if recorded is not None and recorded != wanted:
        raise ValueError(f"run {run_id} exists with another configuration ({recorded}); choose another --run-id")
    case_ids = run_cases(store, spec)
    writeback = _writeback(warehouse, store, spec, manager) if spec.memory != "off" else None
    memory = writeback.memory if writeback else None
    player = _LLMPlayer(store, spec, llm, memory) if spec.llm_roles else _OfflinePlayer(store, spec, memory)
    done = set(warehouse.read_partition("episodes", run_id)["case_id"].to_list())
    todo = [c for c in case_ids if c not in done]
    runs = player.runs_row(spec.selection())
    config = json.loads(runs["config"].item()) | {"spec": wanted}
    if spec.study:  # the ordered stream its stages split (pipelines/evaluation/stages.py)
        config[STUDY] = {"protocol": spec.study, "stages": spec.stages, "stream": case_ids}
    warehouse.write("runs", runs.with_columns(pl.lit(json.dumps(config, sort_keys=True)).alias("config")),
                    partition=run_id)
    next_batch = len(warehouse.partition_files("episodes", run_id))
    size = player.batch_size(batch) if writeback is None else batch
    visits = {case_id: i for i, case_id in enumerate(case_ids)}
    for start in range(0, len(todo), size):
        chunk = todo[start:start + size]
        episodes, events, requests, cards = _play(player, writeback, chunk, visits)
        name = f"{run_id}-{next_batch:05d}"
        # Events, requests and cards first: a batch counts as done once its episodes file exists.
        warehouse.write("episode_events", events, partition=name)
        if requests is not None:
            warehouse.write("llm_requests", requests, partition=name)
        if cards is not None and cards.height:
            warehouse.write(CARDS, cards, partition=name)
        warehouse.write("episodes", episodes, partition=name)
        next_batch += 1
        if progress:
            progress(len(done) + start + len(chunk), len(case_ids))
    return RunWritten(run_id, len(case_ids), len(todo), len(case_ids) - len(todo))


Frames = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]  # episodes, events, LLM requests (or None)


def _models(spec: RunSpec, llm: LLMConfig | None) -> dict[str, object]:
    """The models a run's LLM roles and LLM manager use (a resumed run must use the same)."""
    models: dict[str, object] = {"models": llm.models(spec.llm_roles)} if spec.llm_roles else {}
    if spec.manager == LLM:
        models["manager_model"] = llm.role("manager").model
    return models


def _manager(spec: RunSpec, llm: LLMConfig | None, store: CaseStore) -> Manager:
    """Who writes the run's cards; an LLM manager refuses restricted cases before anything runs."""
    if spec.manager != LLM:
        return OfflineManager()
    from pipelines.episodes.llm.driver import case_origins
    from pipelines.evaluation.memory.llm_manager import LLMManager

    manager = LLMManager(llm, run_id=spec.id)
    origins = case_origins(store)
    manager.check((c, origins[c]) for c in run_cases(store, spec))
    return manager


def _writeback(warehouse: Warehouse, store: CaseStore, spec: RunSpec, manager: Manager) -> WriteBack:
    """A memory run's bank (resumed, or started from its source) and its write-back."""
    if not has_rubrics(warehouse):
        raise ValueError(f"a memory run scores each episode before the next, and the warehouse at {warehouse.home} "
                         "has no case_rubrics / case_exam_targets: build it first (clinverse build)")
    bank = open_bank(warehouse, spec.id, spec.memory, spec.memory_from)
    config = preset(spec.preset, **spec.overrides)
    conditions = Conditions(config.action_budget, config.test_limit, config.oracle_block, config.vignette)
    return WriteBack(bank, references(warehouse, store), conditions, manager, spec.top_k)


def _play(player: _OfflinePlayer | _LLMPlayer, writeback: WriteBack | None, case_ids: list[str],
          visits: dict[str, int]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None, pl.DataFrame | None]:
    """One batch: episodes, events, LLM requests and (a memory run's) cards. A memory run plays,
    scores and writes back each case before the next starts (``visits``: each case's position)."""
    if writeback is None:
        return (*player.play(case_ids), None)
    results, asked, cards = [], [], []
    for case_id in case_ids:
        (episode, events), requests = player.play_one(case_id)
        cards += writeback.after(episode, events, visits[case_id])
        results.append((episode, events))
        asked.append(requests)
    asked = [r for r in (*asked, writeback.manager.requests()) if r is not None]
    return *episode_frames(results), pl.concat(asked) if asked else None, cards_frame(cards)


class _OfflinePlayer:
    """Offline roles only: episodes one after the other in this process."""

    def __init__(self, store: CaseStore, spec: RunSpec, memory: Memory | None = None):
        self.spec = spec
        self.settings = EpisodeSettings(store, spec.preset, spec.seed, memory=memory, **spec.overrides)

    def runs_row(self, selection: str) -> pl.DataFrame:
        s = self.spec
        return run_row(self.settings, s.id, s.doctor, s.patient, s.condition, selection, memory=_memory_of(s))

    def batch_size(self, batch: int) -> int:
        return batch

    def play(self, case_ids: list[str]) -> Frames:
        return (*episode_frames([self.play_one(c)[0] for c in case_ids]), None)

    def play_one(self, case_id: str) -> tuple[EpisodeResult, None]:
        """One episode's rows, unframed (a memory run scores it at once), and no LLM requests."""
        s = self.spec
        return run_episode(self.settings, s.doctor, case_id, s.id, s.condition), None


class _LLMPlayer:
    """At least one LLM role: each batch runs concurrently on one event loop (the LLM driver)."""

    def __init__(self, store: CaseStore, spec: RunSpec, llm: LLMConfig, memory: Memory | None = None):
        self.store, self.spec, self.llm, self.memory = store, spec, llm, memory

    def runs_row(self, selection: str) -> pl.DataFrame:
        from pipelines.episodes.llm.driver import llm_run_row

        s = self.spec
        return llm_run_row(EpisodeSettings(self.store, s.preset, s.seed, **s.overrides), s.id, s.doctor, s.patient,
                           s.consultant, s.condition, selection, self.llm, memory=_memory_of(s))

    def batch_size(self, batch: int) -> int:
        return max(batch, 2 * self.llm.max_in_flight)  # enough episodes to keep every request slot busy

    def play(self, case_ids: list[str]) -> Frames:
        from pipelines.episodes.llm.driver import run_llm_episodes

        s = self.spec
        done = run_llm_episodes(self.store, s.doctor, s.patient, s.preset, case_ids, s.seed, s.id, llm=self.llm,
                                consultant=s.consultant, condition=s.condition, memory=self.memory, **s.overrides)
        return done.episodes, done.events, done.requests

    def play_one(self, case_id: str) -> tuple[EpisodeResult, pl.DataFrame]:
        """One episode's rows and its LLM requests."""
        episodes, events, requests = self.play([case_id])
        return (episodes.row(0, named=True), events.to_dicts()), requests


def _memory_of(spec: RunSpec) -> dict[str, object] | None:
    """What the ``runs`` row records of the run's memory (None: memory off)."""
    if spec.memory == "off":
        return None
    return {"mode": spec.memory, "source_run": spec.memory_from, "top_k": spec.top_k, "manager": spec.manager}


def export_jsonl(warehouse: Warehouse, run_id: str, path: Path) -> int:
    """The run's traces as JSON lines (one episode per line, its events in turn order); returns lines."""
    episodes = warehouse.read_partition("episodes", run_id).sort("case_id")
    events = warehouse.read_partition("episode_events", run_id)
    by_episode = events.group_by("episode_id", maintain_order=True).agg(pl.struct(pl.all().exclude("episode_id")))
    traces = dict(by_episode.iter_rows())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    with tmp.open("w", encoding="utf-8") as out:
        for row in episodes.iter_rows(named=True):
            row["events"] = traces.get(row["episode_id"], [])
            out.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return episodes.height


def run_summary(warehouse: Warehouse, store: CaseStore, run_id: str) -> dict[str, object]:
    """Episodes, how they ended, mean turns, ICD-10 block accuracy (the true block or that of any
    acceptable code) and, once the run is scored (``episode_scores``), its mean S, U, ICR, TOC, ATC,
    DCA and DSA."""
    episodes = warehouse.read_partition("episodes", run_id)
    rewards = [Judge(store.case(case_id).manager).code_reward(icd10)
               for case_id, icd10 in episodes.select("case_id", "final_icd10").iter_rows()]
    summary: dict[str, object] = {
        "run_id": run_id, "episodes": episodes.height,
        "finalized": episodes.filter(pl.col("termination") == "finalized").height,
        "error_turns": int(episodes["n_error_turns"].sum() or 0),
        "mean_turns": round(float(episodes["turns"].mean() or 0.0), 2),
        "block_accuracy": round(sum(rewards) / len(rewards), 4) if rewards else 0.0,
    }
    means = scores_summary(warehouse.read_partition(SCORES, run_id))
    summary |= {k: means[k] for k in SUMMARY.values() if k in means and k not in ("strict_rate", "pass_rate")}
    requests = warehouse.read_partition("llm_requests", run_id)
    if requests.height:
        used = totals(requests)
        summary |= {k: used[k] for k in ("requests", "retries", "failed", "prompt_tokens", "completion_tokens")}
    return summary


def run_and_export(warehouse: Warehouse, store: CaseStore, spec: RunSpec, progress: ProgressFn | None = None,
                   llm: LLMConfig | None = None) -> tuple[RunWritten, dict[str, object], Path]:
    """What `clinverse episodes` and the ``episode_run`` asset both do: run (resuming), export the
    traces to ``<home>/exports/episodes-<run_id>.jsonl``, score the run with the offline judge
    once the warehouse has rubrics (``episode_scores``), summarise."""
    written = run(warehouse, store, spec, progress, llm=llm)
    export = warehouse.home / "exports" / f"episodes-{written.run_id}.jsonl"
    export_jsonl(warehouse, written.run_id, export)
    if has_rubrics(warehouse):
        score_run(warehouse, written.run_id, refs=references(warehouse, store))
    return written, run_summary(warehouse, store, written.run_id), export
