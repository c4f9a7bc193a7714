"""Asset and check factories shared by the asset modules: one asset per registered content
producer (pipelines/content/producers.py), the assets gathering a table many assets write a
partition of (``rejects``, ``leakage_removals``), and the result every leakage audit reports.

(No ``from __future__ import annotations`` here: Dagster reads the ``context`` annotation.)
"""

import time
import warnings
from collections.abc import Iterator, Mapping, Sequence

import dagster as dg
import polars as pl
from dagster._core.storage.tags import (
    ASSET_PARTITION_RANGE_END_TAG,
    ASSET_PARTITION_RANGE_START_TAG,
)

import schemas
from pipelines.content import producers as registry
from pipelines.content.leakage_guard import hits_per_source
from pipelines.content.producers import Produced, Producer, merged
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse, partition_of
from pipelines.workers import kept_pools

# The subject shards (pipelines.shards) every per-case asset is partitioned by. Dynamic, because the
# shard count is a build setting: `clinverse build` (pipelines.runner), the sensor and the schedule
# (pipelines.build_plan) register the names. A run may hold several shards (a full build holds them
# all, in one run: BackfillPolicy.single_run); the asset writes each through its shard's view.
SHARDS = dg.DynamicPartitionsDefinition(name="shards")
# Dagster 1.13 calls BackfillPolicy "beta" and warns on every asset that takes one; the pinned version's
# single-run behaviour is what the build and tests/test_incremental.py rely on and check.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)
PER_SHARD = {"partitions_def": SHARDS, "backfill_policy": dg.BackfillPolicy.single_run()}


def shard_tags(shards: Sequence[str]) -> dict[str, str]:
    """The tags of one run over the shards ``shards`` (consecutive, as pipelines.shards names them):
    Dagster's partition range, which each per-shard asset (BackfillPolicy.single_run) gets whole."""
    return {ASSET_PARTITION_RANGE_START_TAG: shards[0], ASSET_PARTITION_RANGE_END_TAG: shards[-1]}


def register_shards(instance: dg.DagsterInstance, shards: Sequence[str]) -> None:
    """Add the shards to the instance's ``shards`` partitions, those it lacks."""
    missing = [s for s in shards if not instance.has_dynamic_partition(SHARDS.name, s)]
    if missing:
        instance.add_dynamic_partitions(SHARDS.name, missing)


def shard_views(context: dg.AssetExecutionContext, warehouse: Warehouse) -> Iterator[Warehouse]:
    """The warehouse as each shard of this run sees it (pipelines.warehouse.Warehouse.shard_view); the
    step's worker pool (the note NLP's) is started once for all of them (in an in-process run, once for
    the run: pipelines.runner.run)."""
    with kept_pools():
        for shard in context.partition_keys:
            yield warehouse.shard_view(shard)


def produced_result(per_shard: Mapping[str, Produced], started: float) -> dg.MaterializeResult:
    """Metadata every producer reports: rows (in all and per shard), why it skipped (if it did),
    seconds, then its own (numbers summed over the shards)."""
    produced = merged(list(per_shard.values()))
    return dg.MaterializeResult(metadata={
        "rows": produced.written.rows, "skipped": produced.written.skipped or "",
        "seconds": round(time.perf_counter() - started, 3),
        **{f"rows_{shard}": p.written.rows for shard, p in per_shard.items()}, **produced.metadata,
    })


def producer_asset(producer: Producer, group: str = "content") -> dg.AssetsDefinition:
    """The asset ``<table>_<partition>`` of a producer that writes its partition on its own, per shard."""
    @dg.asset(name=producer.asset, group_name=group, deps=list(producer.deps), kinds=set(producer.kinds),
              description=producer.summary, **PER_SHARD)
    def _produce(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
        started = time.perf_counter()
        per_shard = {}
        for view in shard_views(context, clinverse.warehouse()):
            per_shard[view.shard] = registry.run(producer, view, clinverse.settings())
            if not view.partition_files(producer.table, producer.partition):
                raise RuntimeError(f"{producer.asset} wrote no {producer.table} partition {producer.partition!r} "
                                   f"of shard {view.shard}: its writer and pipelines/content/producers.py disagree")
        return produced_result(per_shard, started)

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
