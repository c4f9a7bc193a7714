"""episodes: one row per run of one case (data-contract.md, "episodes").

``turns`` counts the doctor's action attempts (error turns included); ``n_tests`` the examinations
requested within the limit (a panel is one), ``n_invalid_tests`` those not orderable or not done for
the patient; ``duration_s`` is wall-clock time and the only column that differs between two runs
with the same configuration and seed.
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID

TERMINATIONS = ["finalized", "budget_exhausted", "error"]
COUNT = pa.Column(pl.Int32, pa.Check.ge(0))

SCHEMA = pa.DataFrameSchema(
    {
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$"), unique=True),
        "run_id": pa.Column(pl.Utf8),
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "condition": pa.Column(pl.Utf8),
        "doctor": pa.Column(pl.Utf8),
        "patient_simulator": pa.Column(pl.Utf8),
        "seed": pa.Column(pl.Int64),
        "turns": COUNT,
        "n_questions": COUNT,
        "n_tests": COUNT,
        "n_invalid_tests": COUNT,
        "n_error_turns": COUNT,
        "called_mdt": pa.Column(pl.Boolean),
        "termination": pa.Column(pl.Utf8, pa.Check.isin(TERMINATIONS)),
        "final_diagnosis": pa.Column(pl.Utf8, nullable=True),
        "final_icd10": pa.Column(pl.Utf8, nullable=True),
        "duration_s": pa.Column(pl.Float64, pa.Check.ge(0)),
    },
    name="episodes",
    strict=True,
    coerce=True,
)
