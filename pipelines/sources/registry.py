"""Every source ClinVerse reads, in graph order: the one list a new source is added to.

A source's ``name`` is the Dagster group of its staging assets, the ``source`` column of the
cases it yields and the key of its location in :class:`pipelines.config.Settings`. Everything
that used to list the sources by hand is derived from :data:`SOURCES`: the location settings
and their variables (``pipelines.config``), the resource fields (``pipelines.resources``), the
`clinverse build` flags, the groups a build leaves out when a source is not configured
(``pipelines.build_plan``), the checks run before a build (``pipelines.sources.errors``), the
embedded demo's layout and the sensor's source fingerprint.

What a source's tables look like is in ``schemas/staging.py`` (each ``SourceTable`` names its
``source``); which content a source yields is in ``pipelines/content/producers.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# Evidence sufficiency differs by source because sources differ in what a case can hold: a MIMIC
# admission has notes or years of structured history; a SICdb stay has no notes (weight, height,
# earlier stays); a MedQA vignette has a few sentences, and when its whole history fits in the
# opening presentation the findings are what is left to earn.


@dataclass(frozen=True)
class Source:
    name: str  # group name, ``cases.source``, key of Settings.locations
    title: str  # as a person writes it, in messages
    setting: str  # the environment variable holding its location
    field: str  # the setting's field in Settings/resources (``mimic_iv_dir``)
    flag: str  # the `clinverse build` flag
    layout: Literal["directory", "files"]  # one release folder, or files separated by os.pathsep
    demo: str  # where the embedded demo writes it, relative to the demo folder (a glob for files)
    description: str  # what the location is, for the README table and the flag's help
    example: str  # a location, for the flag's help
    # Default evidence sufficiency of its cases, (k hidden information units, m distinct exams)
    # (pipelines/content/cases.py); None for a source that yields no cases of its own.
    sufficiency: tuple[int, int] | None = None
    # A record (not a vignette): a case needs an opening complaint (pipelines/content/cases.py).
    record: bool = False
    # Its results carry reference ranges, so whether evidence points to the diagnosis can be judged.
    flags_results: bool = False

    @property
    def metavar(self) -> str:
        return "DIR" if self.layout == "directory" else "FILE"

    def demo_location(self, demo_root: Path) -> str:
        """The location of this source in an embedded demo written to ``demo_root``."""
        if self.layout == "directory":
            return str(demo_root / self.demo)
        return os.pathsep.join(str(p) for p in sorted(demo_root.glob(self.demo)))


SOURCES: tuple[Source, ...] = (
    Source("mimic_iv", "MIMIC-IV", "CLINVERSE_MIMIC_IV_DIR", "mimic_iv_dir", "--mimic-iv", "directory",
           "mimic-iv", "MIMIC-IV release root (`hosp/`, `icu/`)", "/data/physionet/mimiciv/2.2", (3, 3), True, True),
    Source("mimic_note", "MIMIC-IV-Note", "CLINVERSE_MIMIC_NOTE_DIR", "mimic_note_dir", "--mimic-note", "directory",
           "mimic-iv-note", "MIMIC-IV-Note root (`note/`)", "/data/physionet/mimic-iv-note/2.2"),
    # The emergency-department module of MIMIC-IV (same subject_id / hadm_id): triage complaint,
    # ED vital signs and the medications reconciled on arrival of the admissions that came through it.
    Source("mimic_ed", "MIMIC-IV-ED", "CLINVERSE_MIMIC_ED_DIR", "mimic_ed_dir", "--mimic-ed", "directory",
           "mimic-iv-ed", "MIMIC-IV-ED root (`ed/`: edstays, triage, vitalsign, medrecon, diagnosis, pyxis)",
           "/data/physionet/mimic-iv-ed/2.2"),
    Source("sicdb", "SICdb", "CLINVERSE_SICDB_DIR", "sicdb_dir", "--sicdb", "directory",
           "sicdb", "SICdb folder (`cases.csv.gz`, `laboratory.csv.gz`, `d_references.csv.gz`)",
           "/data/physionet/sicdb/1.0.6", (2, 3), True),
    Source("medqa", "MedQA", "CLINVERSE_MEDQA_PATH", "medqa_path", "--medqa", "files",
           "medqa/*.jsonl", "MedQA JSONL file(s), separated by `:` (the flag is repeatable)",
           "/data/medqa/US/test.jsonl", (0, 1)),
)
BY_NAME: dict[str, Source] = {s.name: s for s in SOURCES}
NAMES: tuple[str, ...] = tuple(BY_NAME)
RECORD_SOURCES: tuple[str, ...] = tuple(s.name for s in SOURCES if s.record)
FLAGGED_SOURCES: tuple[str, ...] = tuple(s.name for s in SOURCES if s.flags_results)


def titles(names: list[str] | tuple[str, ...]) -> str:
    """``["mimic_iv", "mimic_note"]`` -> ``"MIMIC-IV and MIMIC-IV-Note"``."""
    written = [BY_NAME[n].title for n in names]
    return ", ".join(written[:-1]) + (" and " if len(written) > 1 else "") + written[-1] if written else ""
