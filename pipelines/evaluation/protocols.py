"""The evaluation protocols of `clinverse evaluate` (issue 12 §3; MedEvoEval's stream, held-out and
MDT comparisons), as data (data/protocols.yaml): a protocol is a list of arms, each one episode
run of the chosen doctor labelled by its condition (``episodes.condition``: E0 ... E3, H0, H3, M1,
M0). Arms of a protocol play the same cases in the same order, so they pair by case; an arm may
start its memory from an earlier arm's bank (``from``), within the protocol or one it ``needs``.

:func:`run_study` plays every arm as `clinverse episodes` does (resuming what is written: the run
ids are derived from the study, so a rerun continues; traces exported, each run scored by the
offline judge), and computes the protocol's ``stat_tests`` rows over the Holm families of
data/statistics.yaml, with each episode's stage from its run's stream (pipelines/evaluation/stages.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import polars as pl

import schemas
from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.episodes.runs import RunSpec, run_and_export
from pipelines.episodes.settings import DEFAULT_PRESET, DEFAULT_SEED
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.runs import SCORES, has_rubrics
from pipelines.evaluation.stages import episode_stages
from pipelines.evaluation.stats import declared_families, stat_table
from pipelines.warehouse import Warehouse
from schemas.runs import MEMORY_MODES

FILE = "data/protocols.yaml"
DEFAULT_STAGES = 10
TABLE = "stat_tests"


PARTS = ("all", "first_half", "second_half")


@dataclass(frozen=True)
class Arm:
    label: str
    split: str
    part: str = "all"  # of the split's cases by case_id: all, the first half or the rest
    memory: str = "off"
    source: str | None = None  # the arm whose bank the memory starts from
    mdt: bool = True


@dataclass(frozen=True)
class Protocol:
    name: str
    description: str
    needs: tuple[str, ...]
    arms: tuple[Arm, ...]


def _arm(protocol: str, item: object) -> Arm:
    where = f"{protocol}.arms"
    optional = {"part", "memory", "from", "mdt"}
    allowed = {"label", "split", *optional}
    if not isinstance(item, dict) or not {"label", "split"} <= item.keys() or item.keys() - allowed:
        raise DataFileError(FILE, where, "", f"an arm has label, split and optionally {', '.join(sorted(optional))}: "
                                             f"{item!r}")
    arm = Arm(str(item["label"]), str(item["split"]), str(item.get("part", "all")), str(item.get("memory", "off")),
              item.get("from"), bool(item.get("mdt", True)))
    if arm.split not in ("train", "test") or arm.part not in PARTS or arm.memory not in MEMORY_MODES:
        raise DataFileError(FILE, where, arm.label, f"split train|test, part {'|'.join(PARTS)} and memory "
                                                    f"{'|'.join(MEMORY_MODES)}")
    return arm


@cache
def protocols() -> dict[str, Protocol]:
    data = yaml_mapping(__package__, FILE, ("stream", "heldout", "mdt"))
    found = {}
    for name, body in data.items():
        if not isinstance(body, dict) or set(body) != {"description", "needs", "arms"}:
            raise DataFileError(FILE, name, "", "a protocol has description, needs and arms")
        found[name] = Protocol(name, str(body["description"]), tuple(body["needs"]),
                               tuple(_arm(name, a) for a in body["arms"]))
    for p in found.values():
        known = {a.label for n in (p.name, *p.needs) for a in found[n].arms}
        for arm in p.arms:
            if (arm.source is None) != (arm.memory in ("off", "empty")) or (arm.source and arm.source not in known):
                raise DataFileError(FILE, p.name, arm.label, f"'from' names an arm of {p.name} or of what it needs "
                                                             "exactly when the memory is prepopulated or frozen")
    return found


def study_order(names: Sequence[str]) -> list[str]:
    """The protocols to play for ``names`` (``all``: every one), each after those it needs."""
    known = protocols()
    wanted = list(known) if "all" in names else list(names)
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise KeyError(f"no protocol {', '.join(unknown)}; known: {', '.join(known)}, all")
    order: list[str] = []

    def visit(name: str) -> None:
        for need in known[name].needs:
            visit(need)
        if name not in order:
            order.append(name)

    for name in wanted:
        visit(name)
    return order


def arm_spec(store: CaseStore, protocol: str, arm: Arm, doctor: str, preset: str, seed: int, stages: int,
             run_ids: dict[str, str]) -> RunSpec:
    """The run of one arm; ``run_ids``: the runs of the arms played before (label -> run id)."""
    half = len(store.case_ids(arm.split)) // 2
    cases, offset = {"all": (None, 0), "first_half": (half, 0), "second_half": (None, half)}[arm.part]
    return RunSpec(doctor=doctor, preset=preset, split=arm.split, cases=cases, offset=offset, condition=arm.label,
                   seed=seed,
                   run_id=f"study-{protocol}-{arm.label}-{doctor}-{preset}-s{seed}-g{stages}", memory=arm.memory,
                   memory_from=run_ids[arm.source] if arm.source else None, mdt=arm.mdt, study=protocol,
                   stages=stages)


@dataclass(frozen=True)
class Study:
    runs: dict[str, str]  # arm label -> run id
    summaries: dict[str, dict[str, object]]  # arm label -> run summary
    stat_tests: pl.DataFrame


def run_study(warehouse: Warehouse, store: CaseStore, names: Sequence[str], doctor: str = "retrieval",
              preset: str = DEFAULT_PRESET, seed: int = DEFAULT_SEED, stages: int = DEFAULT_STAGES,
              progress: Callable[[str, int, int], None] | None = None) -> Study:
    """Play, score and test the protocols ``names`` (see the module docstring); writes ``stat_tests``
    (one partition per protocol)."""
    if not has_rubrics(warehouse):
        raise ValueError(f"the warehouse at {warehouse.home} has no case_rubrics / case_exam_targets to score "
                         "against: build it first (clinverse build)")
    run_ids: dict[str, str] = {}
    summaries: dict[str, dict[str, object]] = {}
    tables = []
    for name in study_order(names):
        for arm in protocols()[name].arms:
            spec = arm_spec(store, name, arm, doctor, preset, seed, stages, run_ids)
            told = None if progress is None else (lambda done, total, label=arm.label: progress(label, done, total))
            _, summaries[arm.label], _ = run_and_export(warehouse, store, spec, told)
            run_ids[arm.label] = spec.id
        played = [run_ids[a.label] for a in protocols()[name].arms]
        table = stat_table(*_scored(warehouse, played), declared_families(name))
        warehouse.write(TABLE, table, partition=name)
        tables.append(table)
    return Study(run_ids, summaries, pl.concat(tables) if tables else schemas.empty(TABLE))


def _scored(warehouse: Warehouse, run_ids: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The runs' ``episode_scores`` and their ``episodes`` with each episode's stage."""
    scores = pl.concat([warehouse.read_partition(SCORES, r) for r in run_ids])
    episodes = pl.concat([warehouse.read_partition("episodes", r) for r in run_ids])
    runs = pl.concat([warehouse.read_partition("runs", r) for r in run_ids])
    return scores, episodes.join(episode_stages(runs, episodes), on="episode_id", how="left")
