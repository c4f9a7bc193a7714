"""runs: one row per episode run (data-contract.md, "runs").

``config`` is the JSON of every setting the run used (preset budgets and policies, doctor,
patient simulator, condition), so a run can be repeated from its row alone.
"""

import pandera.polars as pa
import polars as pl

MEMORY_MODES = ["off", "empty", "prepopulated", "frozen"]
# The tables one episode run writes, a partition per run each (memory_cards only with experience memory).
RUN_TABLES = ("runs", "episodes", "episode_events", "llm_requests", "memory_cards")

SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1), unique=True),
        "created_at": pa.Column(pl.Datetime("us", "UTC")),
        "protocol": pa.Column(pl.Utf8),
        "doctor": pa.Column(pl.Utf8),
        "doctor_model": pa.Column(pl.Utf8, nullable=True),
        "patient_simulator": pa.Column(pl.Utf8),
        "patient_model": pa.Column(pl.Utf8, nullable=True),
        "judge": pa.Column(pl.Utf8),
        "memory_mode": pa.Column(pl.Utf8, pa.Check.isin(MEMORY_MODES)),
        "memory_source_run": pa.Column(pl.Utf8, nullable=True),
        "seed": pa.Column(pl.Int64),
        "config": pa.Column(pl.Utf8),
        "case_selection": pa.Column(pl.Utf8),
    },
    name="runs",
    strict=True,
    coerce=True,
)
