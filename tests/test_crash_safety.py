"""Crash safety (issue 14, section 5): a build killed at any point (kill -9, in the middle of an asset)
and run again gives tables identical to an uninterrupted build (``Warehouse.content_hash``), with no
temporary file left behind, and readers meanwhile see the previous complete generation, never part
of a table.

The whole-build test kills a real `clinverse build`; the others kill (or interrupt) the writers a
build has outside its generation: the Synthea cache and the generated demo sources. The warehouse's
own kill points (mid-write, either side of the publishing swap) are in tests/test_warehouse.py.
"""

import gzip
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from pipelines import runner
from pipelines.cli import _ensure_sources, main
from pipelines.profiles.synthea import SyntheaSettings, ensure_stratum, find_stratum
from pipelines.sources.registry import SOURCES
from pipelines.warehouse import Warehouse, is_temporary

SOURCE_VARIABLES = tuple(source.setting for source in SOURCES) + ("CLINVERSE_HOME",)


def _hashes(warehouse: Warehouse) -> dict[str, str]:
    return {table: warehouse.content_hash(table) for table in warehouse.tables()}


def _leftovers(home: Path) -> list[str]:
    """Whatever under ``home`` an unfinished write could have left: our temporaries (hidden
    ``.partial``), DuckDB's (``.wal`` of an unclosed database, ``.tmp`` spill files)."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if is_temporary(p.name) or p.suffix in {".wal", ".tmp"})


def _kill_mid_write(build: subprocess.Popen, home: Path, published: str, after_step: str, stderr: Path) -> Path:
    """SIGKILL the build's process group in the middle of a table write (a temporary file open in its
    generation) once ``after_step`` has started; returns that temporary file."""
    deadline = time.monotonic() + 300
    started = f"- {after_step} - STEP_START"
    log = None
    while time.monotonic() < deadline:
        assert build.poll() is None, f"the build ended before it was killed: {stderr.read_text()}"
        generations = [g for g in (home / "generations").glob("*T*") if g.is_dir() and g.name != published]
        if log is None and generations and (home / "logs" / f"build-{generations[0].name}.log").exists():
            text = (home / "logs" / f"build-{generations[0].name}.log").read_text()
            log = text if started in text else None
        if log is not None:
            partial = next(generations[0].glob("*/.*.partial"), None)
            if partial is not None:
                os.killpg(build.pid, signal.SIGKILL)
                build.wait()
                return partial
        time.sleep(0.01)
    raise AssertionError(f"no table write seen after {after_step} started in {home}")


@pytest.mark.slow
def test_a_build_killed_mid_write_then_run_again_gives_the_tables_of_an_uninterrupted_build(
        demo_home, tmp_path, monkeypatch):
    # The uninterrupted build is demo_home's (tests/conftest.py). This home starts as a copy of it and
    # builds from the same demo sources, at the same paths (rejects name their source files), so its
    # tables must come out identical; its Synthea cache is a copy too (no minute of Synthea).
    home = tmp_path / "home"
    shutil.copytree(demo_home, home, symlinks=True, ignore=shutil.ignore_patterns("clinverse.duckdb*", "logs"))
    for name in SOURCE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for source in SOURCES:
        monkeypatch.setenv(source.setting, source.demo_location(demo_home / "demo-sources"))
    monkeypatch.setenv("CLINVERSE_SYNTHEA_POOL_SIZE", "1")
    monkeypatch.setenv("CLINVERSE_LOG_LEVEL", "WARNING")
    wh = Warehouse(home)
    published, expected = wh.published_at(), _hashes(Warehouse(demo_home))
    build = ["build", "--home", str(home)]

    started = time.monotonic()
    stderr = tmp_path / "killed-build.err"
    with stderr.open("w") as err:  # a file, not a pipe: a full pipe would stall the build
        child = subprocess.Popen([sys.executable, "-m", "pipelines.cli", *build], stdout=subprocess.DEVNULL,
                                 stderr=err, start_new_session=True)
    partial = _kill_mid_write(child, home, published, "mimic_labevents", stderr)  # mid source staging
    killed_at = time.monotonic() - started
    # What a reader sees now: the previous complete generation, every table of it, nothing of the killed build.
    assert wh.published_at() == published and _hashes(wh) == expected
    assert wh.query("SELECT count(*) AS n FROM cases")["n"].item() == wh.rows("cases") > 0
    assert partial.exists()  # killed mid-write: its temporary is there, unread
    print(f"killed {killed_at:.1f} s after the build started, writing {partial.relative_to(home)}")

    # A stratum of the Synthea cache half written (as an interrupted clean-up could leave it before
    # run.json listed its files): the rerun must notice it and make it again, alike.
    stratum = sorted(p for p in (home / "synthea").iterdir() if p.is_dir())[0]
    bundle = next((stratum / "output").rglob("*.json"))
    size = bundle.stat().st_size
    bundle.write_bytes(bundle.read_bytes()[: size // 2])

    assert main(build) == 0
    assert _hashes(wh) == expected
    assert _leftovers(home) == [] and not partial.parent.parent.exists()
    assert bundle.stat().st_size == size
    print(f"kill and rerun: {time.monotonic() - started:.1f} s")


MINIMAL_BUNDLE = {"resourceType": "Bundle", "entry": [{"resource": {
    "resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1980-05-01"}}]}


def _fake_synthea(tmp_path: Path, then: str = "") -> tuple[str, ...]:
    """A synthea command writing one bundle where ``-o`` says (counting its runs), then running ``then``."""
    script = tmp_path / "fake-synthea"
    script.write_text(f"""#!/bin/sh
echo run >> {tmp_path / "runs"}
out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
mkdir -p "$out/fhir" && echo '{json.dumps(MINIMAL_BUNDLE)}' > "$out/fhir/p1.json"
{then}
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return (str(script),)


def test_a_damaged_synthea_stratum_is_made_again(tmp_path):
    settings = SyntheaSettings(command=_fake_synthea(tmp_path))
    first = ensure_stratum(settings, tmp_path / "synthea", "F_40-59", 0)
    bundle = first.folder / "output" / "fhir" / "p1.json"
    bundle.write_text(bundle.read_text()[:10])  # half a file
    assert find_stratum(settings, tmp_path / "synthea", "F_40-59", 0) is None
    again = ensure_stratum(settings, tmp_path / "synthea", "F_40-59", 0)
    assert not again.reused and json.loads(bundle.read_text()) == MINIMAL_BUNDLE
    bundle.unlink()  # a file gone
    assert not ensure_stratum(settings, tmp_path / "synthea", "F_40-59", 0).reused
    assert (tmp_path / "runs").read_text().count("run") == 3


def test_a_build_killed_while_synthea_remakes_a_stratum_keeps_the_old_one_whole(tmp_path):
    root = tmp_path / "synthea"
    old = SyntheaSettings(command=_fake_synthea(tmp_path))
    ensure_stratum(old, root, "F_40-59", 0)
    # The remake (another pool size) is killed, the whole process, by its Synthea once it has written.
    killer = SyntheaSettings(command=_fake_synthea(tmp_path, then="kill -9 $PPID"), pool_size=2)
    child = subprocess.run([sys.executable, "-c", (
        "import sys; from pathlib import Path; from pipelines.profiles.synthea import SyntheaSettings, ensure_stratum; "
        f"ensure_stratum(SyntheaSettings(command={killer.command!r}, pool_size=2), Path(sys.argv[1]), 'F_40-59', 0)"),
        str(root)], capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert find_stratum(old, root, "F_40-59", 0) is not None  # the old stratum, whole, still there
    assert find_stratum(killer, root, "F_40-59", 0) is None  # the killed remake is nowhere a reader looks
    left = [p.name for p in root.iterdir() if is_temporary(p.name)]
    assert left  # ... but its work folder is left behind, until the next build sweeps it
    Warehouse(tmp_path).discard_build(Warehouse(tmp_path).begin_build())
    assert sorted(p.name for p in root.iterdir()) == ["F_40-59"]


KILLED_DEMO = """
import os, signal, sys
from pathlib import Path
from pipelines import cli

def killed(out, admissions, seed):  # part-way through rewriting the demo files in place
    (Path(out) / "mimic-iv" / "hosp" / "admissions.csv.gz").write_bytes(b"half a gzip")
    os.kill(os.getpid(), signal.SIGKILL)

cli._generate_demo = killed
cli._ensure_sources({"home": sys.argv[1]}, 30)
"""


def test_a_build_killed_while_it_regenerates_the_demo_regenerates_it_next_time(tmp_path, monkeypatch):
    for name in SOURCE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    _ensure_sources({"home": str(tmp_path)}, 20)
    admissions = tmp_path / "demo-sources" / "mimic-iv" / "hosp" / "admissions.csv.gz"
    whole = admissions.read_bytes()
    child = subprocess.run([sys.executable, "-c", KILLED_DEMO, str(tmp_path)], capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr
    # Asked for the first demo again: the half-rewritten files must not pass for it.
    _ensure_sources({"home": str(tmp_path)}, 20)
    assert admissions.read_bytes() == whole and gzip.decompress(whole)
    assert (tmp_path / "demo-sources" / ".clinverse-demo").read_text() == "admissions=20 seed=0"


def test_the_runs_dagster_scratch_is_a_temporary_of_the_home_removed_after_the_run(tmp_path):
    seen = []

    @dg.asset
    def where(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
        seen.append(Path(context.instance.root_directory))
        return dg.MaterializeResult()

    defs = dg.Definitions(assets=[where], jobs=[dg.define_asset_job("build", selection=dg.AssetSelection.all())])
    runner.run(defs, scratch=tmp_path)
    # in the home, named so that the next build's sweep removes it if this run is killed
    assert seen[0].parent == tmp_path and is_temporary(seen[0].name) and seen[0].name.startswith(".dagster-")
    assert list(tmp_path.iterdir()) == []
