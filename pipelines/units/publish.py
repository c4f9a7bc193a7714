"""Publish ``information_units`` from every unit_candidates partition.

1. Candidates of skeleton cases are read from every producer's files.
2. Note precedence: when a case's discharge note gave units of a history category (pmh, psh,
   medication, allergy, social, family), the structured units of that category are left out, so a
   fact is not told twice in two wordings ("HTN" from the note, "Essential (primary)
   hypertension" from the codes). Structured measurements and demographics always stay. Which
   producer gives way to which is ``superseded_by`` in pipelines/content/producers.py.
3. Each fact is told once (:func:`told_once`): two codes with one lay rendering ("I have
   leukemia" from C92.00 and C91.10) or a history item listed twice gave a case the same unit twice.
4. The leakage guard scrubs diagnosis mentions from free text (clause rule) and drops a unit left
   without content, or any structured unit that names the diagnosis or is an index name of its
   code; all are recorded in ``leakage_removals`` (partition ``information_units``).
5. Importance is labelled by the rule learned on train, with its knowledge-based fallback
   (pipelines.units.importance).
6. Ordinals are renumbered per case: category order, then producer (their order in
   pipelines/content/producers.py), then the producer's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import schemas
from pipelines.content import leakage_audit, producers
from pipelines.content.leakage_guard import CaseTerms, scrub_column
from pipelines.notes.tables import REMOVAL_COLUMNS
from pipelines.units.candidates import CATEGORY_ORDER
from pipelines.units.importance import ImportanceRule, label
from pipelines.warehouse import PARTITION_OF_PATH, Warehouse

PRODUCER_ORDER = producers.order("unit_candidates")
NOTE_PRECEDENCE = ("pmh", "psh", "medication", "allergy", "social", "family")
# A note's past medical history lists operations too ("s/p CABG"), so it covers coded psh units.
_COVERS = pl.col("category").replace({"psh": "pmh"}).alias("_covers")
CODED_PRODUCERS = producers.coded()
_PRODUCER_RANK = pl.col("producer").replace_strict(PRODUCER_ORDER, default=len(PRODUCER_ORDER))


@dataclass(frozen=True)
class PublishedUnits:
    units: pl.DataFrame  # information_units
    notes: pl.DataFrame  # importance_notes
    associations: pl.DataFrame  # concept x block statistics learned on train
    removals: pl.DataFrame  # leakage_removals rows
    superseded: int  # structured units left out because the note covers their category
    repeated: int  # units left out because the case already tells the same fact (told_once)


def read_candidates(warehouse: Warehouse, skeleton: pl.DataFrame) -> pl.DataFrame:
    scanned = pl.scan_parquet(warehouse.table_glob("unit_candidates"), include_file_paths="_file")
    producer = pl.col("_file").str.extract(PARTITION_OF_PATH, 1)
    return (
        scanned.with_columns(producer.alias("producer")).drop("_file")
        .join(skeleton.lazy().select("case_id"), on="case_id", how="semi")
        .collect()
    )


def note_precedence(candidates: pl.DataFrame, superseded_by: dict[str, str] | None = None) -> pl.DataFrame:
    """``candidates`` without the history units of a producer whose ``superseded_by`` producer has
    units of that category for the case (``superseded_by`` defaults to the registry's)."""
    for producer, by in (producers.superseded() if superseded_by is None else superseded_by).items():
        covered = candidates.filter(
            (pl.col("producer") == by) & pl.col("category").is_in(NOTE_PRECEDENCE)
        ).select("case_id", _COVERS).unique()
        superseded = candidates.filter(pl.col("producer") == producer).with_columns(_COVERS).join(
            covered, on=["case_id", "_covers"], how="semi"
        )
        candidates = candidates.join(superseded.select("unit_id"), on="unit_id", how="anti")
    return candidates


def fact_key() -> pl.Expr:
    """What makes two units of a case one fact: category, negation and words, case and punctuation aside."""
    words = pl.col("text").str.to_lowercase().str.replace_all(r"[^\w]+", " ").str.strip_chars()
    return pl.concat_str(pl.col("category"), pl.col("negated").cast(pl.Utf8), words, separator="|")


def told_once(candidates: pl.DataFrame) -> pl.DataFrame:
    """``candidates`` with each case's fact (:func:`fact_key`) once: the first by producer order
    (pipelines/content/producers.py), then the producer's ordinal."""
    first = candidates.sort(pl.col("case_id"), _PRODUCER_RANK, pl.col("ordinal"), pl.col("unit_id")).unique(
        ["case_id", fact_key()], keep="first", maintain_order=True)
    return candidates.join(first.select("unit_id"), on="unit_id", how="semi")


def guard(candidates: pl.DataFrame, terms: CaseTerms, codes: pl.DataFrame | None = None
          ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Scrub free text (clause rule); drop a coded unit that names the diagnosis, since what is left
    of a condition ("I have ... disease") means nothing. A coded unit is a whole condition, so it is
    also dropped when it is an ICD-10-CM index name of the primary code (``codes``: case_id,
    primary_icd10; pipelines.content.leakage_audit): a delirium episode is the diagnosis of a case of
    R41.0 disorientation, whose index names include delirium."""
    scrubbed = scrub_column(candidates.with_columns(pl.col("text").alias("_original")), "text", terms)
    scrubbed = scrubbed.with_columns(
        (pl.col("leak_left") & (pl.col("leak_terms").is_null() | ~pl.col("producer").is_in(CODED_PRODUCERS)))
        .alias("leak_left")
    )
    removals = scrubbed.filter(pl.col("leak_terms").is_not_null()).explode("leak_terms").select(
        "case_id", "source_ref", pl.col("leak_terms").alias("term"), pl.col("_original").alias("original_snippet"),
        pl.when(pl.col("leak_left")).then(pl.lit("removed_clause")).otherwise(pl.lit("dropped_unit")).alias("action"),
    )
    kept = scrubbed.filter(pl.col("leak_left")).drop("_original", "leak_terms", "leak_left")
    if codes is not None:
        # The detector keys texts by case_id: hand it each unit as its own "case".
        coded = kept.filter(pl.col("producer").is_in(CODED_PRODUCERS)).join(codes, on="case_id", how="left")
        named = leakage_audit.audit(coded.select(pl.col("unit_id").alias("case_id"), "text"), ["text"],
                                    coded.select(pl.col("unit_id").alias("case_id"), "primary_icd10"))
        dropped = coded.join(named.select(pl.col("case_id").alias("unit_id"), "name")
                             .unique("unit_id", keep="first", maintain_order=True), on="unit_id", how="inner")
        kept = kept.join(dropped.select("unit_id"), on="unit_id", how="anti")
        removals = pl.concat([removals.cast(REMOVAL_COLUMNS), dropped.select(
            "case_id", "source_ref", pl.col("name").alias("term"), pl.col("text").alias("original_snippet"),
            pl.lit("dropped_unit").alias("action")).cast(REMOVAL_COLUMNS)])
    return kept, removals.cast(REMOVAL_COLUMNS)


def publish(warehouse: Warehouse, skeleton: pl.DataFrame, terms: CaseTerms,
            rule: ImportanceRule = ImportanceRule()) -> PublishedUnits:
    """information_units for the cases of ``skeleton`` (see the module docstring)."""
    candidates = read_candidates(warehouse, skeleton)
    kept = note_precedence(candidates)
    superseded = candidates.height - kept.height
    once = told_once(kept)
    repeated, kept = kept.height - once.height, once
    kept, removals = guard(kept, terms, skeleton.select("case_id", "primary_icd10"))
    cases = skeleton.select("case_id", "split", "patient_key", pl.col("primary_icd10_block").alias("block"),
                            "primary_icd10")
    labelled = label(kept, cases, rule)
    units = labelled.units.with_columns(
        pl.col("category").replace_strict(CATEGORY_ORDER, default=len(CATEGORY_ORDER)).alias("_rank"),
        _PRODUCER_RANK.alias("_producer"),
    ).sort("case_id", "_rank", "_producer", "ordinal", "unit_id").with_columns(
        pl.int_range(pl.len()).over("case_id").cast(pl.Int32).alias("ordinal")
    )
    units = schemas.conform("information_units", units.select(list(schemas.get("information_units").columns)))
    return PublishedUnits(units, schemas.conform("importance_notes", labelled.notes), labelled.associations,
                          removals, superseded, repeated)
