"""Proof that MIMIC-IV-ED diagnoses never reach a patient-visible view.

``ed_diagnosis`` is coded at ED discharge and names the diagnosis, so nothing may be built from it.
:func:`ed_diagnosis_leaks` finds, in patient-visible texts (information units, presentations,
profile conditions), the two ways it could have got there:

* ``source``: a text whose ``source_ref`` points at ``ed_diagnosis``;
* ``title``: a text holding the title of an ED diagnosis of the case's own ICD-10 category (the
  case's diagnosis as the ED coded it, "INTRACEREBRAL HEMORRHAGE" in an intracerebral-hemorrhage case).

Other ED diagnosis titles may legitimately be said: the same condition known from an earlier stay
("I have atrial fibrillation") or the symptom the patient came with ("Cough").
"""

from __future__ import annotations

import polars as pl

from pipelines import icd
from pipelines.content.case_keys import mimic_cases
from pipelines.content.ed_stays import case_stays
from pipelines.warehouse import Warehouse

HITS = {"case_id": pl.Utf8, "rule": pl.Utf8, "title": pl.Utf8, "text": pl.Utf8}


def ed_diagnosis_leaks(diagnoses: pl.DataFrame, texts: pl.DataFrame, skeleton: pl.DataFrame) -> pl.DataFrame:
    """Hits (case_id, rule, title, text). ``diagnoses``: case_id, icd_code, icd_version, icd_title of
    the cases' ED stays; ``texts``: case_id, text, source_ref (null where there is none);
    ``skeleton``: case_id, primary_icd10_category."""
    by_source = texts.filter(pl.col("source_ref").fill_null("").str.starts_with("ed_diagnosis")).select(
        "case_id", pl.lit("source").alias("rule"), pl.lit(None, pl.Utf8).alias("title"), "text")
    mapped = icd.normalise_codes(diagnoses.with_columns(pl.col("icd_code").cast(pl.Utf8)), "icd_code", "icd_version")
    own = mapped.join(skeleton.select("case_id", "primary_icd10_category"), on="case_id").filter(
        pl.col("icd10_category") == pl.col("primary_icd10_category")).select(
        "case_id", pl.col("icd_title").str.strip_chars().str.to_lowercase().alias("title")).unique()
    by_title = texts.join(own, on="case_id").filter(
        pl.col("text").str.to_lowercase().str.contains(pl.col("title"), literal=True)).select(
        "case_id", pl.lit("title").alias("rule"), "title", "text")
    return pl.concat([by_source, by_title]).cast(HITS)


def patient_texts(units: pl.DataFrame, presentations: pl.DataFrame, profiles: pl.DataFrame | None = None
                  ) -> pl.DataFrame:
    """case_id, text, source_ref of every patient-visible text of a warehouse's tables."""
    parts = [units.select("case_id", "text", "source_ref"),
             presentations.select("case_id", pl.col("presentation").alias("text"),
                                  pl.lit(None, pl.Utf8).alias("source_ref"))]
    if profiles is not None and profiles.height:
        parts.append(profiles.select("case_id", pl.col("profile_conditions").alias("text")).explode("text")
                     .drop_nulls("text").with_columns(pl.lit(None, pl.Utf8).alias("source_ref")))
    return pl.concat(parts)


def case_ed_diagnoses(warehouse: Warehouse) -> pl.DataFrame:
    """case_id, icd_code, icd_version, icd_title of the ED diagnoses of every MIMIC-IV case's ED stay."""
    columns = {"case_id": pl.Utf8, "icd_code": pl.Utf8, "icd_version": pl.Int32, "icd_title": pl.Utf8}
    if not warehouse.exists("ed_diagnosis"):
        return pl.DataFrame(schema=columns)
    stays = case_stays(warehouse, mimic_cases(warehouse))
    return stays.lazy().join(warehouse.scan("ed_diagnosis"), on="stay_id").select(list(columns)).collect().cast(columns)
