"""trajectories: one row per episode, its whole consultation as chat messages with its final output
and every score; written by ``clinverse export`` (pipelines/training/export.py) as
``trajectories.jsonl`` / ``.parquet``, not kept in the warehouse.

Added to the contract with the export (MedEvoEval's "complete-episode trajectories"):

* who and what: ``episode_id``, ``run_id``, ``case_id``, the case's ``split``, ``source`` and
  ``dataset`` (``cases``), the run's ``doctor``, ``doctor_model``, ``patient_simulator`` and
  ``protocol`` (``runs``), and from ``episodes`` its ``condition``, ``seed``, ``termination`` and counts;
* ``messages`` (schemas/_chat.py): the instruction, the opening, then per doctor turn an assistant
  message (a tool call of ``DiagnosticEpisode``, or the unusable output of an error turn) and the
  observation that answered it (a ``tool`` message; a ``user`` message after an error turn);
* ``observed``: ``replayed`` when the observations are the engine's own on a replay that reproduced
  every recorded event (what the doctor read, panel headings and memory cards included), ``trace``
  when the run cannot be replayed offline (an LLM patient or consultant) or the replay did not
  reproduce it: the observations are then the recorded replies, joined;
* ``final_output``: the FINALIZE action (null when the episode did not finalise);
* the scores of ``episode_scores`` (null where the run is not scored): ``judge``, ``icr`` ... ``pass``.
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID
from schemas._chat import MESSAGES, roles_are_known
from schemas._types import SOURCES, SPLITS, STR_LIST
from schemas.episode_scores import SCHEMA as SCORES
from schemas.episodes import TERMINATIONS

OBSERVED = ["replayed", "trace"]
SCORE_COLUMNS = ("icr", "toc", "atc", "dca", "dsa", "exam_precision", "exam_recall", "exam_f1", "s_diag", "s_evi",
                 "s_plan", "score_s", "utility_u", "strict", "pass")
FINAL_OUTPUT = pl.Struct({"diagnosis": pl.Utf8, "icd10": pl.Utf8, "evidence": STR_LIST, "plan": STR_LIST,
                          "follow_up": STR_LIST})
COUNT = pa.Column(pl.Int32, pa.Check.ge(0))

SCHEMA = pa.DataFrameSchema(
    {
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$"), unique=True),
        "run_id": pa.Column(pl.Utf8),
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "split": pa.Column(pl.Utf8, pa.Check.isin(SPLITS)),
        "source": pa.Column(pl.Utf8, pa.Check.isin(SOURCES)),
        "dataset": pa.Column(pl.Utf8),
        "doctor": pa.Column(pl.Utf8),
        "doctor_model": pa.Column(pl.Utf8, nullable=True),
        "patient_simulator": pa.Column(pl.Utf8),
        "protocol": pa.Column(pl.Utf8),
        "condition": pa.Column(pl.Utf8),
        "seed": pa.Column(pl.Int64),
        "termination": pa.Column(pl.Utf8, pa.Check.isin(TERMINATIONS)),
        "turns": COUNT,
        "n_questions": COUNT,
        "n_tests": COUNT,
        "n_error_turns": COUNT,
        "observed": pa.Column(pl.Utf8, pa.Check.isin(OBSERVED)),
        "messages": pa.Column(MESSAGES),
        "final_output": pa.Column(FINAL_OUTPUT, nullable=True),
        "judge": pa.Column(pl.Utf8, nullable=True),
        # episode_scores' definitions of the scores, each nullable (an unscored run has none)
        **{name: pa.Column(SCORES.columns[name].dtype, SCORES.columns[name].checks, nullable=True)
           for name in SCORE_COLUMNS},
    },
    checks=[pa.Check(lambda data: data.lazyframe.select(roles_are_known("messages")), name="message_roles_are_known")],
    name="trajectories",
    strict=True,
    coerce=True,
)
