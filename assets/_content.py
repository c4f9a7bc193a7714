"""Helpers shared by the content asset modules (a leading underscore keeps Definitions from
loading this module as assets)."""

from __future__ import annotations

import time

import dagster as dg
import polars as pl

from pipelines.content.leakage_guard import hits_per_source
from pipelines.content.partitions import Written, write_empty
from pipelines.resources import ClinverseResource


def result(written: Written, started: float, **extra: object) -> dg.MaterializeResult:
    """Metadata every producer reports: rows, why it skipped (if it did), seconds."""
    return dg.MaterializeResult(metadata={
        "rows": written.rows, "skipped": written.skipped or "", "seconds": round(time.perf_counter() - started, 3),
        **extra,
    })


def configured(clinverse: ClinverseResource, *sources: str) -> bool:
    """Whether every one of ``sources`` is configured for this build."""
    return set(sources) <= set(clinverse.settings().configured_sources())


def skip_unconfigured(clinverse: ClinverseResource, sources: tuple[str, ...], table: str, partition: str,
                      reason: str, started: float) -> dg.MaterializeResult | None:
    """When a source the producer reads is not configured: its partition written empty (so nothing
    stale from an earlier build survives) and the result saying why; else None."""
    if configured(clinverse, *sources):
        return None
    return result(write_empty(clinverse.warehouse(), table, partition, reason), started)


def leak_check(hits: pl.DataFrame, examples: list[str], cases: pl.DataFrame | None = None) -> dg.AssetCheckResult:
    """What every leakage check reports: passed when there is no hit, the hits (also per source when
    ``cases`` gives each case's source) and the examples."""
    per_source = {} if cases is None else hits_per_source(hits, cases.select("case_id", "source"))
    return dg.AssetCheckResult(passed=hits.is_empty(), metadata={
        "hits": hits.height, **{f"hits_{s}": n for s, n in per_source.items()},
        "examples": dg.MetadataValue.text("\n".join(examples) or "none"),
    })
