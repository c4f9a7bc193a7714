"""Information-unit assets: note sections, one unit_candidates producer per entry of
pipelines/content/producers.py, and the published ``information_units`` (importance labelled,
leakage guarded) with ``importance_notes``.

Producers of a source that is not configured write an empty partition, so nothing stale from an
earlier build survives. The MedQA producer (assets/medqa.py) is the asset ``unit_candidates_medqa``.
"""

import time

import dagster as dg
import polars as pl

from assets.factories import (
    PER_SHARD,
    leak_check,
    produced_result,
    producer_assets,
    shard_views,
)
from pipelines.content import notes, producers
from pipelines.content.leakage_guard import audit, case_terms
from pipelines.content.partitions import write_partition
from pipelines.content.producers import Produced
from pipelines.resources import ClinverseResource

GROUP = "content"
TABLE = "unit_candidates"
NOTE_SOURCES = ("mimic_iv", "mimic_note")


def _cases_per(table: pl.DataFrame) -> int:
    return table["case_id"].n_unique() if table.height else 0


@dg.asset(group_name=GROUP, deps=["note_discharge", "note_radiology", *producers.SKELETON],
          kinds={"medspacy", "parquet"}, **PER_SHARD,
          description="Sections of the discharge and radiology notes of the cases' admissions (internal: note text).")
def note_sections(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
    started = time.perf_counter()
    settings = clinverse.settings()
    per_shard = {}
    for view in shard_views(context, clinverse.warehouse()):
        if not set(NOTE_SOURCES) <= set(settings.configured_sources()):
            per_shard[view.shard] = Produced(notes.clear_sections(view, "MIMIC-IV and MIMIC-IV-Note are not both configured"))
            continue
        cases = notes.note_cases(view)
        written, work = notes.write_sections(view, cases, workers=settings.workers)
        # notes and CPU seconds of the section split per note kind: the bench's note throughput
        done = {f"{kind}_{what}": value for kind in ("discharge", "radiology")
                for what, value in (("notes", work.notes.get(kind, 0)), ("cpu_s", work.cpu_s.get(kind, 0.0)))}
        per_shard[view.shard] = Produced(written, {"notes": cases.height, "cases": _cases_per(cases), **done})
    return produced_result(per_shard, started)


UNIT_PRODUCERS = producer_assets(TABLE)


@dg.multi_asset(
    group_name=GROUP,
    specs=[
        dg.AssetSpec("information_units", deps=[*producers.assets(TABLE), "case_skeleton"], kinds={"polars", "parquet"},
                     description="Patient-reportable facts of every candidate case, importance labelled, leakage guarded."),
        dg.AssetSpec("importance_notes", deps=[*producers.assets(TABLE), "case_skeleton"], kinds={"polars", "parquet"},
                     description="How each case's key units were decided: train statistics, the "
                                 "knowledge-based fallback, or none (and why)."),
    ],
)
def information_units(clinverse: ClinverseResource):
    from pipelines.units.importance import basis_counts  # see assets/__init__.py: loaded with the step
    from pipelines.units.publish import publish

    started = time.perf_counter()
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    published = publish(warehouse, skeleton, case_terms(skeleton))
    rows = warehouse.write("information_units", published.units)
    write_partition(warehouse, "leakage_removals", producers.PUBLISHER_REMOVALS["information_units"], published.removals)
    noted = warehouse.write("importance_notes", published.notes)
    levels = dict(published.units.group_by("importance").len().iter_rows())
    associations = published.associations
    key_pairs = associations.filter(pl.col("key")) if associations.height else associations
    top = key_pairs.sort("p_adjusted").head(10) if key_pairs.height else key_pairs
    seconds = round(time.perf_counter() - started, 3)
    yield dg.MaterializeResult(asset_key="information_units", metadata={
        "rows": rows, "cases": _cases_per(published.units), "seconds": seconds,
        **{f"importance_{k}": levels.get(k, 0) for k in ("key", "supporting", "background")},
        **basis_counts(published.notes),
        "pairs_tested": associations.filter(pl.col("p_adjusted").is_not_null()).height if associations.height else 0,
        "pairs_key": key_pairs.height,
        "top_key_pairs": dg.MetadataValue.text("\n".join(
            f"{c} ~ {b}: n={n} lift={lift:.2f} q={q:.3g}"
            for c, b, n, lift, q in top.select("concept_key", "block", "n_cb", "lift", "p_adjusted").iter_rows()
        ) or "none"),
        "leakage_removals": published.removals.height,
        "superseded_by_notes": published.superseded,
        "repeated_facts_dropped": published.repeated,
    })
    yield dg.MaterializeResult(asset_key="importance_notes", metadata={
        "rows": noted, **dict(published.notes.group_by("resolution").len().iter_rows()),
    })


@dg.asset_check(asset="information_units", blocking=True)
def information_units_do_not_leak(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No unit (disclosed or hidden) names the case's diagnosis, an acceptable name, its ICD-10 title or code."""
    warehouse = clinverse.warehouse()
    skeleton = warehouse.read("case_skeleton")
    hits = audit(warehouse.read("information_units"), ["text"], case_terms(skeleton))
    return leak_check(hits, [f"{c} {t}: {s}" for c, _, t, s in hits.head(10).iter_rows()], skeleton)


@dg.asset_check(asset="information_units", blocking=True)
def information_units_have_key_facts(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Every case with hidden units has a key hidden unit or an importance note saying why not, no
    key unit lacks a basis (statistics or the knowledge fallback), no case noted keyless has a key,
    every unit belongs to a candidate case, and no case tells one fact twice (publish.fact_key)."""
    from pipelines.units.importance import key_problems  # see assets/__init__.py
    from pipelines.units.publish import fact_key

    warehouse = clinverse.warehouse()
    units = warehouse.read("information_units")
    problems = key_problems(units, warehouse.read_or_empty("importance_notes"))
    orphans = units.join(warehouse.read("case_skeleton"), on="case_id", how="anti").height
    repeated = units.group_by("case_id", fact_key().alias("fact")).len().filter(pl.col("len") > 1).height
    levels = set(units["importance"].unique().to_list())
    return dg.AssetCheckResult(passed=not any(problems.values()) and orphans == 0 and repeated == 0, metadata={
        **problems, "units_of_unknown_cases": orphans, "repeated_facts": repeated,
        "importance_levels": ", ".join(sorted(levels)),
    })
