"""The note path writes the same files, in the same order, with the same bytes, whatever the
number of worker processes (pipelines.workers.ordered_map)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipelines.cases.skeleton import mimic_skeleton
from pipelines.config import DEMO_ID_KEY
from pipelines.content import notes
from pipelines.demo import generate_demo
from pipelines.sources.csv_tables import stage_csv
from pipelines.warehouse import Warehouse
from schemas.staging import MIMIC_IV, MIMIC_NOTE

NOTES_PER_BATCH = 7  # a few dozen notes make several batches, so two workers really share them
OUTPUTS = ("note_sections", "unit_candidates", "exam_candidates", "leakage_removals")


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with a generated demo's MIMIC-IV and MIMIC-IV-Note staged and its case skeleton."""
    sources = tmp_path_factory.mktemp("note-workers-sources")
    generate_demo(sources, admissions=24, seed=5, workers=1)
    home = tmp_path_factory.mktemp("note-workers-staged")
    warehouse = Warehouse(home)
    for spec in MIMIC_IV:
        stage_csv(spec, sources / "mimic-iv", warehouse)
    for spec in MIMIC_NOTE:
        stage_csv(spec, sources / "mimic-iv-note", warehouse)
    parts = mimic_skeleton(warehouse, DEMO_ID_KEY, "demo", 0.2)
    warehouse.write("case_skeleton", parts.skeleton)
    warehouse.write("case_provenance", parts.provenance)
    return home


def _run_note_path(staged: Path, home: Path, workers: int) -> Warehouse:
    shutil.copytree(staged, home)
    warehouse = Warehouse(home)
    links = notes.note_cases(warehouse)
    notes.write_sections(warehouse, links, workers=workers)
    notes.write_units(warehouse, links, workers=workers)
    notes.write_exams(warehouse, links, workers=workers)
    return warehouse


def _files(warehouse: Warehouse, table: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(warehouse.table_dir(table).glob("*.parquet"))}


def test_note_path_is_identical_with_one_and_two_workers(staged: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notes, "NOTES_PER_BATCH", NOTES_PER_BATCH)
    one = _run_note_path(staged, tmp_path / "one", workers=1)
    two = _run_note_path(staged, tmp_path / "two", workers=2)

    n_notes = notes.note_cases(one).height
    assert n_notes >= 30
    sections = _files(one, "note_sections")
    assert len(sections) == -(-n_notes // NOTES_PER_BATCH) >= 4
    assert list(_files(one, "unit_candidates")) == [f"mimic_notes-{i:05d}.parquet" for i in range(len(sections))]
    assert pl.read_parquet(one.table_dir("unit_candidates")).height > 0
    assert pl.read_parquet(one.table_dir("exam_candidates")).height > 0
    assert pl.read_parquet(one.table_dir("leakage_removals")).height > 0
    for table in OUTPUTS:
        assert _files(one, table) == _files(two, table), table


def test_a_shard_s_few_notes_still_make_a_batch_for_every_worker():
    assert notes.notes_per_batch(100_000, 1) == notes.notes_per_batch(100_000, 2) == notes.NOTES_PER_BATCH
    assert notes.notes_per_batch(1_058, 1) == notes.NOTES_PER_BATCH  # one worker: one batch does it
    assert notes.notes_per_batch(1_058, 2) == 265  # four batches for two workers
    assert notes.notes_per_batch(100, 4) == notes.MIN_NOTES_PER_BATCH
