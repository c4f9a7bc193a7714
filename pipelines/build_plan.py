"""Which assets a build materialises: the configured sources' groups and everything that is
not a source group (cases, content, profiles, ...). Shared by the CLI and the Dagster job."""

from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg

from pipelines.config import Settings

SOURCE_GROUPS = ("mimic_iv", "mimic_note", "sicdb", "medqa")


def build_selection(sources: list[str]) -> dg.AssetSelection:
    unconfigured = [g for g in SOURCE_GROUPS if g not in sources]
    selection = dg.AssetSelection.all()
    if unconfigured:
        selection = selection - dg.AssetSelection.groups(*unconfigured)
    return selection


def split_at_partitions(selection: dg.AssetSelection, partitioned: list[dg.AssetKey]
                        ) -> tuple[dg.AssetSelection, dg.AssetSelection, dg.AssetSelection]:
    """(before, partitioned, after): Dagster runs partitioned and unpartitioned assets in separate
    runs, so a build is the assets upstream of any partitioned one, then the partitioned ones (once
    per partition), then what depends on them."""
    part = dg.AssetSelection.assets(*partitioned)
    downstream = part.downstream()
    return selection - downstream, selection & part, (selection & downstream) - part


def source_fingerprint(settings: Settings) -> str:
    """A digest of the configured source files' names, sizes and modification times."""
    digest = hashlib.sha256()
    roots: list[Path] = [p for p in (settings.mimic_iv_dir, settings.mimic_note_dir, settings.sicdb_dir) if p]
    files = [f for root in roots if root.is_dir() for f in sorted(root.rglob("*.csv*"))]
    files += [p for p in settings.medqa_paths if p.is_file()]
    for f in files:
        stat = f.stat()
        digest.update(f"{f}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16] if files else ""
