"""``llm_overhead_ms_per_request``: what the environment itself spends on one LLM request.

An LLM doctor and an LLM patient play every case of a warehouse against the loopback server of
``pipelines.episodes.llm.loopback``, which answers at once. The server runs in a child process, so
this process's CPU time is the environment's own cost alone (the openai client, the engine, the
bridge between them, the ledger, the parsing): divided by the requests sent, it is the key (issue
goal: under 5 ms with 64 requests in flight). The wall time per request and the most requests in
flight that the run reached are reported beside it. The shared offline backends are fitted and the
client warmed up on a few cases before anything is timed.

``python -m benchmarks.llm_overhead`` is the child: it prints the server's base URL and serves
until its standard input closes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.driver import run_llm_episodes
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, turn_of
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore

IN_FLIGHT = 64
DOCTOR_SCRIPT = [
    {"action": "ASK", "question": "What brings you in today?"},
    {"action": "REQUEST_TEST", "test_name": "CBC"},
    {"action": "FINALIZE", "diagnosis": ["Pneumonia"], "icd10": "J18.9", "evidence": ["cough"],
     "plan": ["antibiotics"], "followup": ["review in 48 hours"]},
]
PATIENT_REPLY = json.dumps({"utterance": "I have had a cough for a few days.", "facts": []})


def respond(body: dict[str, Any]) -> Reply:
    if body["model"] == "bench-patient":
        return Reply(PATIENT_REPLY)
    return Reply(json.dumps(DOCTOR_SCRIPT[min(turn_of(body), len(DOCTOR_SCRIPT) - 1)]))


def _config(base_url: str, in_flight: int) -> LLMConfig:
    return LLMConfig({role: RoleConfig(role, base_url, f"bench-{role}", timeout_s=30.0) for role in ("doctor", "patient")},
                     max_in_flight=in_flight)


def measure(home: Path, in_flight: int = IN_FLIGHT) -> dict[str, Any]:
    store = CaseStore.from_home(home)
    backends = EpisodeSettings(store, "clinverse").backends
    backends.vocabulary, backends.knowledge, backends.consultant, backends.clinlab  # noqa: B018 - fit untimed
    case_ids = store.case_ids()
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.llm_overhead"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        llm = _config(server.stdout.readline().strip(), in_flight)
        run_llm_episodes(store, "llm", "llm", "clinverse", case_ids[:8], 7, "bench-llm-warmup", llm=llm)
        cpu, wall = time.process_time(), time.perf_counter()
        done = run_llm_episodes(store, "llm", "llm", "clinverse", case_ids, 7, "bench-llm", llm=llm)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    requests = done.requests.height
    return {
        "episodes": done.episodes.height, "requests": requests,
        "failed": int((done.requests["status"] != "ok").sum()),
        "llm_overhead_ms_per_request": round(1000 * cpu / requests, 3),
        "wall_ms_per_request": round(1000 * wall / requests, 3),
        "max_in_flight": done.resources["max_in_flight"], "max_in_flight_limit": in_flight,
    }


def serve() -> None:
    with FakeOpenAI(respond) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the parent closes the pipe


if __name__ == "__main__":
    serve()
