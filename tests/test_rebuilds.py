"""Rebuilds as a user lives them, through `clinverse` in separate processes: readers querying while
a build runs never fail, and a build killed in the Synthea stage leaves the previous tables
published and is cleaned up by the next build."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.cli import main
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow
WITHOUT_SYNTHEA = "not group:profiles and not group:evaluation"  # profiles and what reads them
UNSET = ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME",
         "CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_SYNTHEA_CMD")


@pytest.fixture()
def mimic(tmp_path, monkeypatch) -> Path:
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLINVERSE_STRUCTURED_ONLY", "mimic_iv")  # MIMIC-IV alone has no complaint to open a case with
    assert main(["demo-data", str(tmp_path / "src"), "--admissions", "20", "--seed", "2"]) == 0
    return tmp_path / "src" / "mimic-iv"


def _clinverse(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pipelines.cli", *args], env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_queries_during_a_rebuild_never_fail(mimic, tmp_path):
    home = tmp_path / "home"
    build = ["build", "--mimic-iv", str(mimic), "--home", str(home), "--select", WITHOUT_SYNTHEA]
    assert main(build) == 0
    expected = Warehouse(home).rows("cases")
    rebuild = _clinverse(*build)
    answers, failures = 0, []
    while rebuild.poll() is None:
        query = subprocess.run([sys.executable, "-m", "pipelines.cli", "query", "--home", str(home), "--format", "csv",
                                "SELECT count(*) AS n FROM cases"], capture_output=True, text=True)
        if query.returncode != 0:
            failures.append(query.stderr)
        else:
            answers += 1
            assert query.stdout.splitlines() == ["n", str(expected)]  # the same input gives the same cases
    assert rebuild.returncode == 0, rebuild.stderr.read()
    assert failures == [] and answers >= 1


def test_a_build_killed_during_synthea_leaves_the_previous_tables(mimic, tmp_path):
    home = tmp_path / "home"
    assert main(["build", "--mimic-iv", str(mimic), "--home", str(home), "--select", WITHOUT_SYNTHEA]) == 0
    wh = Warehouse(home)
    published, cases = wh.published_at(), wh.rows("cases")
    started = tmp_path / "synthea-started"
    synthea = tmp_path / "slow-synthea"
    synthea.write_text(f"#!/bin/sh\ntouch {started}\nsleep 120\n")
    synthea.chmod(0o755)
    build = _clinverse("build", "--mimic-iv", str(mimic), "--home", str(home), env={"CLINVERSE_SYNTHEA_CMD": str(synthea)})
    deadline = time.monotonic() + 240
    while not started.exists():
        assert build.poll() is None, build.stderr.read()
        assert time.monotonic() < deadline, "the build never reached Synthea"
        time.sleep(0.2)
    os.killpg(build.pid, signal.SIGKILL)
    build.wait()
    assert wh.published_at() == published and wh.rows("cases") == cases and not wh.exists("profiles")
    left_behind = [p for p in (home / "generations").iterdir() if p.is_dir() and p.name != published]
    assert left_behind  # the killed build's generation ...
    assert main(["build", "--mimic-iv", str(mimic), "--home", str(home), "--select", WITHOUT_SYNTHEA]) == 0
    assert not any(p.exists() for p in left_behind)  # ... is removed by the next build
    assert wh.rows("cases") == cases
