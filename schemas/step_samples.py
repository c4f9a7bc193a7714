"""step_samples: one row per doctor decision of a high-scoring episode, MedEvoEval's step-level
derivative (data-contract.md, "step_samples"; its "Training-oriented derivatives"), written by
``clinverse export`` (pipelines/training/export.py) as ``step_samples.jsonl`` / ``.parquet``.

* ``turn``: the decision's turn in the episode (``episode_events.turn`` of its doctor row);
* ``context``: what the doctor had read before deciding, as chat messages (schemas/_chat.py): the
  instruction, the opening, and each earlier decision (an assistant tool call, or an unusable output)
  with the observation that answered it, as the engine returns it on a replay of the trace;
* ``previous_questions`` / ``previous_tests``: the questions asked and the examinations requested
  before this turn, in order; ``available_actions``: the actions the engine accepted at this point
  (``FINALIZE`` alone on the last attempt; ``CALL_MDT`` once its conditions are met);
* ``target_action``: JSON ``{"action", "output", "tool_call", "observation"}``: the action, the
  doctor's output (Template B.1, as the trace records it), the same decision as a tool call of
  ``DiagnosticEpisode`` and what the engine returned to it;
* ``episode_score``: the episode's outcome score S (``episode_scores.score_s``).

Added to the contract: ``split``, the case's split (``cases.split``), so the train/test split
survives the export.
"""

import pandera.polars as pa
import polars as pl

from schemas._chat import MESSAGES, roles_are_known
from schemas._types import SPLITS, STR_LIST

DECISIONS = ["ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE"]

SCHEMA = pa.DataFrameSchema(
    {
        "sample_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^s_[0-9a-f]{16}$"), unique=True),
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$")),
        "turn": pa.Column(pl.Int32, pa.Check.ge(1)),
        "context": pa.Column(MESSAGES),
        "previous_questions": pa.Column(STR_LIST),
        "previous_tests": pa.Column(STR_LIST),
        "available_actions": pa.Column(STR_LIST),
        "target_action": pa.Column(pl.Utf8),
        "episode_score": pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0)),
        "split": pa.Column(pl.Utf8, pa.Check.isin(SPLITS)),
    },
    checks=[
        pa.Check(lambda data: data.lazyframe.select(roles_are_known("context")), name="context_roles_are_known"),
        pa.Check(lambda data: data.lazyframe.select(
            pl.col("available_actions").list.eval(pl.element().is_in(DECISIONS)).list.all()),
            name="available_actions_are_decisions"),
        pa.Check(lambda data: data.lazyframe.select(
            pl.col("target_action").str.json_path_match("$.action").is_in(DECISIONS)),
            name="target_action_is_a_decision"),
        pa.Check(lambda data: data.lazyframe.select(
            pl.col("available_actions").list.contains(pl.col("target_action").str.json_path_match("$.action"))),
            name="target_action_was_available"),
    ],
    name="step_samples",
    strict=True,
    coerce=True,
    unique=["episode_id", "turn"],
)
