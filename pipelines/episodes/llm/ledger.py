"""The resource ledger: one row per LLM request, summed per run (MedEvoEval Table 10).

Each request (all its attempts together) records its role, episode, model and host, how it ended
(``ok``, ``timeout``, ``connection_error``, ``server_error``, ``client_error``, ``api_error``;
schemas/llm_requests.py, the warehouse table a run writes them to),
its attempts and retries, the prompt and completion tokens the server reported in ``usage``
(null when it reported none), its latency (first attempt to last answer, backoff included) and,
for doctor outputs, whether they parsed and what the normaliser repaired. :meth:`Ledger.summary`
gives the run's totals (requests, tokens, retries, failures, wall time, peak requests in flight),
per role as well; it is what a run reports as metadata.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import polars as pl

import schemas


@dataclass
class Request:
    """One request's record; the doctor fills ``parsed`` and ``repairs`` after reading the output."""

    run_id: str
    episode_id: str
    case_id: str
    role: str
    seq: int  # the request's number within its episode and role, from 0
    turn: int | None
    model: str
    host: str
    status: str = "ok"
    error: str | None = None
    attempts: int = 0
    retries: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    started_s: float = 0.0  # since the ledger opened
    parsed: bool | None = None
    repairs: list[str] = field(default_factory=list)


class Ledger:
    def __init__(self, run_id: str):
        self.run_id = run_id
        self.opened = time.perf_counter()
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._seq: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def open(self, episode_id: str, case_id: str, role: str, turn: int | None, model: str, host: str) -> Request:
        with self._lock:
            seq = self._seq.get((episode_id, role), 0)
            self._seq[(episode_id, role)] = seq + 1
            request = Request(self.run_id, episode_id, case_id, role, seq, turn, model, host,
                              started_s=time.perf_counter() - self.opened)
            self.requests.append(request)
            return request

    def sending(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def answered(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def frame(self) -> pl.DataFrame:
        with self._lock:
            rows = [{**vars(r), "repairs": list(r.repairs)} for r in self.requests]  # asdict's deep copy costs more
        frame = pl.DataFrame(rows, schema=schemas.empty("llm_requests").schema)
        return schemas.conform("llm_requests", frame.sort("episode_id", "role", "seq"))

    def summary(self, wall_s: float | None = None, limit: int | None = None) -> dict[str, Any]:
        """The run's resource use: Table 10's calls, input and output tokens and time, and more."""
        frame = self.frame()
        out = {**totals(frame), "wall_s": round(wall_s if wall_s is not None else time.perf_counter() - self.opened, 3),
               "max_in_flight": self.max_in_flight, "max_in_flight_limit": limit}
        out["wall_min"] = round(out["wall_s"] / 60, 3)
        out["by_role"] = {role: totals(frame.filter(pl.col("role") == role))
                          for role in sorted(set(frame["role"].to_list()))}
        return out

    def per_episode(self) -> pl.DataFrame:
        return per_episode(self.frame())


def per_episode(requests: pl.DataFrame) -> pl.DataFrame:
    """Requests, tokens, retries, failures and latency per episode and role, from ledger rows."""
    return (requests.group_by("episode_id", "case_id", "role")
            .agg(pl.len().alias("requests"), pl.col("prompt_tokens").sum(), pl.col("completion_tokens").sum(),
                 pl.col("retries").sum(), (pl.col("status") != "ok").sum().alias("failed"),
                 pl.col("latency_s").sum())
            .sort("episode_id", "role"))


def totals(frame: pl.DataFrame) -> dict[str, Any]:
    prompt = int(frame["prompt_tokens"].sum() or 0)
    completion = int(frame["completion_tokens"].sum() or 0)
    return {
        "requests": frame.height,
        "attempts": int(frame["attempts"].sum() or 0),
        "retries": int(frame["retries"].sum() or 0),
        "failed": int((frame["status"] != "ok").sum()),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "latency_s": round(float(frame["latency_s"].sum() or 0.0), 3),
        "repaired_outputs": int((frame["repairs"].list.len() > 0).sum()),
        "unparsed_outputs": int((frame["parsed"] == False).sum()),  # noqa: E712 (a polars expression)
    }
