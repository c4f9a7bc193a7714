"""The evaluation protocols of `clinverse evaluate` (issue 12 §3 and §4; MedEvoEval's stream,
held-out, update, MDT, static-versus-dynamic and raw-versus-normalised interface comparisons;
ClinVerse's ClinLab validity analysis), as data (data/protocols.yaml): a protocol is a list of arms,
each one episode run of the chosen doctor labelled by its condition (``episodes.condition``: E0 ...
E3, H0, H3, G0, G1, G1K, M1, M0, S0, D0, N0, N1, L0, L10, L20, Lnull). Arms of a protocol play the
same cases in the same order, so they pair by case; an arm may start its memory from an earlier
arm's bank (``from``), within the protocol or one it ``needs``, and may change episode settings of
the preset (``settings``: ``vignette``, ``replace_fraction`` ...; pipelines/episodes/config.py),
which its run records in ``runs.config``. A protocol may play under a preset of its own
(``preset``: the ClinLab analysis is ClinVerse's environment whatever the study's preset).

:func:`run_study` plays every arm as `clinverse episodes` does (resuming what is written: the run
ids are derived from the study, so a rerun continues; traces exported, each run scored by the
offline judge), and computes the protocol's ``stat_tests`` rows over the Holm families of
data/statistics.yaml, with each episode's stage from its run's stream (pipelines/evaluation/stages.py).
``cases`` plays only the first N cases of each arm's share of the split (a quick study; its run ids
say so).

The update protocol shifts the stream's middle stages: its ``shift`` (pipelines/episodes/shift.py)
is played on the cases of its ``update`` window, every arm alike (the episode settings ``shift``
and ``shift_cases``); its windows label the episodes for per-window contrasts, and its ``bwt``
names the final snapshot and the online arm whose backward transfer is reported
(pipelines/evaluation/update.py; :attr:`Study.bwt`).

The interface control compares the doctor's raw output (N0) with its normalised output (N1). The
LLM doctor's output is raw already: the arm's ``normalise`` switches its normaliser. An offline
doctor's output is exact JSON, so an offline doctor plays it through the corrupting wrapper
(pipelines/episodes/corrupt.py): the protocol's ``corrupt_share`` of its outputs is written the
way LLMs write them, then read raw or normalised (the episode settings ``corrupt_share`` and
``corrupt_normalise``).

The LLM doctor plays the study once per model (``models``; default the doctor role's model): the
model is part of each run id, the arms are told apart as ``<condition>@<model>`` (``N1@glm-5``) and
every declared contrast is tested for every model within one Holm family, as MedEvoEval's
families span its four models (Appendix E.4, F14-F16). Besides the ``episode_scores`` columns the
statistics may test the episode's error turns (``n_error_turns``, from ``episodes``) and whether it
had any (``any_error_turn``): MedEvoEval's "error turns" and "any-error episode" (Appendix D.1).
DCA and DSA (0 or 1 per episode) are tested as the binary endpoints they are (exact McNemar,
Cochran's Q).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import polars as pl

import schemas
from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.episodes.config import preset as episode_preset
from pipelines.episodes.llm import LLM
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.runs import RunSpec, run_and_export, run_cases
from pipelines.episodes.settings import DEFAULT_PRESET, DEFAULT_SEED
from pipelines.episodes.shift import shifts
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.params import DEFAULT_STAGES, PROTOCOL_NAMES
from pipelines.evaluation.runs import SCORES, has_rubrics
from pipelines.evaluation.stages import episode_stages, stream_stages
from pipelines.evaluation.stats import Family, declared_families, scored_episodes, stat_table
from pipelines.evaluation.update import EARLIER, SHIFTED, Windows, bwt, check_windows, window_of, with_views
from pipelines.warehouse import Warehouse
from schemas.runs import MEMORY_MODES

FILE = "data/protocols.yaml"
DEFAULT_DOCTOR = "retrieval"
TABLE = "stat_tests"
ARM = "arm"  # the column telling a study's arms apart: the condition, and the LLM doctor's model
PROTOCOL_FIELDS = {"description", "needs", "arms"}
PROTOCOL_OPTIONS = {"preset", "corrupt_share", "shift", "windows", "bwt"}
ARM_OPTIONS = {"part", "memory", "from", "mdt", "normalise", "settings"}
BINARY_SCORES = ("dca", "dsa")  # 0 or 1 per episode: tested as binary endpoints


PARTS = ("all", "first_half", "second_half")


@dataclass(frozen=True)
class Arm:
    label: str
    split: str
    part: str = "all"  # of the split's cases by case_id: all, the first half or the rest
    memory: str = "off"
    source: str | None = None  # the arm whose bank the memory starts from
    mdt: bool = True
    normalise: bool | None = None  # the interface control: the doctor's output read normalised or raw
    settings: Mapping[str, Any] = field(default_factory=dict)  # episode settings changed in the preset


@dataclass(frozen=True)
class Backward:
    """Whose backward transfer a protocol reports: the final snapshot against the online arm."""

    final: str
    online: str
    endpoints: tuple[str, ...]


@dataclass(frozen=True)
class Protocol:
    name: str
    description: str
    needs: tuple[str, ...]
    arms: tuple[Arm, ...]
    preset: str | None = None  # the protocol's own episode preset (None: the study's)
    corrupt_share: float | None = None  # the interface control's share of an offline doctor's outputs corrupted
    shift: str | None = None  # played on the cases of the window SHIFTED
    windows: Windows = field(default_factory=dict)  # name -> [low, high) of the stream
    bwt: Backward | None = None


def _arm(protocol: str, item: object) -> Arm:
    where = f"{protocol}.arms"
    if not isinstance(item, dict) or not {"label", "split"} <= item.keys() <= {"label", "split", *ARM_OPTIONS}:
        raise DataFileError(FILE, where, "", f"an arm has label, split and optionally "
                                             f"{', '.join(sorted(ARM_OPTIONS))}: {item!r}")
    normalise, settings = item.get("normalise"), item.get("settings", {})
    if not isinstance(settings, dict):
        raise DataFileError(FILE, where, str(item["label"]), "settings maps episode settings to values")
    arm = Arm(str(item["label"]), str(item["split"]), str(item.get("part", "all")), str(item.get("memory", "off")),
              item.get("from"), bool(item.get("mdt", True)), None if normalise is None else bool(normalise),
              dict(settings))
    if arm.split not in ("train", "test") or arm.part not in PARTS or arm.memory not in MEMORY_MODES:
        raise DataFileError(FILE, where, arm.label, f"split train|test, part {'|'.join(PARTS)} and memory "
                                                    f"{'|'.join(MEMORY_MODES)}")
    try:
        episode_preset(DEFAULT_PRESET, **arm.settings)
    except (KeyError, ValueError) as exc:
        raise DataFileError(FILE, where, arm.label, f"settings: {exc}") from None
    return arm


def _windows(name: str, body: Mapping[str, Any]) -> Windows:
    windows = body.get("windows", {})
    spans = sorted(windows.values()) if isinstance(windows, dict) else []
    if not isinstance(windows, dict) or not all(
            isinstance(v, list) and len(v) == 2 and 0 <= v[0] < v[1] <= 1 for v in windows.values()) or any(
            a[1] > b[0] for a, b in zip(spans, spans[1:])) or EARLIER in windows:
        raise DataFileError(FILE, name, "windows", f"windows map names (not {EARLIER}) to [low, high) ranges of "
                                                   "the stream, 0 <= low < high <= 1, not overlapping")
    return {str(w): (float(v[0]), float(v[1])) for w, v in windows.items()}


def _protocol(name: str, body: object) -> Protocol:
    if not isinstance(body, dict) or not PROTOCOL_FIELDS <= set(body) <= PROTOCOL_FIELDS | PROTOCOL_OPTIONS:
        raise DataFileError(FILE, name, "", f"a protocol has {', '.join(sorted(PROTOCOL_FIELDS))} and optionally "
                                            f"{', '.join(sorted(PROTOCOL_OPTIONS))}")
    arms = tuple(_arm(name, a) for a in body["arms"])
    share, shift, windows = body.get("corrupt_share"), body.get("shift"), _windows(name, body)
    if share is not None and not (isinstance(share, (int, float)) and 0 < share <= 1):
        raise DataFileError(FILE, name, "corrupt_share", "the share of an offline doctor's outputs corrupted, "
                                                         "in (0, 1]")
    if (share is None) != all(a.normalise is None for a in arms):
        raise DataFileError(FILE, name, "", "the interface control's arms set normalise, and it has a corrupt_share "
                                            "for offline doctors; no other protocol has either")
    if shift is not None and (shift not in shifts() or SHIFTED not in windows):
        raise DataFileError(FILE, name, "shift", f"one of {', '.join(shifts())}, played in the window {SHIFTED}")
    if body.get("preset") is not None:
        try:
            episode_preset(str(body["preset"]))
        except KeyError as exc:
            raise DataFileError(FILE, name, "preset", str(exc)) from None
    backward = body.get("bwt")
    if backward is not None:
        labels = {a.label for a in arms}
        if not isinstance(backward, dict) or set(backward) != {"final", "online", "endpoints"} or not {
                backward["final"], backward["online"]} <= labels or not windows:
            raise DataFileError(FILE, name, "bwt", "bwt names the final and the online arm of this windowed "
                                                   "protocol, and its endpoints")
        backward = Backward(str(backward["final"]), str(backward["online"]), tuple(backward["endpoints"]))
    return Protocol(name, str(body["description"]), tuple(body["needs"]), arms, body.get("preset"),
                    None if share is None else float(share), shift, windows, backward)


@cache
def protocols() -> dict[str, Protocol]:
    data = yaml_mapping(__package__, FILE, PROTOCOL_NAMES)
    found = {name: _protocol(name, body) for name, body in data.items()}
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


def arm_key(label: str, model: str | None) -> str:
    """How a study tells an arm apart: its condition, and the LLM doctor's model (module docstring)."""
    return label if model is None else f"{label}@{model}"


def arm_spec(store: CaseStore, protocol: Protocol, arm: Arm, doctor: str, preset: str, seed: int, stages: int,
             run_ids: dict[str, str], model: str | None = None, cases: int | None = None) -> RunSpec:
    """The run of one arm; ``run_ids``: the runs of the arms played before (label -> run id) by the
    same doctor (``model``: the LLM doctor's, which its run id names); ``cases``: at most that many
    of the arm's cases."""
    half = len(store.case_ids(arm.split)) // 2
    limit, offset = {"all": (None, 0), "first_half": (half, 0), "second_half": (None, half)}[arm.part]
    if cases is not None:
        limit = cases if limit is None else min(cases, limit)
    player = doctor if model is None else f"{doctor}.{re.sub(r'[^A-Za-z0-9_.]+', '.', model).strip('.')}"
    preset = protocol.preset or preset
    spec = RunSpec(doctor=doctor, preset=preset, split=arm.split, cases=limit, offset=offset, condition=arm.label,
                   seed=seed, run_id=f"study-{protocol.name}-{arm.label}-{player}-{preset}-s{seed}-g{stages}"
                                     f"{'' if cases is None else f'-n{cases}'}",
                   memory=arm.memory, memory_from=run_ids[arm.source] if arm.source else None, mdt=arm.mdt,
                   study=protocol.name, stages=stages)
    settings = dict(arm.settings)
    if protocol.corrupt_share is not None and doctor != LLM:  # the LLM doctor's output is raw already
        settings |= {"corrupt_share": protocol.corrupt_share, "corrupt_normalise": arm.normalise}
    if protocol.shift is not None:
        stream = run_cases(store, spec)
        shifted = [c for c, s in stream_stages(stages, stream).items()
                   if window_of(s, stages, protocol.windows) == SHIFTED]
        settings |= {"shift": protocol.shift, "shift_cases": shifted}
    return replace(spec, settings=settings) if settings else spec


def per_model(family: Family, models: Sequence[str]) -> Family:
    """``family`` with every contrast repeated for each model's arms (one Holm family over all)."""
    return Family(family.name, family.endpoints,
                  tuple(tuple(arm_key(c, m) for c in p) for m in models for p in family.paired),
                  tuple(tuple(arm_key(c, m) for c in o) for m in models for o in family.omnibus),
                  tuple(arm_key(c, m) for m in models for c in family.trend))


@dataclass(frozen=True)
class Study:
    runs: dict[str, str]  # arm (arm_key) -> run id
    summaries: dict[str, dict[str, object]]  # arm -> run summary
    stat_tests: pl.DataFrame
    arms: pl.DataFrame  # per protocol and arm (and view): error-turn incidence and mean scores (arm_table)
    bwt: pl.DataFrame  # per protocol that reports it, model and endpoint: backward transfer (bwt_table)


def _doctor_models(doctor: str, llm: LLMConfig | None,
                   models: Sequence[str]) -> tuple[LLMConfig | None, list[str | None]]:
    """The LLM config and the doctor models a study plays ([None]: an offline doctor, once)."""
    if doctor != LLM:
        if models:
            raise ValueError(f"models name the LLM doctor's models; doctor {doctor} is offline")
        return llm, [None]
    llm = llm if llm is not None else LLMConfig.from_env()
    return llm, list(models) or [llm.role("doctor").model]


def run_study(warehouse: Warehouse, store: CaseStore, names: Sequence[str], doctor: str = DEFAULT_DOCTOR,
              preset: str = DEFAULT_PRESET, seed: int = DEFAULT_SEED, stages: int = DEFAULT_STAGES,
              progress: Callable[[str, int, int], None] | None = None, llm: LLMConfig | None = None,
              models: Sequence[str] = (), cases: int | None = None) -> Study:
    """Play, score and test the protocols ``names`` (see the module docstring); writes ``stat_tests``
    (one partition per protocol). ``llm`` serves the LLM roles (default from the environment);
    ``models``: the LLM doctor's models, each playing every arm (default the doctor role's model);
    ``cases``: at most that many cases per arm."""
    if not has_rubrics(warehouse):
        raise ValueError(f"the warehouse at {warehouse.home} has no case_rubrics / case_exam_targets to score "
                         "against: build it first (clinverse build)")
    if cases is not None and cases < 2:
        raise ValueError("a study pairs cases: play at least 2 per arm")
    order = study_order(names)
    for name in order:
        if protocols()[name].windows:
            check_windows(protocols()[name].windows, stages)
    llm, played_by = _doctor_models(doctor, llm, models)
    runs: dict[str, str] = {}
    summaries: dict[str, dict[str, object]] = {}
    played: dict[str, list[str]] = {name: [] for name in order}
    for model in played_by:
        served = llm if model is None else llm.with_roles(replace(llm.role("doctor"), model=model))
        run_ids: dict[str, str] = {}  # this doctor's arms: label -> run id
        for name in order:
            for arm in protocols()[name].arms:
                spec = arm_spec(store, protocols()[name], arm, doctor, preset, seed, stages, run_ids, model, cases)
                key = arm_key(arm.label, model)
                told = None if progress is None else (lambda done, total, key=key: progress(key, done, total))
                keep = served is None or arm.normalise is None  # the arm leaves the normaliser as configured
                served_arm = served if keep else replace(served, normalise=arm.normalise)
                _, summaries[key], _ = run_and_export(warehouse, store, spec, told, llm=served_arm)
                run_ids[arm.label] = runs[key] = spec.id
                played[name].append(spec.id)
    tables, arms, transfers = [], [], []
    for name in order:
        protocol = protocols()[name]
        scores, episodes = _scored(warehouse, played[name])
        backward = protocol.bwt
        viewed = with_views(episodes, ARM, protocol.windows, stages,
                            (backward.final, backward.online) if backward else ())
        families = declared_families(name)
        if doctor == LLM:
            families = tuple(per_model(f, played_by) for f in families)
        table = stat_table(scores, viewed, families, label=ARM)
        warehouse.write(TABLE, table, partition=name)
        tables.append(table)
        arms.append(arm_table(scores, viewed).select(pl.lit(name).alias("protocol"), pl.all()))
        if backward:
            transfers.append(bwt_table(scored_episodes(scores, viewed, ARM), name, backward, played_by))
    return Study(runs, summaries, pl.concat(tables) if tables else schemas.empty(TABLE),
                 pl.concat(arms) if arms else pl.DataFrame(), pl.concat(transfers) if transfers else pl.DataFrame())


def _scored(warehouse: Warehouse, run_ids: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The runs' ``episode_scores`` with each episode's error turns (``n_error_turns``,
    ``any_error_turn``) and DCA and DSA as Booleans, and their ``episodes`` with each episode's arm
    (:data:`ARM`), doctor model and stage."""
    episodes = pl.concat([warehouse.read_partition("episodes", r) for r in run_ids])
    runs = pl.concat([warehouse.read_partition("runs", r) for r in run_ids])
    errors = episodes.select("episode_id", "n_error_turns", (pl.col("n_error_turns") > 0).alias("any_error_turn"))
    scores = pl.concat([warehouse.read_partition(SCORES, r) for r in run_ids]).join(errors, on="episode_id")
    scores = scores.with_columns(pl.col(c) == 1.0 for c in BINARY_SCORES)
    arms = episodes.join(runs.select("run_id", "doctor_model"), on="run_id").with_columns(
        pl.when(pl.col("doctor_model").is_null()).then(pl.col("condition"))
        .otherwise(pl.col("condition") + "@" + pl.col("doctor_model")).alias(ARM))
    return scores, arms.join(episode_stages(runs, episodes), on="episode_id", how="left")


def arm_table(scores: pl.DataFrame, episodes: pl.DataFrame) -> pl.DataFrame:
    """Per arm (in the order played, each followed by its views: MedEvoEval Table 23's window
    means): its episodes, error turns per episode, the share of episodes with at least one error
    turn (MedEvoEval Table 11's incidence), mean S and U and the strict rate."""
    frame = scores.join(episodes.select("episode_id", ARM, "condition", "doctor_model"), on="episode_id",
                        maintain_order="left")
    return frame.group_by(ARM, "condition", "doctor_model", maintain_order=True).agg(
        pl.len().cast(pl.Int32).alias("episodes"), pl.col("n_error_turns").mean().alias("error_turns_per_episode"),
        pl.col("any_error_turn").mean().alias("error_episode_share"), pl.col("score_s").mean().alias("mean_s"),
        pl.col("utility_u").mean().alias("mean_u"), pl.col("strict").mean().alias("strict_rate"))


def bwt_table(frame: pl.DataFrame, protocol: str, backward: Backward, models: Sequence[str | None]) -> pl.DataFrame:
    """BWT of each endpoint of ``backward`` per model, over scored episodes labelled by :data:`ARM`."""
    rows = []
    for model in models:
        final, online = arm_key(backward.final, model), arm_key(backward.online, model)
        for endpoint in backward.endpoints:
            value, stages = bwt(frame, endpoint, final, online, label=ARM)
            rows.append({"protocol": protocol, "comparison": f"{final} vs {online}", "endpoint": endpoint,
                         "earlier_stages": stages, "bwt": value})
    return pl.DataFrame(rows, schema={"protocol": pl.Utf8, "comparison": pl.Utf8, "endpoint": pl.Utf8,
                                      "earlier_stages": pl.Int32, "bwt": pl.Float64})
