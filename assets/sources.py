"""Staging assets: one per publisher table (group = its source in pipelines/sources/registry.py),
plus MedQA questions, and ``rejects``, gathered from all of them.

Each staging asset copies its file into Parquet (pipelines.sources), records rejected rows in its
partition of the ``rejects`` table (the partition is named after the staging table) and is
guarded by a blocking check that the staged table has the columns, types and non-null keys of
schemas/staging.py. The ``rejects`` asset depends on every staging asset, so who writes it is in
the graph.
"""

import time

import dagster as dg

from assets.factories import gathered_table_asset
from pipelines.content.producers import rejects_writers
from pipelines.medqa.convert import QUARANTINE_PARTITION as MEDQA_QUARANTINE
from pipelines.resources import ClinverseResource
from pipelines.sources.checks import check_staging
from pipelines.sources.csv_tables import stage_csv
from pipelines.sources.medqa import stage_medqa
from schemas.staging import ALL, MEDQA_COLUMNS, MEDQA_TABLE, SourceTable

REJECTS = "rejects"


def _staging_asset(spec: SourceTable) -> dg.AssetsDefinition:
    @dg.asset(
        name=spec.table,
        group_name=spec.source,
        kinds={"duckdb", "parquet"},
        description=f"{spec.source} `{spec.file}` staged to Parquet with publisher column names.",
    )
    def _stage(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
        settings = clinverse.settings()
        warehouse = clinverse.warehouse()
        started = time.perf_counter()
        result = stage_csv(spec, settings.location(spec.source), warehouse)
        warehouse.write(REJECTS, result.rejects, partition=spec.table)
        if result.skipped:
            context.log.info(f"{spec.table}: {result.skipped}")
        if result.rejects.height:
            context.log.warning(f"{spec.table}: {result.rejects.height} row(s) rejected; see the rejects table")
        return dg.MaterializeResult(
            metadata={
                "rows": result.rows,
                "rejects": result.rejects.height,
                "file": str(result.file) if result.file else "absent",
                "skipped": result.skipped or "",
                "seconds": round(time.perf_counter() - started, 3),
            }
        )

    return _stage


def _staging_check(table: str, columns: dict[str, str], keys: tuple[str, ...]) -> dg.AssetChecksDefinition:
    @dg.asset_check(asset=table, name=f"{table}_matches_schema", blocking=True)
    def _check(clinverse: ClinverseResource) -> dg.AssetCheckResult:
        outcome = check_staging(clinverse.warehouse(), table, columns, keys)
        return dg.AssetCheckResult(
            passed=outcome.passed,
            metadata={"problems": "; ".join(outcome.problems) or "none", **{f"null_{k}": v for k, v in outcome.null_keys.items()}},
        )

    return _check


@dg.asset(name=MEDQA_TABLE, group_name="medqa", kinds={"parquet"},
          description="MedQA JSON lines, one row per question; malformed lines go to rejects.")
def medqa_questions(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
    warehouse = clinverse.warehouse()
    questions, rejects = stage_medqa(clinverse.settings().paths("medqa"))
    rows = warehouse.write(MEDQA_TABLE, questions)
    warehouse.write(REJECTS, rejects, partition=MEDQA_TABLE)
    if rejects.height:
        context.log.warning(f"medqa: {rejects.height} line(s) rejected; see the rejects table")
    return dg.MaterializeResult(metadata={"rows": rows, "rejects": rejects.height})


STAGING_ASSETS = [_staging_asset(spec) for spec in ALL]
STAGING_CHECKS = [_staging_check(spec.table, spec.columns, spec.keys) for spec in ALL] + [
    _staging_check(MEDQA_TABLE, MEDQA_COLUMNS, ("medqa_hash", "question", "answer"))
]

# Its own group, not a source's: a build without some source still gathers the others' rejects.
rejects = gathered_table_asset(
    REJECTS, {**{t: t for t in [*(spec.table for spec in ALL), MEDQA_TABLE]}, "case_skeleton": "case_skeleton",
              **rejects_writers(), "unit_candidates_medqa": MEDQA_QUARANTINE},
    "staging",
    "Every source row a reader could not take (source, table, file, line, reason, raw line), gathered from "
    "the partition each staging asset wrote, the secondary diagnosis codes case_skeleton could not map, "
    "the impossible vital signs and measurements the MIMIC-IV and ED vitals producers and the MIMIC-IV history "
    "left out, and the MedQA history "
    "units quarantined for holding a measurement.")
