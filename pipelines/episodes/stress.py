"""The boundary stress test (ClinVerse Table 5): six boundary-seeking queries per case
(data/stress_queries.yaml) under four configurations, a single-layer patient that sees the whole
case or the dual-layer observable patient, each with and without the self-check.

``disclosed`` is the lexical screen of the reply (pipelines/episodes/screen.py: diagnosis terms,
codes, examination values); ``refused`` whether the patient declined (self-check). The
self-check applies that same screen to every reply it lets through, so a configuration with the
self-check discloses nothing the screen can see; the dual layer without it discloses only what
the patient view itself holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path

import polars as pl

import schemas
from pipelines.datafiles import yaml_mapping
from pipelines.episodes.patient import ObservablePatient, SingleLayerPatient
from pipelines.episodes.retrieval import Vocabulary
from pipelines.episodes.screen import BoundaryScreen
from pipelines.episodes.self_check import SelfCheck, respond
from pipelines.episodes.settings import DEFAULT_SEED, backends, episode_seed, unit_vocabulary
from pipelines.episodes.store import CaseStore
from pipelines.warehouse import Warehouse
from pipelines.workers import ordered_map

CONFIGURATIONS = ("single_layer", "single_layer+self_check", "dual_layer", "dual_layer+self_check")
# Cases per task in worker processes: each worker fits the patients' vocabulary once (a few seconds at
# 5,000 admissions) and each task reads its cases' rows, so a task must hold many cases to pay for it.
CASES_PER_TASK = 1000


@cache
def stress_queries() -> tuple[tuple[str, str], ...]:
    return tuple(yaml_mapping(__package__, "data/stress_queries.yaml").items())


def stress_test(source: CaseStore | Warehouse, cases: Sequence[str] | None = None, seed: int = DEFAULT_SEED,
                workers: int = 1, vocabulary: Vocabulary | None = None) -> pl.DataFrame:
    """``stress_test`` rows for ``cases`` (default: every case), in case order. From a warehouse (the
    build's), runs of :data:`CASES_PER_TASK` cases go to ``workers`` processes, or with one worker
    run here (:func:`pipelines.workers.ordered_map`); a process fits the vocabulary of every case's
    units once and reads only its runs' cases, so its memory does not grow with the cohort. A case's
    rows depend on the case, the seed and that vocabulary (``vocabulary``; from a store, default:
    the store's), not on which process asks, so the rows are the same whatever the count."""
    if isinstance(source, Warehouse):
        ids = list(cases) if cases is not None else CaseStore.case_ids_of(source)
        tasks = ((source.home, source.generation, ids[i : i + CASES_PER_TASK], seed)
                 for i in range(0, len(ids), CASES_PER_TASK))
        return pl.concat([_rows([]), *ordered_map(_stress_part, tasks, workers)])
    store = source
    ids = list(cases) if cases is not None else store.case_ids()
    vocabulary = vocabulary or backends(store).vocabulary
    rows = []
    for case in store.each_case(ids):
        case_id = case.case_id
        screen = BoundaryScreen(case.manager, case.exams)
        for configuration in CONFIGURATIONS:
            case_seed = episode_seed(seed, case_id)
            patient = (SingleLayerPatient(case, vocabulary, case_seed) if configuration.startswith("single")
                       else ObservablePatient(case.patient, vocabulary, case_seed))
            check = SelfCheck(screen) if configuration.endswith("+self_check") else None
            for kind, query in stress_queries():
                reply = respond(patient, query, check)
                rows.append({"case_id": case_id, "configuration": configuration, "query_kind": kind,
                             "query": query, "reply": reply.text, "disclosed": screen.discloses(reply.text),
                             "refused": reply.self_check == "blocked"})
    return _rows(rows)


def _rows(rows: list[dict]) -> pl.DataFrame:
    frame = pl.DataFrame(rows, schema=schemas.empty("stress_test").schema) if rows else schemas.empty("stress_test")
    return schemas.conform("stress_test", frame)


def _stress_part(home: Path, generation: str | None, cases: list[str], seed: int) -> pl.DataFrame:
    """One run of cases of :func:`stress_test` (in a worker process, or here): their rows of the warehouse."""
    store = CaseStore.from_warehouse(Warehouse(home, generation), cases, optional=())
    return stress_test(store, cases, seed, vocabulary=_vocabulary(home, generation))


@lru_cache(maxsize=1)  # a process's runs all read one warehouse: fitted once
def _vocabulary(home: Path, generation: str | None) -> Vocabulary:
    return unit_vocabulary(CaseStore.unit_texts_of(Warehouse(home, generation)))


def stress_rates(frame: pl.DataFrame) -> pl.DataFrame:
    """Disclosure and refusal rate per configuration, in :data:`CONFIGURATIONS` order."""
    rates = frame.group_by("configuration").agg(
        pl.len().alias("n"), pl.col("disclosed").mean().alias("disclosure_rate"),
        pl.col("refused").mean().alias("refusal_rate"))
    order = pl.DataFrame({"configuration": list(CONFIGURATIONS)})
    return order.join(rates, on="configuration", how="inner", maintain_order="left")
