"""Settings for one build, read from CLINVERSE_* environment variables.

The CLI flags set these variables; the Dagster UI/CLI reads the same ones, so both
materialise the same assets from the same sources.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ENV_HOME = "CLINVERSE_HOME"
ENV_MIMIC_IV = "CLINVERSE_MIMIC_IV_DIR"
ENV_MIMIC_NOTE = "CLINVERSE_MIMIC_NOTE_DIR"
ENV_SICDB = "CLINVERSE_SICDB_DIR"
ENV_MEDQA = "CLINVERSE_MEDQA_PATH"  # one or more files, separated by os.pathsep
ENV_ID_KEY = "CLINVERSE_ID_KEY"
ENV_SEED = "CLINVERSE_SEED"
ENV_DATASET = "CLINVERSE_DATASET"  # overrides the dataset label derived from directory names
ENV_TEST_FRACTION = "CLINVERSE_TEST_FRACTION"
ENV_SUFFICIENCY = "CLINVERSE_SUFFICIENCY"  # e.g. "mimic_iv=3:3,sicdb=2:3,medqa=1:1" (k hidden units : m exams)
ENV_WORKERS = "CLINVERSE_WORKERS"  # processes for the note NLP (default: the CPUs this process may use)

# The demo key is public on purpose: real deployments set CLINVERSE_ID_KEY so that
# case ids cannot be recomputed from source identifiers by anyone without the key.
DEMO_ID_KEY = "clinverse-demo-key"


# Evidence sufficiency per source: (k hidden information units, m distinct exams). Sources differ
# in what a case can hold: a MIMIC admission has notes or years of structured history; a SICdb
# stay has no notes (weight, height, earlier stays); a MedQA vignette has a few sentences, and
# when its whole history fits in the opening presentation the findings are what is left to earn.
DEFAULT_SUFFICIENCY: dict[str, tuple[int, int]] = {"mimic_iv": (3, 3), "sicdb": (2, 3), "medqa": (0, 1)}


def parse_sufficiency(text: str) -> dict[str, tuple[int, int]]:
    """``"mimic_iv=3:3,medqa=1:1"`` over the defaults; a malformed entry is an error, not a guess."""
    rules = dict(DEFAULT_SUFFICIENCY)
    for entry in filter(None, (e.strip() for e in text.split(","))):
        match = re.fullmatch(r"(\w+)=(\d+):(\d+)", entry)
        if not match or match.group(1) not in rules:
            raise ValueError(
                f"{ENV_SUFFICIENCY}: cannot read {entry!r}; write SOURCE=K:M with SOURCE one of "
                f"{', '.join(rules)}, e.g. mimic_iv=3:3"
            )
        rules[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return rules


def default_workers() -> int:
    """The CPUs this process may run on (its affinity mask, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def parse_workers(text: str) -> int:
    """``CLINVERSE_WORKERS``: a positive integer; empty means :func:`default_workers`."""
    text = text.strip()
    if not text:
        return default_workers()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ENV_WORKERS}: cannot read {text!r}; write a positive number of processes, e.g. 4")
    return int(text)


def _path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else None


@dataclass(frozen=True)
class Settings:
    home: Path
    mimic_iv_dir: Path | None = None
    mimic_note_dir: Path | None = None
    sicdb_dir: Path | None = None
    medqa_paths: tuple[Path, ...] = ()
    id_key: str = DEMO_ID_KEY
    seed: int = 0
    dataset: str | None = None
    test_fraction: float = 0.2
    sufficiency: dict[str, tuple[int, int]] = field(default_factory=lambda: dict(DEFAULT_SUFFICIENCY))
    workers: int = field(default_factory=default_workers)  # note NLP processes; outputs do not depend on it

    @classmethod
    def from_env(cls) -> "Settings":
        medqa = os.environ.get(ENV_MEDQA, "").strip()
        return cls(
            home=_path(ENV_HOME) or Path("warehouse").resolve(),
            mimic_iv_dir=_path(ENV_MIMIC_IV),
            mimic_note_dir=_path(ENV_MIMIC_NOTE),
            sicdb_dir=_path(ENV_SICDB),
            medqa_paths=tuple(Path(p).expanduser().resolve() for p in medqa.split(os.pathsep) if p),
            id_key=os.environ.get(ENV_ID_KEY) or DEMO_ID_KEY,
            seed=int(os.environ.get(ENV_SEED, "0")),
            dataset=os.environ.get(ENV_DATASET) or None,
            test_fraction=float(os.environ.get(ENV_TEST_FRACTION, "0.2")),
            sufficiency=parse_sufficiency(os.environ.get(ENV_SUFFICIENCY, "")),
            workers=parse_workers(os.environ.get(ENV_WORKERS, "")),
        )

    def configured_sources(self) -> list[str]:
        """Source groups that have a location configured, in graph order."""
        present = {
            "mimic_iv": self.mimic_iv_dir,
            "mimic_note": self.mimic_note_dir,
            "sicdb": self.sicdb_dir,
            "medqa": self.medqa_paths or None,
        }
        return [name for name, where in present.items() if where]

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
