"""What the judge scores an episode against: the manager-side reference of its case.

The judge is an authorised role (like the laboratory physician it may read the latent case): a
:class:`CaseReference` holds the case's manager view (diagnosis, acceptable names and codes), its
rubric key points (``case_rubrics``), its exams that matter (``case_exam_targets``), the importance
of its hidden units (for ICR) and, for the full-information condition, the whole case as text.
Everything comes from stored tables, so a trace exported as JSON lines can be re-scored anywhere
the warehouse is readable. :class:`References` builds them on first use.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.episodes.lab import render
from pipelines.episodes.llm.egress import DataOrigin
from pipelines.episodes.store import CaseStore
from pipelines.episodes.views import ManagerView


@dataclass(frozen=True)
class KeyPoint:
    ordinal: int
    text: str
    source_ref: str


@dataclass(frozen=True)
class Target:
    exam_name: str
    abnormal: bool


@dataclass(frozen=True)
class CaseReference:
    case_id: str
    origin: DataOrigin  # where the case's text comes from (an LLM judge's egress guard)
    presentation: str
    manager: ManagerView
    hidden: dict[str, str]  # unit_id -> importance of the units not in the opening presentation
    recorded: frozenset[str]  # every exam the case recorded
    targets: tuple[Target, ...]  # the exams that matter, best-ranked first
    evidence: tuple[KeyPoint, ...]
    management: tuple[KeyPoint, ...]
    full_case: str  # every unit and recorded result, as the full-information doctor is given them


class References:
    """The references of a store's cases, built from ``case_rubrics`` and ``case_exam_targets``."""

    def __init__(self, store: CaseStore, rubrics: pl.DataFrame, targets: pl.DataFrame):
        self.store = store
        self._rubrics = grouped(rubrics.sort("case_id", "kind", "ordinal"))
        self._targets = grouped(targets.sort("case_id", "rank"))
        self._origins = {cid: DataOrigin(s, d) for cid, s, d in store.cases.select("case_id", "source", "dataset")
                         .iter_rows()}
        self._built: dict[str, CaseReference] = {}

    def __getitem__(self, case_id: str) -> CaseReference:
        if case_id not in self._built:
            self._built[case_id] = self._reference(case_id)
        return self._built[case_id]

    def _reference(self, case_id: str) -> CaseReference:
        case = self.store.case(case_id)
        rubric = self._rubrics.get(case_id, [])
        points = {kind: tuple(KeyPoint(r["ordinal"], r["key_point"], r["source_ref"]) for r in rubric
                              if r["kind"] == kind) for kind in ("evidence", "management")}
        results = [r for r in case.exams.by_name.values() if r.origin == "recorded"]
        return CaseReference(
            case_id=case_id, origin=self._origins[case_id], presentation=case.presentation, manager=case.manager,
            hidden={u.unit_id: u.importance for u in case.patient.hidden},
            recorded=frozenset(r.exam_name for r in results),
            targets=tuple(Target(r["exam_name"], r["abnormal"]) for r in self._targets.get(case_id, [])),
            evidence=points["evidence"], management=points["management"],
            full_case="\n".join([*(u.text for u in case.patient.units), *(render(r) for r in results)]))


def grouped(frame: pl.DataFrame) -> dict[str, list[dict]]:
    """Rows by ``case_id``, in the frame's order."""
    out: dict[str, list[dict]] = {}
    for row in frame.iter_rows(named=True):
        out.setdefault(row["case_id"], []).append(row)
    return out
