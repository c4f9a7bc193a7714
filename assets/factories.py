"""Asset and check factories shared by the asset modules: one asset per registered content
producer (pipelines/content/producers.py), the assets gathering a table many assets write a
partition of (``rejects``, ``leakage_removals``), and the result every leakage audit reports.

(No ``from __future__ import annotations`` here: Dagster reads the ``context`` annotation.)
"""

import time
from collections.abc import Mapping

import dagster as dg
import polars as pl

import schemas
from pipelines.content import producers as registry
from pipelines.content.leakage_guard import hits_per_source
from pipelines.content.producers import Produced, Producer
from pipelines.resources import ClinverseResource
from pipelines.warehouse import partition_of


def produced_result(produced: Produced, started: float) -> dg.MaterializeResult:
    """Metadata every producer reports: rows, why it skipped (if it did), seconds, then its own."""
    written = produced.written
    return dg.MaterializeResult(metadata={
        "rows": written.rows, "skipped": written.skipped or "", "seconds": round(time.perf_counter() - started, 3),
        **produced.metadata,
    })


def producer_asset(producer: Producer, group: str = "content") -> dg.AssetsDefinition:
    """The asset ``<table>_<partition>`` of a producer that writes its partition on its own."""
    @dg.asset(name=producer.asset, group_name=group, deps=list(producer.deps), kinds=set(producer.kinds),
              description=producer.summary)
    def _produce(clinverse: ClinverseResource) -> dg.MaterializeResult:
        started = time.perf_counter()
        warehouse = clinverse.warehouse()
        produced = registry.run(producer, warehouse, clinverse.settings())
        if not warehouse.partition_files(producer.table, producer.partition):
            raise RuntimeError(f"{producer.asset} wrote no {producer.table} partition {producer.partition!r}: "
                               "its writer and pipelines/content/producers.py disagree")
        return produced_result(produced, started)

    return _produce


def producer_assets(table: str, producers: tuple[Producer, ...] = registry.PRODUCERS) -> list[dg.AssetsDefinition]:
    """An asset for every producer of ``table`` that is not part of a joint computation."""
    return [producer_asset(p) for p in registry.of_table(table, producers) if p.joint is None]


def gathered_table_asset(table: str, writers: Mapping[str, str], group: str, description: str) -> dg.AssetsDefinition:
    """An asset for a table whose partitions other assets write (``writers``: asset -> partition).

    It depends on every writer, so the lineage is in the graph; when they are done it reads every
    partition, validates it against schemas/<table>.py and reports the rows per partition, which
    declared partitions are absent (their writer was not run) and which files no writer declares.
    """
    @dg.asset(name=table, group_name=group, deps=sorted(writers), kinds={"polars", "parquet"},
              description=description)
    def _gather(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
        warehouse = clinverse.warehouse()
        folder = warehouse.table_dir(table)
        present = sorted({partition_of(p.stem) for p in folder.glob("*.parquet")}) if folder.exists() else []
        rows = {}
        for partition in present:
            rows[partition] = schemas.validate(table, warehouse.read_partition(table, partition)).height
        declared = set(writers.values())
        undeclared = [p for p in present if p not in declared]
        if undeclared:
            context.log.warning(f"{table}: partition(s) {', '.join(undeclared)} have no declared writer "
                                "(left from an earlier build?)")
        return dg.MaterializeResult(metadata={
            "rows": sum(rows.values()), **{f"rows_{p}": n for p, n in rows.items()},
            "absent": ", ".join(sorted(declared - set(present))) or "none",
            "undeclared": ", ".join(undeclared) or "none",
        })

    return _gather


def leak_check(hits: pl.DataFrame, examples: list[str], cases: pl.DataFrame | None = None) -> dg.AssetCheckResult:
    """What every leakage check reports: passed when there is no hit, the hits (also per source when
    ``cases`` gives each case's source) and the examples."""
    per_source = {} if cases is None else hits_per_source(hits, cases.select("case_id", "source"))
    return dg.AssetCheckResult(passed=hits.is_empty(), metadata={
        "hits": hits.height, **{f"hits_{s}": n for s, n in per_source.items()},
        "examples": dg.MetadataValue.text("\n".join(examples) or "none"),
    })
