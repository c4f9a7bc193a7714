"""`clinverse release`: the curated tables as a dataset to share, checked for source identifiers.

Steps, each refusing before anything is published:

1. data use: MIMIC-IV- or SICdb-derived cases (anything but MedQA and the generated demo, by the
   egress rule, as `clinverse export` decides) are written only with ``acknowledge_data_use``;
2. case ids: MIMIC-IV or SICdb cases whose ids are the public demo key's hash are refused outright
   (pipelines/release/keys.py): their ids would give the admission away;
3. the tables (pipelines/release/writer.py) and the card (pipelines/release/card.py) are written into
   a temporary folder beside ``out``;
4. the scan (pipelines/release/scan.py) looks for every identifier of the build in every file; any
   finding fails the release;
5. the folder is renamed to ``out``. A failure at any step leaves nothing at ``out``.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipelines.episodes.llm.egress import DataOrigin
from pipelines.release.card import CARD_FILE, BuildInfo, render
from pipelines.release.keys import public_key_cases
from pipelines.release.scan import IdentifierIndex, ScanReport
from pipelines.release.spec import release_spec
from pipelines.release.writer import released_frames, write_tables
from pipelines.training.card import data_use_terms, restricted_origins
from pipelines.training.export import DataUseNotAcknowledged
from pipelines.warehouse import Warehouse


class ReleaseRefused(PermissionError):
    """A release that would make source keys recoverable (case ids under the public demo key)."""


class IdentifiersFound(RuntimeError):
    """The scan found source identifiers (or dates, or a restricted table) in the written files."""

    def __init__(self, report: ScanReport):
        self.report = report
        super().__init__("the release holds what it must not; nothing was published:\n"
                         + "\n".join(f"  {f.describe()}" for f in report.findings))


@dataclass(frozen=True)
class Release:
    out: Path
    rows: dict[str, int]  # table -> rows written
    scan: ScanReport
    restricted: list[str]  # the restricted sources the release holds content of (card.yaml source keys)


def release(warehouse: Warehouse, out: Path, acknowledge_data_use: bool = False) -> Release:
    """Write the release of ``warehouse``'s published tables to ``out`` (see the module docstring)."""
    out = Path(out).resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder: a release is written into a new one "
                              "(remove it or choose another --out)")
    cases = warehouse.read("cases")
    restricted = restricted_origins(cases)
    if restricted and not acknowledge_data_use:
        terms = data_use_terms(restricted)
        raise DataUseNotAcknowledged(
            f"the release holds content derived from {terms.sources}: credentialed data under the {terms.licences} "
            f"and {terms.terms}, to be shared only with people bound by the same agreement. Nothing was written; "
            "pass --acknowledge-data-use to write it: its card then carries the restriction.")
    public = public_key_cases(warehouse, cases)
    exposed = public.filter(pl.Series([DataOrigin(s, d).restricted for s, d in public.select("source", "dataset")
                                       .iter_rows()], dtype=pl.Boolean))
    if not exposed.is_empty():
        raise ReleaseRefused(
            f"{exposed.height} case ids of {', '.join(sorted(set(exposed['dataset'])))} are keyed hashes under the "
            "public demo key (CLINVERSE_ID_KEY was not set for the build): anyone can recompute them from every "
            "possible hadm_id or CaseID and so read the source record off a case id. Nothing was written; rebuild "
            "with CLINVERSE_ID_KEY set to a secret (e.g. `openssl rand -hex 32`, kept out of the release), then "
            "release.")
    spec = release_spec()
    frames = released_frames(warehouse, spec)
    tmp = out.parent / f".{out.name}.{uuid.uuid4().hex[:8]}.partial"
    try:
        tmp.mkdir(parents=True)
        with IdentifierIndex.of(warehouse) as index:
            write_tables(frames, tmp)
            card = render(frames, spec, index.searched(), public, BuildInfo.of(warehouse, cases))
            (tmp / CARD_FILE).write_text(card, encoding="utf-8")
            report = index.scan(tmp)
        if not report.clean:
            raise IdentifiersFound(report)
        if out.exists():
            out.rmdir()  # empty, checked above
        os.rename(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Release(out, {name: frame.height for name, frame in frames.items()}, report, restricted)
