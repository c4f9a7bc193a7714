"""Staging assets: one per publisher table (group = source), plus MedQA questions.

Each asset copies its file into Parquet (pipelines.sources), records rejected rows in the
``rejects`` table (one partition per staging table) and is guarded by a blocking check
that the staged table has the columns, types and non-null keys of schemas/staging.py.
"""

import time

import dagster as dg

from pipelines.resources import ClinverseResource
from pipelines.sources.checks import check_staging
from pipelines.sources.csv_tables import stage_csv
from pipelines.sources.medqa import stage_medqa
from schemas.staging import ALL, MEDQA_COLUMNS, MEDQA_TABLE, SourceTable

SOURCE_DIR = {
    "mimic_iv": lambda s: s.mimic_iv_dir,
    "mimic_note": lambda s: s.mimic_note_dir,
    "sicdb": lambda s: s.sicdb_dir,
}
SOURCE_GROUPS = ("mimic_iv", "mimic_note", "sicdb", "medqa")


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
        result = stage_csv(spec, SOURCE_DIR[spec.source](settings), warehouse)
        warehouse.write("rejects", result.rejects, partition=spec.table)
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
    questions, rejects = stage_medqa(clinverse.settings().medqa_paths)
    rows = warehouse.write(MEDQA_TABLE, questions)
    warehouse.write("rejects", rejects, partition=MEDQA_TABLE)
    if rejects.height:
        context.log.warning(f"medqa: {rejects.height} line(s) rejected; see the rejects table")
    return dg.MaterializeResult(metadata={"rows": rows, "rejects": rejects.height})


STAGING_ASSETS = [_staging_asset(spec) for spec in ALL]
STAGING_CHECKS = [_staging_check(spec.table, spec.columns, spec.keys) for spec in ALL] + [
    _staging_check(MEDQA_TABLE, MEDQA_COLUMNS, ("medqa_hash", "question", "answer"))
]
