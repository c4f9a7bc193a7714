"""MedQA content: the patient, examination and manager views of the MedQA diagnosis cases.

One computation (``medqa_content``) writes the ``medqa`` partitions of ``unit_candidates``,
``exam_candidates``, ``presentations`` and ``leakage_removals``, the ``medqa_rubric`` table and the
``medqa_quarantine`` partition of ``rejects`` (history units that still hold a measurement).
Its assets are the producers pipelines/content/producers.py lists as ``joint="medqa_content"``
(``unit_candidates_medqa``, ``exam_candidates_medqa``, ``presentations_medqa``). Without a MedQA
source it writes empty partitions, so nothing stale from an earlier build survives.
"""

import json
import time
from dataclasses import fields

import dagster as dg
import polars as pl

import schemas
from assets.factories import PER_SHARD, leak_check, shard_views
from pipelines.content import producers
from pipelines.content.partitions import write_partition
from pipelines.leakage import find_mentions
from pipelines.medqa.answer_icd import equivalent_names
from pipelines.medqa.convert import (
    QUARANTINE_PARTITION,
    QUARANTINE_REASON,
    MedqaViews,
    convert_questions,
    holds_measurement,
)
from pipelines.medqa.vignette import stem_span
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse
from schemas.staging import MEDQA_TABLE

GROUP = "content"
VIEWS = {p.table: p for p in producers.joint(producers.MEDQA)}  # table -> its medqa producer
PARTITION = VIEWS["unit_candidates"].partition
REMOVALS = VIEWS["unit_candidates"].removals
RUBRIC = "medqa_rubric"
MIN_PRESENTED = 0.95  # share of MedQA cases that must get an opening presentation


def _skipped_views() -> MedqaViews:
    return MedqaViews(*(schemas.empty(t) for t in ("unit_candidates", "exam_candidates", "presentations")),
                      schemas.empty(RUBRIC), pl.DataFrame(schema={"case_id": pl.Utf8, "reason": pl.Utf8}),
                      schemas.empty("leakage_removals"), schemas.empty("rejects"))


def _write_views(warehouse: Warehouse, skipped: str) -> MedqaViews:
    """Convert the questions of ``warehouse``'s cases (one shard's) and write every view; empty ones
    when MedQA is not configured (``skipped`` says why), so nothing stale survives."""
    views = _skipped_views() if skipped else convert_questions(warehouse.read(MEDQA_TABLE), medqa_case_ids(warehouse))
    for p in VIEWS.values():
        write_partition(warehouse, p.table, p.partition, getattr(views, p.table))
    write_partition(warehouse, "leakage_removals", REMOVALS, views.leakage_removals)
    write_partition(warehouse, "rejects", QUARANTINE_PARTITION, views.quarantined)
    warehouse.write(RUBRIC, views.rubric)
    return views


def medqa_case_ids(warehouse: Warehouse) -> pl.DataFrame:
    """medqa_hash -> case_id with the skeleton's diagnosis columns (for the leakage terms)."""
    provenance = warehouse.scan("case_provenance").filter(pl.col("source") == "medqa").select("case_id", "medqa_hash")
    skeleton = warehouse.scan("case_skeleton").filter(pl.col("source") == "medqa").select(
        "case_id", "diagnosis_name", "acceptable_names", "primary_icd10")
    return provenance.join(skeleton, on="case_id", how="inner").collect()


@dg.multi_asset(
    name=producers.MEDQA,
    group_name=GROUP,
    specs=[
        *(dg.AssetSpec(p.asset, deps=list(p.deps), kinds=set(p.kinds), description=p.summary) for p in VIEWS.values()),
        dg.AssetSpec(RUBRIC, deps=list(VIEWS["unit_candidates"].deps), kinds={"polars", "parquet"},
                     description="Evidence key points per MedQA case: chief complaint, key history, abnormal findings."),
    ],
    **PER_SHARD,
)
def medqa_content(context: dg.AssetExecutionContext, clinverse: ClinverseResource):
    started = time.perf_counter()
    skipped = producers.unconfigured(VIEWS["unit_candidates"], clinverse.settings())
    if skipped:
        context.log.info(f"{skipped}: writing empty {PARTITION} partitions")
    per_shard = [_write_views(view, skipped) for view in shard_views(context, clinverse.warehouse())]
    views = MedqaViews(*(pl.concat([getattr(v, f.name) for v in per_shard]) for f in fields(MedqaViews)))
    if views.quarantined.height:
        context.log.warning(f"medqa: {views.quarantined.height} history unit(s) held a measurement and were "
                            f"quarantined; see rejects partition {QUARANTINE_PARTITION}")
    seconds = round(time.perf_counter() - started, 3)
    common = {"skipped": skipped, "seconds": seconds}
    units = views.unit_candidates
    exams = views.exam_candidates
    yield dg.MaterializeResult(asset_key=VIEWS["unit_candidates"].asset, metadata={
        "rows": units.height,
        "cases": units["case_id"].n_unique() if units.height else 0,
        "leakage_removals": views.leakage_removals.height, "conversion_failures": views.conversion_failures.height,
        "quarantined_units": views.quarantined.height,
        "failure_examples": dg.MetadataValue.text(
            "\n".join(f"{c}: {r}" for c, r in views.conversion_failures.head(10).iter_rows()) or "none"),
        **{f"units_{c}": n for c, n in units.group_by("category").len().sort("category").iter_rows()}, **common,
    })
    yield dg.MaterializeResult(asset_key=VIEWS["exam_candidates"].asset, metadata={
        "rows": exams.height,
        "abnormal": int(exams["abnormal"].sum() or 0) if exams.height else 0,
        **{f"exams_{k}": n for k, n in exams.group_by("kind").len().sort("kind").iter_rows()}, **common,
    })
    yield dg.MaterializeResult(asset_key=VIEWS["presentations"].asset,
                               metadata={"rows": views.presentations.height, **common})
    yield dg.MaterializeResult(asset_key=RUBRIC, metadata={
        "rows": views.rubric.height, "cases": views.rubric["case_id"].n_unique() if views.rubric.height else 0, **common,
    })


def _options_leaking(warehouse: Warehouse) -> pl.DataFrame:
    """Rows of the medqa views where an answer option's text (the answer or a distractor) appears."""
    if not warehouse.exists(MEDQA_TABLE):  # MedQA not configured: its partitions are empty
        return pl.DataFrame(schema={"case_id": pl.Utf8, "table": pl.Utf8, "column": pl.Utf8, "term": pl.Utf8})
    ids = warehouse.scan("case_provenance").filter(pl.col("source") == "medqa").select("case_id", "medqa_hash")
    options = (warehouse.scan(MEDQA_TABLE).select("medqa_hash", "options").join(ids, on="medqa_hash")
               .select("case_id", "options").collect())
    terms = {c: [n for text in json.loads(o).values() for n in equivalent_names(text)] for c, o in options.iter_rows()}
    views = [
        ("unit_candidates", ["text"]), ("exam_candidates", ["value_text", "raw_name", "exam_name"]),
        ("presentations", ["presentation"]),
    ]
    hits = []
    for table, columns in views:
        frame = warehouse.read_partition(table, PARTITION)
        for record in frame.select("case_id", *columns).iter_rows(named=True):
            for column in columns:
                for m in find_mentions(record[column], terms.get(record["case_id"], [])):
                    hits.append({"case_id": record["case_id"], "table": table, "column": column, "term": m.term})
    return pl.DataFrame(hits, schema={"case_id": pl.Utf8, "table": pl.Utf8, "column": pl.Utf8, "term": pl.Utf8})


@dg.asset_check(asset=VIEWS["unit_candidates"].asset, blocking=True)
def medqa_views_name_no_option(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No MedQA unit, exam result or presentation contains the text of any answer option (the
    correct one or a distractor)."""
    hits = _options_leaking(clinverse.warehouse())
    return leak_check(hits, [f"{c} {t}.{col}: {term}" for c, t, col, term in hits.head(10).iter_rows()])


@dg.asset_check(asset=VIEWS["unit_candidates"].asset, blocking=True)
def medqa_history_holds_no_measurement(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No MedQA history unit holds a clinical measurement (a value with a clinical unit, a blood
    pressure, a saturation): those belong to the examination view. Units the producer could not
    split cleanly are quarantined in ``rejects`` (partition ``medqa_quarantine``) instead; the check
    also fails when a quarantine record is not one (no measurement, another reason, or its unit
    published after all)."""
    warehouse = clinverse.warehouse()
    units = warehouse.read_partition("unit_candidates", PARTITION)
    measured = pl.col("text").map_elements(holds_measurement, return_dtype=pl.Boolean)
    bad = units.filter(measured)
    quarantined = warehouse.read_partition("rejects", QUARANTINE_PARTITION)
    wrong = quarantined.filter(~pl.col("raw").map_elements(holds_measurement, return_dtype=pl.Boolean)
                               | (pl.col("reason") != QUARANTINE_REASON)
                               | pl.col("row_key").is_in(units["source_ref"].implode()))
    return dg.AssetCheckResult(passed=bad.is_empty() and wrong.is_empty(), metadata={
        "units": units.height, "with_measurement": bad.height, "quarantined": quarantined.height,
        "quarantine_records_wrong": wrong.height,
        "examples": dg.MetadataValue.text("\n".join(bad["text"].head(10).to_list()) or "none"),
        "quarantined_examples": dg.MetadataValue.text("\n".join(quarantined["raw"].head(10).to_list()) or "none")})


@dg.asset_check(asset=VIEWS["presentations"].asset, blocking=True)
def medqa_presentations_hide_the_stem(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """At least 95% of the MedQA cases get an opening presentation (the others are conversion
    failures and lack the presentation a case needs), and none repeats the question stem."""
    warehouse = clinverse.warehouse()
    presented = warehouse.read_partition("presentations", PARTITION)
    if producers.unconfigured(VIEWS["presentations"], clinverse.settings()):
        return dg.AssetCheckResult(passed=presented.is_empty(), metadata={"rows": presented.height})
    ids = medqa_case_ids(warehouse).select("case_id", "medqa_hash")
    questions = warehouse.read(MEDQA_TABLE).select("medqa_hash", "question").join(ids, on="medqa_hash")
    joined = questions.join(presented, on="case_id", how="left")
    missing = joined.filter(pl.col("presentation").is_null()).height
    stems = sum(1 for q, p in joined.select("question", "presentation").iter_rows()
                if p and q[stem_span(q)[0]:].strip() and q[stem_span(q)[0]:].strip() in p)
    share = 1.0 - missing / joined.height if joined.height else 1.0
    return dg.AssetCheckResult(passed=share >= MIN_PRESENTED and stems == 0,
                               metadata={"cases": joined.height, "without_presentation": missing,
                                         "presented_share": round(share, 4), "with_stem": stems})
