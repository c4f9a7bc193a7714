"""Helpers shared by the content asset modules (a leading underscore keeps Definitions from
loading this module as assets)."""

from __future__ import annotations

import time

import dagster as dg

from pipelines.content.partitions import Written


def result(written: Written, started: float, **extra: object) -> dg.MaterializeResult:
    """Metadata every producer reports: rows, why it skipped (if it did), seconds."""
    return dg.MaterializeResult(metadata={
        "rows": written.rows, "skipped": written.skipped or "", "seconds": round(time.perf_counter() - started, 3),
        **extra,
    })
