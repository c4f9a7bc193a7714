"""Information units from MIMIC-IV-ED: the triage chief complaint, as the patient would say it.

Where a case's admission came through the ED (pipelines.content.ed_stays), its triage
``chiefcomplaint`` is the opening complaint. Each item of it (pipelines.units.ed_complaints)
becomes one unit:

* a complaint or a condition the patient was told of: ``chief_complaint``, disclosed (the
  presentation says it); "Transfer" (a referral): a hidden ``hpi`` unit; "UNKNOWN-CC": nothing.
* an item that names the case's diagnosis never reaches the patient: it is dropped (and recorded
  in ``leakage_removals``) when its ICD-10 prefixes name the primary or an acceptable code, when
  the scrubber's diagnosis terms (pipelines.content.leakage_guard) or the independent ICD-10-CM
  index-name detector (pipelines.content.leakage_audit) find the diagnosis in its shorthand, its
  clinical expansion or its lay words. Expanding first is what lets them see that "HEAD BLEED"
  is an intracranial hemorrhage.

ED diagnoses (``ed_diagnosis``) are known at ED discharge and name the diagnosis: nothing here
reads them.
"""

from __future__ import annotations

import polars as pl

from pipelines.content import leakage_audit
from pipelines.content.ed_stays import case_stays
from pipelines.content.leakage_guard import case_terms, scrub_column
from pipelines.notes.tables import REMOVAL_COLUMNS
from pipelines.units.candidates import finish
from pipelines.units.coded import unit_rows
from pipelines.units.ed_complaints import expand
from pipelines.warehouse import Warehouse

ITEM_COLUMNS = {"case_id": pl.Utf8, "position": pl.Int32, "raw": pl.Utf8, "lay": pl.Utf8, "clinical": pl.Utf8,
                "kind": pl.Utf8, "icd10": pl.List(pl.Utf8)}
TEXTS = ("raw", "clinical", "lay")  # what the guards read, in this order


def complaint_items(triage: pl.DataFrame) -> pl.DataFrame:
    """One row per item of each case's complaint (``triage``: case_id, chiefcomplaint), numbered
    from 0 per case; each distinct complaint is expanded once."""
    distinct = triage.select("chiefcomplaint").drop_nulls().unique()
    rows = [(cc, k, c.raw, c.lay, c.clinical, c.kind, list(c.icd10))
            for (cc,) in distinct.iter_rows() for k, c in enumerate(expand(cc))]
    expanded = pl.DataFrame(rows, orient="row", schema={"chiefcomplaint": pl.Utf8, **{
        k: v for k, v in ITEM_COLUMNS.items() if k != "case_id"}})
    items = triage.join(expanded, on="chiefcomplaint", how="inner").sort("case_id", "position")
    return items.select(list(ITEM_COLUMNS))


def triage_complaints(warehouse: Warehouse, stays: pl.DataFrame) -> pl.DataFrame:
    """``case_id, chiefcomplaint`` of the cases' ED stays (``stays``: pipelines.content.ed_stays)."""
    triage = warehouse.scan("ed_triage").select("stay_id", "chiefcomplaint")
    return stays.lazy().select("case_id", "stay_id").join(triage, on="stay_id", how="inner").select(
        "case_id", "chiefcomplaint").sort("case_id").collect()


def ed_complaint_units(warehouse: Warehouse, cases: pl.DataFrame, skeleton: pl.DataFrame
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(unit_candidates of the cases' triage complaints, leakage_removals of the items left out)."""
    items = complaint_items(triage_complaints(warehouse, case_stays(warehouse, cases)))
    kept, removals = guard_items(items, skeleton)
    return finish(complaint_units(kept)), removals


def _source_ref(position: pl.Expr) -> pl.Expr:
    return pl.format("ed_triage:chiefcomplaint:{}", position)


def guard_items(items: pl.DataFrame, skeleton: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(items that do not name the case's diagnosis, leakage_removals rows of those that do)."""
    keyed = items.with_row_index("_item").join(
        skeleton.select("case_id", "primary_icd10", "acceptable_icd10"), on="case_id", how="left")
    named = dict(_named_codes(keyed).iter_rows())
    terms = case_terms(skeleton.join(items.select("case_id").unique(), on="case_id", how="semi"))
    for column in TEXTS:
        scrubbed = scrub_column(keyed.select("_item", "case_id", column), column, terms)
        leaked = scrubbed.filter(pl.col("leak_terms").is_not_null())
        for item, found in leaked.select("_item", "leak_terms").iter_rows():
            named.setdefault(item, found[0])
        # The detector keys texts by case_id: hand it each item as its own "case".
        per_item = keyed.select(pl.col("_item").cast(pl.Utf8).alias("case_id"), column, "primary_icd10")
        for item, name in leakage_audit.audit(per_item.select("case_id", column), [column], per_item).select(
                "case_id", "name").iter_rows():
            named.setdefault(int(item), name)
    hit = pl.DataFrame({"_item": list(named), "term": list(named.values())},
                       schema={"_item": pl.UInt32, "term": pl.Utf8})
    dropped = keyed.join(hit, on="_item", how="inner")
    removals = dropped.select("case_id", _source_ref(pl.col("position")).alias("source_ref"), "term",
                              pl.col("raw").alias("original_snippet"), pl.lit("dropped_unit").alias("action"))
    kept = keyed.join(hit, on="_item", how="anti").select(list(ITEM_COLUMNS))
    return kept, removals.cast(REMOVAL_COLUMNS)


def _named_codes(keyed: pl.DataFrame) -> pl.DataFrame:
    """``_item, term`` ("names I61.9") of the items whose ICD-10 prefixes name the case's primary or an
    acceptable code (the first such code in that order)."""
    codes = keyed.select("_item", "icd10", pl.concat_list(pl.col("primary_icd10"), pl.col("acceptable_icd10")
                                                          .fill_null(pl.lit([], pl.List(pl.Utf8)))).alias("code"))
    pairs = codes.filter(pl.col("icd10").list.len() > 0).explode("code").with_row_index("_order").explode("icd10")
    hits = pairs.filter(pl.col("code").str.replace_all(".", "", literal=True).str.starts_with(pl.col("icd10")))
    return hits.sort("_order").unique("_item", keep="first", maintain_order=True).select(
        "_item", pl.format("names {}", "code").alias("term"))


def complaint_units(items: pl.DataFrame) -> pl.DataFrame:
    """Producer rows (pipelines.units.candidates.UNIT_COLUMNS) of guarded items."""
    said = items.filter(pl.col("kind") != "none")
    category = pl.when(pl.col("kind") == "referral").then(pl.lit("hpi")).otherwise(pl.lit("chief_complaint"))
    text = pl.concat_str([pl.col("lay").str.slice(0, 1).str.to_uppercase(), pl.col("lay").str.slice(1)])
    rows = unit_rows(said, category, text, _source_ref(pl.col("position")), pl.lit(None, pl.Utf8))
    return rows.with_columns((pl.col("category") == "chief_complaint").alias("disclosed"))

