"""llm_requests: one row per LLM request of an episode run, all its attempts together (the
resource ledger of pipelines/episodes/llm/ledger.py; MedEvoEval Table 10 sums it per run).

Partitioned like ``episodes`` (one file per batch of a run). Not in data-contract.md: it was added
with the LLM backends so a study's cost is kept beside its traces.
"""

import pandera.polars as pa
import polars as pl

STATUSES = ["ok", "timeout", "connection_error", "server_error", "client_error", "api_error"]

SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(pl.Utf8),
        "episode_id": pa.Column(pl.Utf8),
        "case_id": pa.Column(pl.Utf8),
        "role": pa.Column(pl.Utf8, pa.Check.isin(["doctor", "patient", "consultant", "judge", "manager"])),
        "seq": pa.Column(pl.Int32, pa.Check.ge(0)),  # the request's number within its episode and role
        "turn": pa.Column(pl.Int32, nullable=True),
        "model": pa.Column(pl.Utf8),
        "host": pa.Column(pl.Utf8),
        "status": pa.Column(pl.Utf8, pa.Check.isin(STATUSES)),
        "error": pa.Column(pl.Utf8, nullable=True),
        "attempts": pa.Column(pl.Int32, pa.Check.ge(0)),
        "retries": pa.Column(pl.Int32, pa.Check.ge(0)),
        "prompt_tokens": pa.Column(pl.Int64, nullable=True),  # null: the server reported no usage
        "completion_tokens": pa.Column(pl.Int64, nullable=True),
        "latency_s": pa.Column(pl.Float64, pa.Check.ge(0)),  # first attempt to last answer, backoff included
        "started_s": pa.Column(pl.Float64, pa.Check.ge(0)),  # since the batch's ledger opened
        "parsed": pa.Column(pl.Boolean, nullable=True),  # doctor outputs only
        "repairs": pa.Column(pl.List(pl.Utf8)),
    },
    name="llm_requests",
    strict=True,
    coerce=True,
)
