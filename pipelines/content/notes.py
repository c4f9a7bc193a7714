"""MIMIC-IV-Note wiring: section the cases' notes, then derive units and exam findings in batches.

Only notes of a candidate case's admission are read: discharge and radiology notes whose
``hadm_id`` is a case's ``hadm_id`` (a DuckDB join over the staged Parquet, so the 330k discharge
and 2.3M radiology notes of a full release are never loaded whole). Notes are streamed in batches
(:func:`notes_per_batch`) through ``pipelines.notes.section_notes`` (medspaCy ``nlp.pipe``), and
each batch is written as its own file (``note_sections/notes-00000.parquet``, ...). Units and
findings are then derived batch by batch from those files. ``note_sections`` holds note text
and is internal, like ``case_provenance``: it must not be exported.

The per-batch NLP runs in ``workers`` processes (``Settings.workers``, env ``CLINVERSE_WORKERS``):
the build's pool (:func:`pipelines.workers.ordered_map`), whose workers each build the medspaCy
pipeline once, fed a bounded window of batches and read back in batch order, so the rows and their
order are the same whatever the worker count (and the files too, for batches of the same size). One worker, or a single batch, runs in
this process.
Each task gets only its batch and the links (and radiology detail) of the batch's notes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import polars as pl

from pipelines import icd
from pipelines.content.partitions import Written, write_batches, write_empty, write_partition
from pipelines.notes.tables import REMOVAL_COLUMNS, SECTIONS_SCHEMA, NoteWork
from pipelines.warehouse import Warehouse
from pipelines.workers import ordered_map
from sql import connect, load

NOTES_PER_BATCH = 2000
MIN_NOTES_PER_BATCH = 200  # below it a batch's fixed cost (a task, a file) outweighs its notes
SECTIONS = "note_sections"
REMOVALS = "leakage_removals"

# The NLP (spaCy, medspaCy: about 1.5 s to import) is imported by the tasks that run it, so that
# loading the build's definitions does not wait for it (a multiprocess build's forkserver preloads
# it once for every step: pipelines.build_plan.STEP_LIBRARIES).

def _init_worker() -> None:
    from pipelines.notes.sections import build_nlp

    build_nlp()  # once per worker process (cached), not once per batch


def _of_notes(frame: pl.DataFrame | None, sections: pl.DataFrame) -> pl.DataFrame | None:
    """The rows of ``frame`` (links or radiology detail) about the notes of ``sections``: what one
    batch's units or findings read of it (both join or look up by note_id), so tasks stay small."""
    if frame is None:
        return None
    return frame.filter(pl.col("note_id").is_in(sections["note_id"].unique().implode()))


def _sections_task(notes: pl.DataFrame) -> tuple[pl.DataFrame, NoteWork]:
    from pipelines.notes.sections import build_nlp, section_notes

    work = NoteWork()
    return section_notes(notes, build_nlp(), work=work), work


# The unit and exam tasks also return their CPU seconds (time.process_time, in the process that ran
# them): the build reports note throughput per core from them, worker start-up left out.

def _units_task(sections: pl.DataFrame, links: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, float]:
    from pipelines.notes.sections import build_nlp
    from pipelines.notes.units import note_units

    started = time.process_time()
    found, removals = note_units(sections, links, build_nlp())
    return found.with_columns(pl.lit(None, pl.Utf8).alias("concept")), removals, time.process_time() - started


def _exams_task(sections: pl.DataFrame, links: pl.DataFrame,
                detail: pl.DataFrame | None) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, float]]:
    """The batch's exam findings, the discharge summaries' and the radiology reports' (a note with a
    FINDINGS section) apart, each with its CPU seconds: a note's findings depend on that note only,
    and the two kinds cost differently per note (the build's projection counts them apart)."""
    from pipelines.notes.findings import RADIOLOGY_FINDINGS, exam_findings_and_removals
    from pipelines.notes.sections import build_nlp

    radiology = pl.col("section").eq(RADIOLOGY_FINDINGS).any().over("note_id")
    found, removals, cpu_s = [], [], {}
    for kind, part in (("discharge", sections.filter(~radiology)), ("radiology", sections.filter(radiology))):
        started = time.process_time()
        exams, removed = exam_findings_and_removals(part, links, detail, build_nlp())
        found.append(exams)
        removals.append(removed)
        cpu_s[kind] = time.process_time() - started
    found = pl.concat(found).with_columns(pl.col("exam_name").alias("raw_name"), pl.lit(None, pl.Utf8).alias("loinc"))
    return found, pl.concat(removals), cpu_s


def note_cases(warehouse: Warehouse) -> pl.DataFrame:
    """note_id -> case_id with the case's diagnosis (what note_units / findings scrub against)."""
    with connect() as con:
        notes = con.sql(load("content_note_cases").format(
            skeleton=warehouse.table_glob("case_skeleton"), provenance=warehouse.table_glob("case_provenance"),
            notes=_notes_union(warehouse),
        )).pl()
    titles = {c: icd.icd10cm_info(c).title for c in notes["primary_icd10"].drop_nulls().unique().to_list()}
    return notes.with_columns(
        pl.col("primary_icd10").replace_strict(titles, default=None, return_dtype=pl.Utf8).alias("icd10_title")
    )


def _notes_union(warehouse: Warehouse) -> str:
    tables = [t for t in ("note_discharge", "note_radiology") if warehouse.exists(t)]
    if not tables:
        return ("SELECT NULL::VARCHAR AS note_id, NULL::BIGINT AS hadm_id, NULL::VARCHAR AS note_type, "
                "NULL::VARCHAR AS text WHERE false")
    return " UNION ALL ".join(
        f"SELECT note_id, hadm_id, note_type, text FROM read_parquet('{warehouse.table_glob(t)}')" for t in tables
    )


def notes_per_batch(notes: int, workers: int) -> int:
    """Notes per batch: :data:`NOTES_PER_BATCH`, or with several workers few enough that each gets
    two batches (one shard's notes, a few thousand, still keep every worker busy), at least
    :data:`MIN_NOTES_PER_BATCH`. Batches are files; the rows do not depend on it."""
    if workers <= 1:
        return NOTES_PER_BATCH
    return min(NOTES_PER_BATCH, max(MIN_NOTES_PER_BATCH, math.ceil(notes / (2 * workers))))


def _note_batches(warehouse: Warehouse, links: pl.DataFrame, workers: int) -> Iterator[pl.DataFrame]:
    query = load("content_case_notes").format(notes=_notes_union(warehouse))
    with connect() as con:
        con.register("note_ids", links.select("note_id"))
        for batch in con.sql(query).to_arrow_reader(notes_per_batch(links.height, workers)):
            frame = pl.from_arrow(batch)
            if frame.height:
                yield frame


def write_sections(warehouse: Warehouse, links: pl.DataFrame, workers: int = 1) -> tuple[Written, NoteWork]:
    """``note_sections`` for the notes in ``links`` (:func:`note_cases`), one file per batch, and the
    notes and CPU seconds per note kind."""
    work = NoteWork()

    def sectioned() -> Iterator[pl.DataFrame]:
        batches = ((batch,) for batch in _note_batches(warehouse, links, workers))
        for frame, done in ordered_map(_sections_task, batches, workers, _init_worker):
            work.add(done)
            yield frame

    written = write_batches(warehouse, SECTIONS, "notes", sectioned(), empty=pl.DataFrame(schema=SECTIONS_SCHEMA))
    return written, work


def clear_sections(warehouse: Warehouse, why: str) -> Written:
    """No notes for this build: leave an empty ``note_sections`` (a previous build's text goes)."""
    write_batches(warehouse, SECTIONS, "notes", [], empty=pl.DataFrame(schema=SECTIONS_SCHEMA))
    return Written(0, why)


def _section_batches(warehouse: Warehouse) -> Iterator[pl.DataFrame]:
    for path in warehouse.files(SECTIONS):
        yield pl.read_parquet(path)


def write_units(warehouse: Warehouse, links: pl.DataFrame, workers: int = 1, partition: str = "mimic_notes",
                removals: str = "mimic_notes_units") -> tuple[Written, int, float]:
    """unit_candidates ``partition`` (and the scrubbed clauses in ``leakage_removals`` ``removals``);
    returns what was written, the removals and the CPU seconds of the unit NLP."""
    if not warehouse.exists(SECTIONS):
        return write_empty(warehouse, "unit_candidates", partition, "no note sections"), 0, 0.0
    removed: list[pl.DataFrame] = []
    cpu_s: list[float] = []

    def units() -> Iterator[pl.DataFrame]:
        tasks = ((sections, _of_notes(links, sections)) for sections in _section_batches(warehouse))
        for found, removals, seconds in ordered_map(_units_task, tasks, workers, _init_worker):
            removed.append(removals)
            cpu_s.append(seconds)
            yield found

    written = write_batches(warehouse, "unit_candidates", partition, units())
    return written, _write_removals(warehouse, removals, removed), sum(cpu_s)


def write_exams(warehouse: Warehouse, links: pl.DataFrame, workers: int = 1, partition: str = "mimic_notes",
                removals: str = "mimic_notes_exams") -> tuple[Written, int, dict[str, float]]:
    """exam_candidates ``partition``: admission physical exam, note vitals, radiology FINDINGS (and
    the scrubbed clauses in ``leakage_removals`` ``removals``); returns what was written, the removals
    and the CPU seconds of the exam NLP per note kind (``discharge``, ``radiology``)."""
    if not warehouse.exists(SECTIONS):
        return write_empty(warehouse, "exam_candidates", partition, "no note sections"), 0, {}
    detail = (
        warehouse.scan("note_radiology_detail").filter(pl.col("field_name") == "exam_name").collect()
        if warehouse.exists("note_radiology_detail") else None
    )
    removed: list[pl.DataFrame] = []
    cpu_s: dict[str, float] = {}

    def exams() -> Iterator[pl.DataFrame]:
        tasks = ((sections, _of_notes(links, sections), _of_notes(detail, sections))
                 for sections in _section_batches(warehouse))
        for found, removals, seconds in ordered_map(_exams_task, tasks, workers, _init_worker):
            removed.append(removals)
            for kind, spent in seconds.items():
                cpu_s[kind] = cpu_s.get(kind, 0.0) + spent
            yield found

    written = write_batches(warehouse, "exam_candidates", partition, exams())
    return written, _write_removals(warehouse, removals, removed), cpu_s


def _write_removals(warehouse: Warehouse, partition: str, frames: list[pl.DataFrame]) -> int:
    removals = pl.concat([pl.DataFrame(schema=REMOVAL_COLUMNS), *frames])
    return write_partition(warehouse, REMOVALS, partition, removals).rows
