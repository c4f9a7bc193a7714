"""MIMIC-IV-Note wiring: section the cases' notes, then derive units and exam findings in batches.

Only notes of a candidate case's admission are read: discharge and radiology notes whose
``hadm_id`` is a case's ``hadm_id`` (a DuckDB join over the staged Parquet, so the 330k discharge
and 2.3M radiology notes of a full release are never loaded whole). Notes are streamed in batches
of :data:`NOTES_PER_BATCH` through ``pipelines.notes.section_notes`` (medspaCy ``nlp.pipe``), and
each batch is written as its own file (``note_sections/notes-00000.parquet``, ...). Units and
findings are then derived batch by batch from those files. ``note_sections`` holds note text
and is internal, like ``case_provenance``: it must not be exported.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import polars as pl

from pipelines import icd
from pipelines.content.partitions import Written, write_batches, write_empty, write_partition
from pipelines.notes.findings import exam_findings_and_removals
from pipelines.notes.sections import SECTIONS_SCHEMA, build_nlp, section_notes
from pipelines.notes.units import REMOVAL_COLUMNS, note_units
from pipelines.warehouse import Warehouse
from sql import load

NOTES_PER_BATCH = 2000
SECTIONS = "note_sections"
REMOVALS = "leakage_removals"


def note_cases(warehouse: Warehouse) -> pl.DataFrame:
    """note_id -> case_id with the case's diagnosis (what note_units / findings scrub against)."""
    with duckdb.connect() as con:
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


def _note_batches(warehouse: Warehouse, links: pl.DataFrame) -> Iterator[pl.DataFrame]:
    query = load("content_case_notes").format(notes=_notes_union(warehouse))
    with duckdb.connect() as con:
        con.register("note_ids", links.select("note_id"))
        for batch in con.sql(query).to_arrow_reader(NOTES_PER_BATCH):
            frame = pl.from_arrow(batch)
            if frame.height:
                yield frame


def write_sections(warehouse: Warehouse, links: pl.DataFrame) -> Written:
    """``note_sections`` for the notes in ``links`` (:func:`note_cases`), one file per batch."""
    nlp = build_nlp()
    return write_batches(warehouse, SECTIONS, "notes",
                         (section_notes(batch, nlp) for batch in _note_batches(warehouse, links)),
                         empty=pl.DataFrame(schema=SECTIONS_SCHEMA))


def clear_sections(warehouse: Warehouse, why: str) -> Written:
    """No notes for this build: leave an empty ``note_sections`` (a previous build's text goes)."""
    write_batches(warehouse, SECTIONS, "notes", [], empty=pl.DataFrame(schema=SECTIONS_SCHEMA))
    return Written(0, why)


def _section_batches(warehouse: Warehouse) -> Iterator[pl.DataFrame]:
    for path in sorted(warehouse.table_dir(SECTIONS).glob("*.parquet")):
        yield pl.read_parquet(path)


def write_units(warehouse: Warehouse, links: pl.DataFrame) -> tuple[Written, int]:
    """unit_candidates ``mimic_notes`` (and the scrubbed clauses in ``leakage_removals``)."""
    if not warehouse.exists(SECTIONS):
        return write_empty(warehouse, "unit_candidates", "mimic_notes", "no note sections"), 0
    nlp = build_nlp()
    removed: list[pl.DataFrame] = []

    def units() -> Iterator[pl.DataFrame]:
        for sections in _section_batches(warehouse):
            found, removals = note_units(sections, links, nlp)
            removed.append(removals)
            yield found.with_columns(pl.lit(None, pl.Utf8).alias("concept"))

    written = write_batches(warehouse, "unit_candidates", "mimic_notes", units())
    return written, _write_removals(warehouse, "mimic_notes_units", removed)


def write_exams(warehouse: Warehouse, links: pl.DataFrame) -> tuple[Written, int]:
    """exam_candidates ``mimic_notes``: admission physical exam, note vitals, radiology FINDINGS."""
    if not warehouse.exists(SECTIONS):
        return write_empty(warehouse, "exam_candidates", "mimic_notes", "no note sections"), 0
    detail = (
        warehouse.scan("note_radiology_detail").filter(pl.col("field_name") == "exam_name").collect()
        if warehouse.exists("note_radiology_detail") else None
    )
    nlp = build_nlp()
    removed: list[pl.DataFrame] = []

    def exams() -> Iterator[pl.DataFrame]:
        for sections in _section_batches(warehouse):
            found, removals = exam_findings_and_removals(sections, links, detail, nlp)
            removed.append(removals)
            yield found.with_columns(pl.col("exam_name").alias("raw_name"), pl.lit(None, pl.Utf8).alias("loinc"))

    written = write_batches(warehouse, "exam_candidates", "mimic_notes", exams())
    return written, _write_removals(warehouse, "mimic_notes_exams", removed)


def _write_removals(warehouse: Warehouse, partition: str, frames: list[pl.DataFrame]) -> int:
    removals = pl.concat([pl.DataFrame(schema=REMOVAL_COLUMNS), *frames])
    return write_partition(warehouse, REMOVALS, partition, removals).rows
