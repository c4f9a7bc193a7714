"""episode_scores: one row per episode, the judge's scores of its recorded trace
(data-contract.md, "episode_scores" and "Definitions that the scores must follow"; computed by
pipelines/evaluation/scores.py from ``episodes``, ``episode_events`` and the case's manager-side
reference: diagnosis and codes, ``case_rubrics``, ``case_exam_targets``, hidden units' importance).

Partitioned like ``episodes``, one file per run (partition = run id). Beside the contract's
scores the row keeps every component they are computed from, so any weighting can be recomputed
without rerunning an episode:

* ICR: hidden units (``n_hidden_<importance>``) and those elicited (``n_elicited_<importance>``);
* TOC / ATC: the first ``test_limit`` exams that matter (``n_exams_matter``) and how many of them
  were ordered (``n_matter_ordered``); their abnormal ones (``n_abnormal_matter``) and how many were
  surfaced (``n_abnormal_surfaced``);
* exam precision / recall / F1: distinct exams ordered (``n_exams_ordered``), all exams that matter
  (``n_targets``) and the ordered ones among them (``n_targets_ordered``);
* S: ``k``, ``m`` and ``h`` of evidence and plan, ``plan_redistributed`` / ``evidence_redistributed``
  (no key point of that kind: its weight went to the other components, and ``s_plan`` / ``s_evi``
  is null);
* U: ``turns_t`` (ASK + REQUEST_TEST + error turns), ``tests_e``, ``invalid_rate_r``, ``c_t``, ``e_max``.

``judge`` names the judge; ``judge_error`` is why an LLM judge's answer was unusable (its grades
then come from the offline judge). ``full_information``: the doctor was given the whole case (the
reference condition); ``oracle_block``: the true block was given and a prediction outside it is wrong.
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID

UNIT = pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0))
COUNT = pa.Column(pl.Int32, pa.Check.ge(0))
LEVELS = [0.0, 0.25, 0.5, 0.75, 1.0]

SCHEMA = pa.DataFrameSchema(
    {
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$"), unique=True),
        "run_id": pa.Column(pl.Utf8),
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "judge": pa.Column(pl.Utf8),
        "judge_error": pa.Column(pl.Utf8, nullable=True),
        # the contract's scores
        "icr": UNIT,
        "toc": UNIT,
        "atc": UNIT,
        "dca": UNIT,
        "dsa": UNIT,
        "exam_precision": UNIT,
        "exam_recall": UNIT,
        "exam_f1": UNIT,
        "s_diag": pa.Column(pl.Float64, pa.Check.isin(LEVELS)),
        "s_evi": pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True),
        "s_plan": pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True),
        "score_s": UNIT,
        "utility_u": pa.Column(pl.Float64),
        "strict": pa.Column(pl.Boolean),
        "pass": pa.Column(pl.Boolean),
        # their components
        "n_hidden_key": COUNT,
        "n_hidden_supporting": COUNT,
        "n_hidden_background": COUNT,
        "n_elicited_key": COUNT,
        "n_elicited_supporting": COUNT,
        "n_elicited_background": COUNT,
        "n_exams_matter": COUNT,
        "n_matter_ordered": COUNT,
        "n_abnormal_matter": COUNT,
        "n_abnormal_surfaced": COUNT,
        "n_exams_ordered": COUNT,
        "n_targets": COUNT,
        "n_targets_ordered": COUNT,
        "k_evi": COUNT,
        "m_evi": COUNT,
        "h_evi": COUNT,
        "k_plan": COUNT,
        "m_plan": COUNT,
        "h_plan": COUNT,
        "turns_t": COUNT,
        "tests_e": COUNT,
        "invalid_rate_r": UNIT,
        "c_t": pa.Column(pl.Int32, pa.Check.ge(1)),
        "e_max": pa.Column(pl.Int32, pa.Check.ge(1)),
        "plan_redistributed": pa.Column(pl.Boolean),
        "evidence_redistributed": pa.Column(pl.Boolean),
        "full_information": pa.Column(pl.Boolean),
        "oracle_block": pa.Column(pl.Boolean),
    },
    name="episode_scores",
    strict=True,
    coerce=True,
)
