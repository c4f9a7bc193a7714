"""A MIMIC-IV release as it stood before some patients arrived: the same files in the same layout
without their rows. Rebuilding from it and then from the full release is what a new drop of
admissions does to a built warehouse (the bench's ``incremental_shard_ratio``, the incremental tests).
"""

from __future__ import annotations

import csv
import gzip
import io
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import IO

import polars as pl

from pipelines.ids import patient_key
from pipelines.shards import shard_of

SUBJECT = "subject_id"


def shard_subjects(mimic_iv: Path, id_key: str, count: int, shard: str) -> list[int]:
    """The subjects of ``mimic_iv``'s ``hosp/patients`` whose patient key (as the case skeleton makes
    it, under ``id_key``) falls in ``shard`` of ``count``."""
    patients = pl.read_csv(_table(mimic_iv / "hosp", "patients"), columns=[SUBJECT])[SUBJECT]
    return sorted(s for s in patients.unique()
                  if shard_of(patient_key(id_key, "mimic_iv", s), count) == shard)


def withhold(root: Path, out: Path, subjects: Collection[int]) -> dict[str, int]:
    """Copy every file under ``root`` (a MIMIC-IV, -Note or -ED release root) to the same path under
    ``out``, leaving out of each ``*.csv.gz`` / ``*.csv`` the records whose ``subject_id`` is in
    ``subjects``; tables without the column and other files are copied whole. Records are read and written with the ``csv`` module
    (quoted note text spans lines; a malformed record stays as malformed as it was, for the readers'
    rejects). Returns the records left out per file (relative path)."""
    withheld = {str(s) for s in subjects}
    left_out: dict[str, int] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        target = out / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not path.name.endswith((".csv", ".csv.gz")):
            shutil.copyfile(path, target)  # what else the release holds (the demo's marker, checksums)
            continue
        with _open(path, "r") as src, _open(target, "w") as dst:
            records, writer = csv.reader(src), csv.writer(dst, lineterminator="\n")
            header = next(records)
            writer.writerow(header)
            at = header.index(SUBJECT) if SUBJECT in header else None
            dropped = 0
            for record in records:
                if at is not None and at < len(record) and record[at] in withheld:
                    dropped += 1
                else:
                    writer.writerow(record)
        left_out[str(path.relative_to(root))] = dropped
    return left_out


def _open(path: Path, mode: str) -> IO[str]:
    """Text in or out of a plain or gzip file; gzip written with mtime 0, so the same records give the
    same bytes, as the demo generator writes them."""
    if path.suffix != ".gz":
        return path.open(mode, newline="", encoding="utf-8")
    if mode == "r":
        return gzip.open(path, "rt", newline="", encoding="utf-8")
    return io.TextIOWrapper(gzip.GzipFile(path, "wb", mtime=0), newline="", encoding="utf-8")


def _table(folder: Path, name: str) -> Path:
    return next(p for p in (folder / f"{name}.csv.gz", folder / f"{name}.csv") if p.exists())
