"""Case skeleton assets: candidate cases, restricted provenance, and skeleton exclusions.

Only the sources configured for this build contribute (Settings.configured_sources), so the
warehouse always reflects the current configuration rather than leftovers of earlier builds.
"""

import time

import dagster as dg
import polars as pl

from pipelines import incremental
from pipelines.cases.encounters import CaseRules
from pipelines.cases.skeleton import (
    SkeletonParts,
    combine,
    mimic_skeleton,
    provenance_shards,
    sicdb_skeleton,
)
from pipelines.resources import ClinverseResource
from pipelines.shards import shard_names, split
from schemas.staging import ALL, MEDQA_TABLE

SKELETON_DEPS = [
    "mimic_admissions", "mimic_patients", "mimic_diagnoses_icd", "mimic_d_icd_diagnoses",
    "note_discharge", "sicdb_cases", "sicdb_d_references", MEDQA_TABLE,
]


@dg.multi_asset(
    specs=[
        dg.AssetSpec("case_skeleton", group_name="cases", deps=SKELETON_DEPS, kinds={"polars"},
                     description="One candidate case per source record with its ICD-10-CM diagnosis and split."),
        dg.AssetSpec("case_provenance", group_name="cases", deps=SKELETON_DEPS, kinds={"polars"},
                     description="Restricted: the raw source keys behind each case_id. Never exported."),
        dg.AssetSpec("skeleton_exclusions", group_name="cases", deps=SKELETON_DEPS, kinds={"polars"},
                     description="Source records that did not become candidate cases, with the reason."),
    ],
)
def case_skeleton(clinverse: ClinverseResource):
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    started = time.perf_counter()
    sources = settings.configured_sources()
    rules = CaseRules.of(settings)
    parts: list[SkeletonParts] = []
    if "mimic_iv" in sources:
        notes = (
            warehouse.scan("note_discharge").select("note_id", "hadm_id").collect()
            if "mimic_note" in sources else None
        )
        parts.append(mimic_skeleton(warehouse, settings.id_key,
                                    settings.dataset_label("mimic_iv", settings.location("mimic_iv")),
                                    settings.test_fraction, notes, rules))
    if "sicdb" in sources:
        parts.append(sicdb_skeleton(warehouse, settings.id_key, settings.dataset_label("sicdb", settings.location("sicdb")),
                                    settings.test_fraction, rules))
    if "medqa" in sources:
        from pipelines.cases.medqa_skeleton import medqa_skeleton

        first = settings.location("medqa")
        parts.append(medqa_skeleton(warehouse.read(MEDQA_TABLE), settings.id_key,
                                    settings.dataset_label("medqa", first.parent if first else None), settings.test_fraction))
    built = combine(parts)
    per_source = built.skeleton.group_by("source").len().sort("source").rows() if built.skeleton.height else []
    excluded = built.exclusions.group_by("source").len().sort("source").rows() if built.exclusions.height else []
    stages = built.exclusions.group_by("stage").len().sort("stage").rows() if built.exclusions.height else []
    known = int(built.skeleton["known_condition"].sum()) if built.skeleton.height else 0
    # Secondary codes that map to no ICD-10-CM code are left out of their case, never silently.
    warehouse.write("rejects", built.rejects, partition="case_skeleton")
    # The per-case tables' roots, written in subject shards: each shard's steps read their own.
    warehouse.keep_shards(shard_names(settings.shards))
    written = {"case_skeleton": warehouse.write_shards("case_skeleton", split(built.skeleton, settings.shards)),
               "case_provenance": warehouse.write_shards(
                   "case_provenance", provenance_shards(built.provenance, settings.id_key, settings.shards)),
               "skeleton_exclusions": warehouse.write("skeleton_exclusions", built.exclusions)}
    seconds = round(time.perf_counter() - started, 3)
    for table, rows in written.items():
        yield dg.MaterializeResult(
            asset_key=table,
            metadata={"rows": rows, "sources": ", ".join(sources) or "none", "seconds": seconds,
                      **{f"cases_{s}": n for s, n in per_source}, **{f"excluded_{s}": n for s, n in excluded},
                      **{f"stage_{s}": n for s, n in stages}, "known_conditions": known},
        )


@dg.asset_check(asset="case_skeleton", blocking=True)
def case_skeleton_is_consistent(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Every candidate has provenance, no patient spans splits, and ids are unique."""
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    provenance = warehouse.read("case_provenance")
    exclusions = warehouse.read("skeleton_exclusions")
    no_provenance = skeleton.join(provenance, on="case_id", how="anti").height
    split_leaks = (
        skeleton.group_by("source", "patient_key").agg(pl.col("split").n_unique().alias("n")).filter(pl.col("n") > 1).height
    )
    overlap = skeleton.join(exclusions, on="case_id", how="semi").height
    unaccounted = provenance.join(pl.concat([skeleton.select("case_id"), exclusions.select("case_id")]), on="case_id", how="anti").height
    return dg.AssetCheckResult(
        passed=not (no_provenance or split_leaks or overlap or unaccounted),
        metadata={"cases_without_provenance": no_provenance, "patients_in_both_splits": split_leaks,
                  "both_kept_and_excluded": overlap, "provenance_unaccounted": unaccounted},
    )


STAGED = {**{spec.table: spec.source for spec in ALL}, MEDQA_TABLE: "medqa"}  # staged table -> its source


@dg.asset(group_name="cases", deps=[*STAGED, "case_skeleton", "case_provenance"], kinds={"duckdb", "parquet"},
          description="A digest per subject shard of what its per-case steps read (its cases, its patients' staged "
                      "rows, the dictionaries, the settings): a rebuild re-runs the shards whose digest changed.")
def shard_inputs(clinverse: ClinverseResource) -> dg.MaterializeResult:
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    staged = [table for table, source in STAGED.items() if source in settings.configured_sources()]
    frame = incremental.shard_inputs(warehouse, staged, settings)
    rows = warehouse.write(incremental.TABLE, frame)
    return dg.MaterializeResult(metadata={
        "rows": rows, **{f"cases_{s}": n for s, n in frame.select("shard", "cases").iter_rows()},
        "digests": dg.MetadataValue.json(incremental.digests(frame))})


@dg.asset_check(asset="cases", blocking=True)
def per_case_rows_are_in_their_shard(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Every row of a table written in shards is in its case's shard file, every case in one shard and
    no file of another shard count is left: what an incremental rebuild relies on (it re-runs the changed
    shards and keeps the others' files)."""
    found = incremental.misplaced_rows(clinverse.warehouse(), shard_names(clinverse.settings().shards))
    return dg.AssetCheckResult(passed=not found, metadata={
        "misplaced": sum(found.values()), **{f"misplaced_{t}": n for t, n in found.items()}})
