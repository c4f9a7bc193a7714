"""Results that monitor a treatment the stay began (treatment_monitoring.csv).

A PTT drawn after an intravenous heparin order measures the heparin: the drip is dosed by it. Such
a result tells the doctor what was done, not how the patient arrived, so it is not one of the
case's exam results. :func:`treatment_starts` finds, per case and laboratory item, when the first
such treatment began (the admission's prescriptions, and the ED's dispensations when the ED module
is staged); the laboratory query (sql/exams_mimic_labs.sql) leaves out that item's results
charted from then on, and the producer reports how many it left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import Record, csv_records

RULES_FILE = "treatment_monitoring.csv"
STARTS_SCHEMA = {"case_id": pl.Utf8, "itemid": pl.Int64, "since": pl.Datetime("us"), "why": pl.Utf8}


@dataclass(frozen=True)
class Rule:
    labels: tuple[str, ...]
    drugs: str  # regular expression on the lower-cased drug name
    excluded: str | None
    routes: tuple[str, ...]
    why: str


def _words(record: Record, field: str) -> str | None:
    items = record.items(field)
    if any(not re.fullmatch(r"[a-z0-9][a-z0-9 \-]*", i) for i in items):
        raise record.error(field, "expected lower-case words separated by |")
    return rf"\b(?:{'|'.join(map(re.escape, items))})\b" if items else None


def _rule(record: Record) -> Rule:
    drugs = _words(record, "drugs")
    labels, routes = record.items("labels"), record.items("routes")
    if drugs is None or not labels or not routes:
        raise record.error("", "a rule needs labels, drugs and routes")
    return Rule(labels, drugs, _words(record, "not"), routes, record.text("why"))


@cache
def rules() -> tuple[Rule, ...]:
    return tuple(_rule(r) for r in csv_records(__package__, RULES_FILE, ("labels", "drugs", "not", "routes", "why")))


def _given(rule: Rule) -> pl.Expr:
    name = pl.col("drug").str.to_lowercase()
    given = name.str.contains(rule.drugs)
    return given & ~name.str.contains(rule.excluded) if rule.excluded else given


def treatment_starts(cases: pl.DataFrame, d_labitems: pl.DataFrame, prescriptions: pl.DataFrame,
                     dispensed: pl.DataFrame | None = None) -> pl.DataFrame:
    """``case_id, itemid, since, why``: per case (``case_id, hadm_id``) and monitoring item, the
    first order (``prescriptions``: hadm_id, drug, route, starttime) or ED dispensation
    (``dispensed``: hadm_id, drug, charttime) of a drug its rule names."""
    found = []
    for rule in rules():
        items = d_labitems.filter(pl.col("label").str.strip_chars().is_in(rule.labels)).select(
            pl.col("itemid").cast(pl.Int64))
        if items.is_empty():
            continue
        starts = [prescriptions.filter(_given(rule) & pl.col("route").str.strip_chars()
                                       .str.to_uppercase().is_in(rule.routes))
                  .select("hadm_id", pl.col("starttime").cast(pl.Datetime("us")).alias("since"))]
        if dispensed is not None:
            starts.append(dispensed.filter(_given(rule))
                          .select("hadm_id", pl.col("charttime").cast(pl.Datetime("us")).alias("since")))
        first = pl.concat(starts).drop_nulls().group_by("hadm_id").agg(pl.col("since").min())
        found.append(cases.select("case_id", "hadm_id").join(first, on="hadm_id").join(items, how="cross")
                     .select("case_id", "itemid", "since", pl.lit(rule.why).alias("why")))
    if not found:
        return pl.DataFrame(schema=STARTS_SCHEMA)
    # An item two rules name keeps the earlier start.
    return (pl.concat(found).cast(STARTS_SCHEMA).sort("case_id", "itemid", "since")
            .unique(["case_id", "itemid"], keep="first", maintain_order=True))
