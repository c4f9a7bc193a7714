"""Judges: what grades a final output against its case's reference (S_diag, and m and h of
evidence and plan), behind one small interface so an LLM judge can replace the offline one.

A :class:`Judge` grades a batch of :class:`Submission` (the final output, the reference, what the
doctor was shown) into :class:`Grades`; the trace metrics (ICR, TOC, ATC, U) never depend on it.

The offline judge (:class:`OfflineJudge`) is deterministic:

* S_diag: the levels of pipelines/evaluation/diagnosis.py;
* m: the key points that one output item matches, by words after synonyms
  (pipelines/evaluation/text.py; ``match_share`` of the key point's words, ``data/judge.yaml``):
  evidence items against evidence points, plan and follow-up items against management points;
* h: items asserting what the trace never showed: an evidence item, or a plan item's findings (its
  words other than treatments), with less than ``support_share`` of its words in what the doctor
  was shown (presentation, patient replies, returned results; the whole case under full
  information) or in the final diagnosis. Follow-up items arrange care and assert nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pipelines.episodes.actions import Finalize
from pipelines.evaluation.diagnosis import TrueAnswer, diagnosis_level
from pipelines.evaluation.params import MatchParams, ScoringParams, match_params, scoring_params
from pipelines.evaluation.reference import CaseReference, KeyPoint
from pipelines.evaluation.text import Words, fold, judge_words, share


@dataclass(frozen=True)
class Submission:
    episode_id: str
    final: Finalize | None
    reference: CaseReference
    shown: tuple[str, ...]  # what the doctor was shown (the presentation first)
    oracle_block: bool = False


@dataclass(frozen=True)
class Grades:
    s_diag: float
    m_evi: int
    h_evi: int
    m_plan: int
    h_plan: int
    error: str | None = None  # why a judge's own answer was unusable (these grades are the fallback's)


NO_OUTPUT = Grades(0.0, 0, 0, 0, 0)


class Judge(Protocol):
    name: str

    def grade(self, submissions: Sequence[Submission]) -> list[Grades]: ...


class OfflineJudge:
    name = "offline"

    def __init__(self, words: Words | None = None, match: MatchParams | None = None,
                 scoring: ScoringParams | None = None):
        self.words = words or judge_words()
        self.match = match or match_params()
        self.levels = (scoring or scoring_params()).diagnosis_levels

    def grade(self, submissions: Sequence[Submission]) -> list[Grades]:
        return [self.grade_one(s) for s in submissions]

    def grade_one(self, s: Submission) -> Grades:
        final = s.final
        if final is None:
            return NO_OUTPUT
        s_diag = diagnosis_level(final, TrueAnswer(s.reference.manager), self.levels, s.oracle_block)
        shown = frozenset().union(*(self.words.of(t) for t in (*s.shown, final.diagnosis)))
        return Grades(
            s_diag,
            self.matched(s.reference.evidence, final.evidence),
            sum(1 for item in final.evidence if not self.supported(self.words.of(item), shown)),
            self.matched(s.reference.management, (*final.plan, *final.follow_up)),
            sum(1 for item in final.plan if not self.supported(self.words.of(item) - self.words.treatments, shown)))

    def matched(self, points: Sequence[KeyPoint], items: Sequence[str]) -> int:
        """How many key points one of ``items`` matches."""
        item_words = [self.words.of(i) for i in items]
        folded = [f" {fold(i)} " for i in items]
        count = 0
        for point in points:
            key = self.words.key(point.text)
            if key:
                count += any(share(key, w) >= self.match.match_share for w in item_words)
            else:  # a point of numbers only: its folded text must appear
                count += any(f" {fold(point.text)} " in f for f in folded)
        return count

    def supported(self, words: frozenset[str], shown: frozenset[str]) -> bool:
        return not words or share(words, shown) >= self.match.support_share
