"""The trainer's reward: the outcome score S of a live episode, scored like a recorded one.

:func:`outcome_score` frames the engine's events as trace rows and scores them with the offline
judge against the case's reference; it needs the rubrics (``case_rubrics`` and
``case_exam_targets`` in the store), and :func:`store_references` is None without them (the
episode then falls back to block-level agreement, pipelines/episodes/judge.py).
"""

from __future__ import annotations

from functools import cache

from pipelines.episodes.engine import Engine
from pipelines.episodes.events import event_rows
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.judges import OfflineJudge
from pipelines.evaluation.params import scoring_params
from pipelines.evaluation.reference import References
from pipelines.evaluation.scores import Conditions, collected, exam_choice, score_row, submission, targets_of
from pipelines.evaluation.trace import trace_of

TRAINER = "trainer"  # the doctor of a live episode: not privileged


@cache
def store_references(store: CaseStore) -> References | None:
    rubrics, targets = store.table("case_rubrics"), store.table("case_exam_targets")
    return None if rubrics is None or targets is None else References(store, rubrics, targets)


@cache
def _judge() -> OfflineJudge:
    return OfflineJudge()


def outcome_score(engine: Engine, case_id: str, references: References) -> float:
    """S of the episode ``engine`` runs on ``case_id`` (0 until it is finalised)."""
    tally, config = engine.tally, engine.config
    episode = {"episode_id": engine.episode_id, "run_id": "live", "case_id": case_id, "doctor": TRAINER,
               "n_tests": tally.n_tests, "n_invalid_tests": tally.n_invalid_tests}
    trace = trace_of(episode, event_rows(engine.episode_id, engine.events))
    conditions = Conditions(config.action_budget, config.test_limit, config.oracle_block, config.vignette)
    reference = references[case_id]
    grades = _judge().grade_one(submission(trace, reference, conditions))
    choice = exam_choice([(collected(trace, reference, conditions)[2], targets_of(reference))])[0]
    return score_row(trace, reference, grades, conditions, _judge().name, scoring_params(), choice)["score_s"]
