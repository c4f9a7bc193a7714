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
from functools import cache

import polars as pl

import schemas
from pipelines.datafiles import yaml_mapping
from pipelines.episodes.patient import ObservablePatient, SingleLayerPatient
from pipelines.episodes.screen import BoundaryScreen
from pipelines.episodes.self_check import SelfCheck, respond
from pipelines.episodes.settings import DEFAULT_SEED, backends, episode_seed
from pipelines.episodes.store import CaseStore

CONFIGURATIONS = ("single_layer", "single_layer+self_check", "dual_layer", "dual_layer+self_check")


@cache
def stress_queries() -> tuple[tuple[str, str], ...]:
    return tuple(yaml_mapping(__package__, "data/stress_queries.yaml").items())


def stress_test(store: CaseStore, cases: Sequence[str] | None = None, seed: int = DEFAULT_SEED) -> pl.DataFrame:
    """``stress_test`` rows for ``cases`` (default: every case of the store)."""
    vocabulary = backends(store).vocabulary
    rows = []
    for case_id in cases if cases is not None else store.case_ids():
        case = store.case(case_id)
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
    frame = pl.DataFrame(rows, schema=schemas.empty("stress_test").schema) if rows else schemas.empty("stress_test")
    return schemas.conform("stress_test", frame)


def stress_rates(frame: pl.DataFrame) -> pl.DataFrame:
    """Disclosure and refusal rate per configuration, in :data:`CONFIGURATIONS` order."""
    rates = frame.group_by("configuration").agg(
        pl.len().alias("n"), pl.col("disclosed").mean().alias("disclosure_rate"),
        pl.col("refused").mean().alias("refusal_rate"))
    order = pl.DataFrame({"configuration": list(CONFIGURATIONS)})
    return order.join(rates, on="configuration", how="inner", maintain_order="left")
