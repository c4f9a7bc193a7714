"""Home medications from MIMIC-IV-ED ``medrecon``: the list reconciled with the patient on arrival.

For a case whose admission came through the ED (pipelines.content.ed_stays), the reconciliation of
that stay is the patient's real list of home medications, so it replaces the fallback of the last
discharge's prescriptions (pipelines.units.mimic.structured_units takes this frame). One row per
drug name, cleaned the way a patient says it: the free-text marker ``*`` and the bracketed brand
(``divalproex [Depakote]``) dropped. Supplies (meters, strips, lancets, pen needles:
``medrecon_supplies.csv``) are no medication.
"""

from __future__ import annotations

import re
from functools import cache

import polars as pl

from pipelines.content.ed_stays import case_stays
from pipelines.datafiles import csv_records
from pipelines.units.medications import HOME_MEDICATION_COLUMNS
from pipelines.warehouse import Warehouse

SUPPLIES_FILE = "medrecon_supplies.csv"
FRAME = {"case_id": pl.Utf8, "drug": pl.Utf8, "dose": pl.Utf8, "dose_unit": pl.Utf8, "route": pl.Utf8,
         "source_ref": pl.Utf8}


@cache
def supply_patterns() -> dict[str, str]:
    """``etcdescription`` / ``name`` -> one case-insensitive pattern (alternatives joined)."""
    found: dict[str, list[str]] = {"etcdescription": [], "name": []}
    for record in csv_records(__package__, SUPPLIES_FILE, ("field", "pattern", "why")):
        record.regex("pattern", re.IGNORECASE)  # fails here, naming the line, if it does not compile
        record.text("why")
        found[record.choice("field", tuple(found))].append(record.text("pattern"))
    return {field: "(?i)" + "|".join(f"(?:{p})" for p in patterns) for field, patterns in found.items() if patterns}


def clean_name(name: pl.Expr) -> pl.Expr:
    """``*iron liquid `` -> ``iron liquid``; ``divalproex [Depakote]`` -> ``divalproex``."""
    return (name.str.replace(r"^\s*\*", "").str.replace_all(r"\[[^\]]*\]", " ")
            .str.replace_all(r"\s+", " ").str.strip_chars())


def home_medications(medrecon: pl.LazyFrame, stays: pl.DataFrame) -> pl.DataFrame:
    """:data:`HOME_MEDICATION_COLUMNS` rows from ``medrecon`` (stay_id, charttime, name,
    etcdescription) of the cases' ``stays`` (case_id, stay_id), in reconciliation order."""
    patterns = supply_patterns()
    rows = stays.lazy().select("case_id", "stay_id").join(medrecon, on="stay_id", how="inner").with_columns(
        clean_name(pl.col("name")).alias("drug"))
    supply = pl.lit(False)
    for field, pattern in patterns.items():
        supply = supply | pl.col(field).fill_null("").str.contains(pattern)
    rows = rows.filter(pl.col("drug").str.len_chars() > 0).with_columns(
        supply.any().over("case_id", "drug").alias("_supply"), pl.col("drug").str.to_lowercase().alias("_key"))
    meds = (rows.filter(~pl.col("_supply")).sort("case_id", "charttime", "_key", nulls_last=True)
            .unique(["case_id", "_key"], keep="first", maintain_order=True))
    return meds.select(
        "case_id", "drug", *(pl.lit(None, pl.Utf8).alias(c) for c in ("dose", "dose_unit", "route")),
        pl.format("ed_medrecon:{}", "_key").alias("source_ref"),
    ).collect().select(HOME_MEDICATION_COLUMNS).cast(FRAME)


def reconciled_medications(warehouse: Warehouse, cases: pl.DataFrame) -> pl.DataFrame:
    """The reconciled home medications of ``cases`` (pipelines.content.case_keys.mimic_cases);
    empty when ``ed_medrecon`` is not staged."""
    if not warehouse.exists("ed_medrecon"):
        return pl.DataFrame(schema=FRAME)
    medrecon = warehouse.scan("ed_medrecon").select("stay_id", "charttime", "name", "etcdescription")
    return home_medications(medrecon, case_stays(warehouse, cases))
