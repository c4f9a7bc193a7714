"""Study assets: the evaluation protocols (pipelines/evaluation/protocols.py) as ``stat_tests``, one
static partition per protocol, and the HTML report over everything the warehouse holds. Outside
the ``build`` job (a study plays many episode runs): the ``evaluate`` job, or `clinverse evaluate`,
which calls the same domain function. The report's summaries are the report asset's metadata.
"""

import time

import dagster as dg
import polars as pl

from pipelines.episodes.config import DEFAULT_PRESET, DEFAULT_SEED
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.params import DEFAULT_STAGES, PROTOCOL_NAMES
from pipelines.resources import ClinverseResource

STUDY_GROUP = "study"
PROTOCOLS = dg.StaticPartitionsDefinition(list(PROTOCOL_NAMES))
MARKDOWN_ROWS = 20  # rows of each summary shown as metadata (the report has them all)


class StudyConfig(dg.Config):
    """Who plays the study and how its stream is staged (pipelines.evaluation.protocols.run_study)."""

    doctor: str = "retrieval"
    preset: str = DEFAULT_PRESET
    seed: int = DEFAULT_SEED
    stages: int = DEFAULT_STAGES


@dg.asset(group_name=STUDY_GROUP, partitions_def=PROTOCOLS, kinds={"polars", "parquet"},
          deps=["cases", "information_units", "exam_results", "case_rubrics", "case_exam_targets"],
          description="One evaluation protocol's episode runs (resumed), their scores and its paired statistics "
                      "(partition = protocol).")
def stat_tests(context: dg.AssetExecutionContext, config: StudyConfig,
               clinverse: ClinverseResource) -> dg.MaterializeResult:
    from pipelines.evaluation.protocols import run_study  # see assets/__init__.py: the domain loads with its step

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    study = run_study(warehouse, CaseStore.from_warehouse(warehouse), [context.partition_key], **config.model_dump(),
                      progress=lambda label, done, total: context.log.info(f"{label}: {done}/{total} episodes"))
    return dg.MaterializeResult(metadata={
        "runs": ", ".join(f"{label}={run_id}" for label, run_id in study.runs.items()),
        **{f"mean_u_{label}": s.get("mean_u") for label, s in study.summaries.items()},
        "tests": study.stat_tests.height, "seconds": round(time.perf_counter() - started, 3),
    })


evaluate_job = dg.define_asset_job("evaluate", selection=dg.AssetSelection.assets(stat_tests),
                                   description="The evaluation protocols, one partition each; config names the doctor.")


# Declarative automation (the ``score_and_report`` sensor): the report is rewritten after any protocol's
# results change, once none is being written. Unlike ``eager`` it does not wait for every protocol: the
# report shows what the warehouse holds.
REPORT_NEW_RESULTS = (dg.AutomationCondition.any_deps_updated().since_last_handled()
                      & ~dg.AutomationCondition.any_deps_in_progress() & ~dg.AutomationCondition.in_progress()
                      ).with_label("any protocol's results updated")


@dg.asset(group_name=STUDY_GROUP, deps=[stat_tests], kinds={"html"}, automation_condition=REPORT_NEW_RESULTS,
          description="The evaluation report (reports/evaluation.html in the warehouse folder); its summaries as "
                      "metadata.")
def evaluation_report(clinverse: ClinverseResource) -> dg.MaterializeResult:
    from pipelines.report.page import write_report  # see assets/__init__.py

    warehouse = clinverse.warehouse()
    written = write_report(warehouse.home, warehouse.home / "reports" / "evaluation.html")
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(written.path)), "sections_with_data": written.with_data,
        **{name: dg.MetadataValue.md(_markdown(frame)) for name, frame in written.summaries.items() if frame.height},
    })


def _markdown(frame: pl.DataFrame) -> str:
    shown = frame.head(MARKDOWN_ROWS)
    cells = [[("" if v is None else str(v)).replace("|", "\\|") for v in row] for row in shown.iter_rows()]
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns),
             *("| " + " | ".join(row) + " |" for row in cells)]
    more = f"\n\n{frame.height - MARKDOWN_ROWS} more rows in the report" if frame.height > MARKDOWN_ROWS else ""
    return "\n".join(lines) + more
