"""Information units from SICdb, which has no notes: what the ICU patient could tell.

* demographics (``demographic``, disclosed): age (SICdb bins it to 5 years, capped at 90) and sex;
* weight and height on admission (``measurement``): SICdb stores weight in grams, 0 = missing,
  and height in cm, 0 = missing;
* how the stay began (``hpi``): the surgical site of the operation that preceded it (or "no
  operation") and the referring unit, both SICdb reference labels as published (German);
* earlier ICU stays of the same patient (``pmh``): their main diagnoses (ICD-10-GM, mapped to
  ICD-10-CM at the category and titled in English), never the current primary's category,
  and how many there were.
"""

from __future__ import annotations

import polars as pl

from pipelines import icd
from pipelines.units.candidates import finish
from pipelines.units.coded import demographic_units, diagnosis_units, unit_rows
from pipelines.warehouse import Warehouse
from sql import connect


def measurement_units(cases: pl.DataFrame) -> pl.DataFrame:
    weight = cases.filter(pl.col("weight_g") > 0)
    height = cases.filter(pl.col("height_cm") > 0)
    return pl.concat([
        unit_rows(weight, "measurement", pl.format("Weight: {} kg", (pl.col("weight_g") / 1000).round(1)),
                  pl.lit("sicdb_cases:WeightOnAdmission"), pl.lit("measurement:weight")),
        unit_rows(height, "measurement", pl.format("Height: {} cm", pl.col("height_cm").round(0).cast(pl.Int64)),
                  pl.lit("sicdb_cases:HeightOnAdmission"), pl.lit("measurement:height")),
    ])


def admission_units(cases: pl.DataFrame) -> pl.DataFrame:
    """What the patient knows about how this ICU stay began (known on admission, not an outcome)."""
    site = cases.filter(pl.col("surgical_site").is_not_null())
    referrer = cases.filter(pl.col("referring_unit").is_not_null())
    return pl.concat([
        unit_rows(site, "hpi", pl.format("Operation before this ICU stay (surgical site): {}", "surgical_site"),
                  pl.lit("sicdb_cases:SurgicalSite"), pl.format("surgical_site:{}", "surgical_site")),
        unit_rows(referrer, "hpi", pl.format("Referred to intensive care from: {}", "referring_unit"),
                  pl.lit("sicdb_cases:ReferringUnit"), pl.format("referring_unit:{}", "referring_unit")),
    ])


def prior_stay_units(prior: pl.DataFrame, cases: pl.DataFrame) -> pl.DataFrame:
    if prior.is_empty():
        return pl.DataFrame()
    titled = prior.with_columns(
        pl.col("icd_code").map_elements(lambda c: icd.icd10gm_to_cm(c).title, return_dtype=pl.Utf8).alias("cm_title")
    ).with_columns(pl.coalesce("cm_title", "gm_title").alias("title")).filter(pl.col("title").is_not_null())
    history = diagnosis_units(titled, cases, current=False, ref="sicdb_cases:prior")
    counts = prior.group_by("case_id", maintain_order=True).len("n_prior")
    times = pl.when(pl.col("n_prior") == 1).then(pl.lit("once")).otherwise(pl.format("{} times", "n_prior"))
    stays = unit_rows(counts, "pmh", pl.format("Treated in intensive care {} before", times),
                      pl.lit("sicdb_cases:prior"), pl.lit("history:prior_icu_stays"))
    return pl.concat([history, stays], how="diagonal_relaxed")


def structured_units(warehouse: Warehouse, cases: pl.DataFrame) -> pl.DataFrame:
    """unit_candidates partition ``sicdb_structured`` for ``cases`` (pipelines.content.case_keys.sicdb_cases)."""
    with connect() as con:
        con.register("cases", cases.select("case_id", "sicdb_case_id", "sicdb_patient_id", "offset_after_first_admission"))
        prior = con.sql(warehouse.sql("units_sicdb_prior_stays", sicdb_cases="sicdb_cases")).pl()
    parts = [demographic_units(cases), admission_units(cases), prior_stay_units(prior, cases), measurement_units(cases)]
    return finish(pl.concat([p for p in parts if p.height], how="diagonal_relaxed"))
