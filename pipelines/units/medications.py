"""Home medications: which discharge orders the patient went home on, and how they say them.

Two steps with a frame between them, so that any source of a medication list can feed the second:

1. :func:`discharge_medications` keeps the prescriptions of an earlier stay's discharge
   (sql/units_mimic_prior_medications.sql: orders running at its dischtime) that a patient takes
   at home, each left-out order with its ``rule``: ``inpatient_route`` (a route of
   ``medication_routes.csv`` that is not a home route, or an unknown one: IV, PO/NG, NG ...),
   ``inpatient_only`` (``medication_rules.csv``: heparin, sliding-scale insulin, flushes, fluids,
   bowel regimen ...), ``as_needed`` (no doses per 24 hours: an as-needed ward item, unless the
   rules call it ``home_as_needed``, like a rescue inhaler), ``repeat`` (a second order of a drug
   already kept).
2. :func:`medication_units` turns a home-medication frame (:data:`HOME_MEDICATION_COLUMNS`) into
   ``medication`` units: "I take aspirin 81 mg", "I take fluticasone 1 spray in the nose". A
   reconciled list taken on arrival (MIMIC-IV-ED ``medrecon``) is a better source than the last
   discharge when the source has it; it enters here with its own ``source_ref``.
"""

from __future__ import annotations

import re

import polars as pl

from pipelines.datafiles import csv_records, unique
from pipelines.units.coded import unit_rows

HOME_MEDICATION_COLUMNS = ("case_id", "drug", "dose", "dose_unit", "route", "source_ref")

_ROUTES = csv_records(__package__, "medication_routes.csv", ("route", "home", "spoken", "why"), key="route")
unique(_ROUTES, "route")
HOME_ROUTES: dict[str, str] = {r.text("route"): r.get("spoken", "") for r in _ROUTES if r.flag("home")}
_UNITS = csv_records(__package__, "dose_units.csv", ("unit", "spoken"), key="unit")
unique(_UNITS, "unit")
DOSE_UNITS: dict[str, str] = {r.text("unit"): r.text("spoken") for r in _UNITS}
_RULES = csv_records(__package__, "medication_rules.csv", ("pattern", "rule", "why"))
RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (r.regex("pattern"), r.choice("rule", ("inpatient_only", "home_as_needed"))) for r in _RULES
)


def drug_rule(drug: str) -> str | None:
    """The medication_rules.csv rule of a drug name (first match), else None."""
    name = drug.lower()
    return next((rule for pattern, rule in RULES if pattern.search(name)), None)


def discharge_medications(orders: pl.DataFrame) -> pl.DataFrame:
    """``orders`` (case_id, drug, dose, dose_unit, route, doses_per_24_hrs) with ``rule``: null for
    a home medication, else why not (see the module docstring). Rules are decided per distinct drug."""
    drugs = orders.select("drug").unique()
    drugs = drugs.with_columns(pl.Series("_drug_rule", [drug_rule(d) for d in drugs["drug"]], dtype=pl.Utf8))
    orders = orders.join(drugs, on="drug", how="left", maintain_order="left")
    as_needed = pl.col("doses_per_24_hrs").fill_null("").str.strip_chars() == ""
    rule = (
        pl.when(~pl.col("route").fill_null("").is_in(list(HOME_ROUTES))).then(pl.lit("inpatient_route"))
        .when(pl.col("_drug_rule") == "inpatient_only").then(pl.lit("inpatient_only"))
        .when(as_needed & (pl.col("_drug_rule").fill_null("") != "home_as_needed")).then(pl.lit("as_needed"))
    )
    orders = orders.with_columns(rule.alias("rule"), pl.col("drug").str.to_lowercase().alias("_key"))
    repeat = pl.col("rule").is_null() & ~pl.col("_key").is_first_distinct().over("case_id", pl.col("rule").is_null())
    return orders.with_columns(
        pl.when(repeat).then(pl.lit("repeat")).otherwise(pl.col("rule")).alias("rule")
    ).drop("_drug_rule", "_key")


def _spoken_name(drug: str) -> str:
    # Tall-man lettering ("LORazepam") and title case read as words; short abbreviations (XL, ER) stay.
    return " ".join(w if w.isupper() and len(w) <= 3 else w.lower() for w in drug.split())


def medication_units(meds: pl.DataFrame) -> pl.DataFrame:
    """``medication`` units from a home-medication frame (:data:`HOME_MEDICATION_COLUMNS`; dose,
    unit and route may be null)."""
    if meds.is_empty():
        return pl.DataFrame()
    names = meds.select("drug").unique()
    names = names.with_columns(pl.Series("_name", [_spoken_name(d) for d in names["drug"]], dtype=pl.Utf8))
    meds = meds.join(names, on="drug", how="left", maintain_order="left")
    unit = pl.col("dose_unit").replace(DOSE_UNITS)
    route = pl.col("route").replace_strict(HOME_ROUTES, default=None, return_dtype=pl.Utf8)
    route = pl.when(route == "").then(None).otherwise(route)
    text = pl.concat_str([pl.lit("I take"), pl.col("_name"), pl.col("dose"), unit, route], separator=" ",
                         ignore_nulls=True)
    concept = pl.format("drug:{}", pl.col("drug").str.to_lowercase().str.extract(r"([a-z][a-z\-]+)", 1)
                        .fill_null("other"))
    return unit_rows(meds, "medication", text, pl.col("source_ref"), concept)


def prior_discharge_units(orders: pl.DataFrame) -> pl.DataFrame:
    """``medication`` units of the home medications among an earlier stay's discharge ``orders``."""
    if orders.is_empty():
        return pl.DataFrame()
    home = discharge_medications(orders).filter(pl.col("rule").is_null())
    return medication_units(home.with_columns(
        pl.format("mimic_prescriptions:prior_discharge:{}", "drug").alias("source_ref")
    ).select(HOME_MEDICATION_COLUMNS))
