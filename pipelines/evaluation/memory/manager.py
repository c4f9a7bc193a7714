"""The manager's write-back: after an episode is scored, the cards it leaves in the run's bank.

A manager reads a :class:`ScoredEpisode` (the trace, its events in order, its ``episode_scores``
row, the case's reference and the case itself, as the judge may) and drafts cards. The offline
manager fills the templates of ``data/memory_cards.yaml``:

* the findings: the presentation, then the facts of ``paid_importance`` (key) the episode
  elicited, in the case's order, cut so that the card fits ``max_units``;
* a success card when the diagnosis was right (S_diag = 1), with the tests that paid (returned an
  abnormal recorded result; the case's exams that matter first, then by name), else a correction
  card with the final diagnosis and the tests that did not pay;
* a rule card ``ACTION=REQUEST_TEST`` with the tests that paid, whenever one did, and after a
  right diagnosis ``ACTION=FINALIZE`` with the questions it needed: up to the last reply that
  revealed a fact of ``paid_importance`` and that the final evidence cites (0 when none did); its
  condition is the presentation alone, so it carries over to patients who present alike.

An episode that never finalised leaves no success or correction card. Every card is cut at
``max_units`` units; its ``search_text`` is its findings, diagnosis and tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import polars as pl

from pipelines.episodes.store import EpisodeCase
from pipelines.evaluation.memory.bank import Draft
from pipelines.evaluation.memory.cards import CONDITIONS, TEMPLATES, card_settings, exam_list, render, truncate, units
from pipelines.evaluation.reference import CaseReference
from pipelines.evaluation.trace import Trace


@dataclass(frozen=True)
class ScoredEpisode:
    trace: Trace
    events: tuple[Mapping[str, Any], ...]  # its episode_events rows, in the order they happened
    score: Mapping[str, Any]  # its episode_scores row
    reference: CaseReference
    case: EpisodeCase

    @property
    def right(self) -> bool:
        return self.trace.final is not None and self.score["s_diag"] == 1.0


class Manager(Protocol):
    name: str

    def cards(self, episode: ScoredEpisode) -> list[Draft]: ...

    def requests(self) -> pl.DataFrame | None:
        """The ``llm_requests`` rows of the requests since the last call (None: it sends none)."""
        ...


def findings(e: ScoredEpisode) -> str:
    """The presentation, then the facts of paid importance the episode elicited."""
    paid = card_settings().paid_importance
    facts = [u.text for u in e.case.patient.units
             if u.unit_id in e.trace.elicited and not u.disclosed and u.importance in paid]
    return " ".join([e.case.presentation, "; ".join(facts)]).strip()


def paid_tests(e: ScoredEpisode) -> list[str]:
    """The tests that returned an abnormal recorded result, the exams that matter first."""
    results = e.case.exams.by_name
    rank = {t.exam_name: i for i, t in enumerate(e.reference.targets)}
    paid = [n for n in e.trace.returned if n in results and results[n].abnormal and results[n].origin == "recorded"]
    return sorted(paid, key=lambda n: (rank.get(n, len(rank)), n))


def questions_that_paid(e: ScoredEpisode) -> int:
    """The questions asked up to the last reply that the final evidence cites and that revealed a
    hidden fact of paid importance (0 when no such reply was needed)."""
    paid, cited = card_settings().paid_importance, set(e.trace.final.evidence if e.trace.final else ())
    asked = last = 0
    for event in e.events:
        if event["actor"] == "patient" and event["action"] == "REPLY":
            asked += 1
            revealed = any(e.reference.hidden.get(u) in paid for u in event["unit_ids"] or ())
            if revealed and event["content"].strip() in cited:
                last = asked
    return last


def draft(template: str, e: ScoredEpisode, **values: object) -> Draft:
    """A card of ``template`` about episode ``e``, its condition cut so that the card fits."""
    s = card_settings()
    condition = {"findings": findings(e), "presentation": e.case.presentation}
    room = s.max_units - units(s.templates[template].format(findings="", presentation="", **values))
    cut = {k: truncate(v, max(1, min(s.findings_units, room))).rstrip(" .;") for k, v in condition.items()}
    used = next(k for k in CONDITIONS if f"{{{k}}}" in s.templates[template])
    search = " ".join([cut[used], *(str(v) for k, v in values.items() if k != "questions")])
    return Draft(TEMPLATES[template][0], render(template, **cut, **values), truncate(search))


class OfflineManager:
    name = "offline"

    def cards(self, e: ScoredEpisode) -> list[Draft]:
        paid, final = paid_tests(e), e.trace.final
        out: list[Draft] = []
        if final is not None:
            if e.right:
                out.append(draft("success", e, diagnosis=final.diagnosis, code=final.icd10, tests=exam_list(paid)))
            else:
                wasted = sorted(e.trace.ordered - set(paid))
                out.append(draft("correction", e, diagnosis=final.diagnosis, code=final.icd10,
                                 tests=exam_list(wasted)))
        if paid:
            out.append(draft("request_test", e, tests=exam_list(paid)))
        if e.right:
            out.append(draft("finalize", e, questions=questions_that_paid(e)))
        return out

    def requests(self) -> None:
        return None

