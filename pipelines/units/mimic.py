"""Information units from MIMIC-IV structured data: what the patient knew BEFORE this admission.

The real MIMIC-IV demo has no notes, so these units are all a note-less admission has. A fact
counts as patient-reportable when the patient would know it on arrival, from their own life or
from earlier care, and it does not come from this admission's workup:

* demographics (``demographic``, disclosed): age and sex; the presentation states them.
* past history (``pmh``, ``psh``, ``allergy``, ``family``, ``social``, ``medication`` by code):
  every diagnosis coded at an EARLIER admission (discharged before this admittime); the patient
  was told at that stay. Codes that describe a stay or a test result are left out
  (pipelines.units.chronic).
* comorbidities of THIS admission: secondary diagnoses are coded at discharge, so only what the
  patient knew on arrival: conditions chronic by HCUP's Chronic Condition Indicator (diabetes,
  hypertension, COPD, CKD ...) and codes that state a fact from before the stay (personal and
  family history, allergy status, tobacco use), never statuses or events the stay may have
  created (long-term anticoagulant use, ventilator dependence, postprocedural states, myocardial
  infarction); pipelines.units.chronic has the rule.
* one of conditions a patient has only one of (type 1 or type 2 diabetes;
  pipelines/units/exclusive_history.csv): the latest coding is told, the others go to ``rejects``
  (:func:`diagnosis_history`).
* history units say the condition as the patient would ("I have type 2 diabetes"), not its ICD
  title (pipelines.units.lay).
* the current primary diagnosis's ICD-10 category, hence the diagnosis and all its descendants,
  is never a unit, from either admission.
* home medications (``medication``): the list reconciled on arrival where the source has one
  (MIMIC-IV-ED ``medrecon``, pipelines.units.ed_medrecon), otherwise the discharge prescriptions
  of the most recent earlier admission that a patient takes at home (sql/units_mimic_prior_medications.sql,
  pipelines.units.medications: no IV, PO/NG or NG orders, heparin prophylaxis, sliding-scale
  insulin, flushes or as-needed ward items).
* outpatient measurements (``measurement``): the last possible blood pressure, weight, BMI and
  height in ``omr`` before the admission day, as told at a clinic visit; an impossible value (a BMI
  of 4,649, outside pipelines/exams/plausible_ranges.csv) goes to ``rejects``
  (:func:`prior_measurements`), never into a unit.
* social facts recorded at registration (``social``): marital status and preferred language.
* hospitalisation history (``pmh``): how many times the patient was admitted before.

Everything measured or decided during this admission (labs, vitals, micro, procedures,
prescriptions of this stay) is an examination result or not shown at all.

``concept`` keys make facts comparable across cases for the importance rule: ``icd10:<category>``
(``icd10:<code>`` for Z codes), ``drug:<first word>``, ``bp:<high|normal|low>``, ``bmi:<class>``,
``measurement:<kind>``, ``social:<field>:<value>``, ``demographic:<field>``,
``history:prior_admissions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import polars as pl

import schemas
from pipelines.exams.measurements import check_omr
from pipelines.units.candidates import finish
from pipelines.units.coded import demographic_units, diagnosis_units, superseded, unit_rows
from pipelines.units.medications import medication_units, prior_discharge_units
from pipelines.warehouse import Warehouse
from sql import connect

MEASUREMENTS = (("blood pressure", "blood pressure"), ("weight", "weight"), ("bmi", "BMI"), ("height", "height"))
UNKNOWN_VALUES = ("?", "UNKNOWN", "UNABLE TO OBTAIN", "")
TABLES = {t: f"mimic_{t}" for t in ("admissions", "diagnoses_icd", "d_icd_diagnoses")}


def _bp_class(value: str) -> str:
    try:
        systolic, diastolic = (float(v) for v in value.split("/", 1))
    except ValueError:
        return "unknown"
    if systolic >= 140 or diastolic >= 90:
        return "high"
    return "low" if systolic < 90 else "normal"


def _bmi_class(value: str) -> str:
    try:
        bmi = float(value)
    except ValueError:
        return "unknown"
    return "underweight" if bmi < 18.5 else "normal" if bmi < 25 else "overweight" if bmi < 30 else "obese"


def measurement_units(omr: pl.DataFrame) -> pl.DataFrame:
    """One unit per kind (blood pressure, weight, BMI, height): the plain reading wins over positional ones."""
    if omr.is_empty():
        return pl.DataFrame()
    name = pl.col("result_name").str.to_lowercase()
    kind = pl.coalesce([pl.when(name.str.starts_with(prefix)).then(pl.lit(label)) for prefix, label in MEASUREMENTS])
    unit = pl.col("result_name").str.extract(r"\(([^)]*)\)", 1).str.to_lowercase()
    omr = omr.with_columns(kind.alias("kind"), unit.alias("unit")).filter(pl.col("kind").is_not_null())
    omr = omr.sort("case_id", "kind", pl.col("result_name").str.len_chars(), "result_name").unique(
        subset=["case_id", "kind"], keep="first", maintain_order=True
    )
    concept = (
        pl.when(pl.col("kind") == "blood pressure")
        .then(pl.format("bp:{}", pl.col("result_value").map_elements(_bp_class, return_dtype=pl.Utf8)))
        .when(pl.col("kind") == "BMI")
        .then(pl.format("bmi:{}", pl.col("result_value").map_elements(_bmi_class, return_dtype=pl.Utf8)))
        .otherwise(pl.format("measurement:{}", "kind"))
    )
    unit_text = pl.when(pl.col("kind") == "blood pressure").then(pl.lit("mmHg")).otherwise(pl.col("unit"))
    return unit_rows(
        omr,
        "measurement",
        pl.concat_str([pl.format("Last outpatient {}: {}", "kind", "result_value"), unit_text], separator=" ",
                      ignore_nulls=True),
        pl.format("mimic_omr:prior:{}", "result_name"),
        concept,
    )


def social_units(cases: pl.DataFrame) -> pl.DataFrame:
    known = ~pl.col("value").str.to_uppercase().is_in(UNKNOWN_VALUES)
    parts = []
    for field, label in (("marital_status", "Marital status"), ("language", "Preferred language")):
        facts = cases.select("case_id", pl.col(field).str.strip_chars().alias("value")).drop_nulls().filter(known)
        parts.append(unit_rows(
            facts, "social", pl.format("{}: {}", pl.lit(label), pl.col("value").str.to_lowercase()),
            pl.lit(f"mimic_admissions:{field}"),
            pl.format("social:{}:{}", pl.lit(field), pl.col("value").str.to_lowercase()),
        ))
    return pl.concat(parts)


def prior_admission_units(counts: pl.DataFrame) -> pl.DataFrame:
    if counts.is_empty():
        return pl.DataFrame()
    times = pl.when(pl.col("n_prior") == 1).then(pl.lit("once")).otherwise(pl.format("{} times", "n_prior"))
    return unit_rows(counts, "pmh", pl.format("Admitted to this hospital {} before", times),
                 pl.lit("mimic_admissions:prior"), pl.lit("history:prior_admissions"))


@dataclass(frozen=True)
class PriorMeasurements:
    latest: pl.DataFrame  # case_id, result_name, result_value: the last possible reading of each
    rejects: pl.DataFrame  # rejects rows: the impossible readings, with why


def prior_measurements(warehouse: Warehouse, cases: pl.DataFrame) -> PriorMeasurements:
    """The omr readings before each case's admission day (``cases``: case_id, subject_id, admittime)."""
    if not warehouse.exists("mimic_omr"):
        return PriorMeasurements(pl.DataFrame(), schemas.empty("rejects"))
    with connect() as con:
        # Everything before the admission day: a window from the first day to that day's midnight.
        con.register("cases", cases.select("case_id", "subject_id", pl.lit(datetime.min).alias("window_start"),
                                           pl.col("admittime").dt.truncate("1d").alias("window_end")))
        check_omr(con, warehouse)
        return PriorMeasurements(con.sql(warehouse.sql("units_mimic_outpatient_measurements")).pl(),
                                 schemas.conform("rejects", con.sql(warehouse.sql("omr_rejects")).pl()))


@dataclass(frozen=True)
class DiagnosisHistory:
    units: pl.DataFrame  # history units from coded diagnoses, earlier admissions' first
    rejects: pl.DataFrame  # rejects rows: codes a later coding of an excluding condition supersedes


def diagnosis_history(warehouse: Warehouse, cases: pl.DataFrame) -> DiagnosisHistory:
    """History units from the codes of earlier admissions and this one's chronic ones
    (pipelines.units.coded.diagnosis_units). A condition known from an earlier stay is not repeated
    from this one; of conditions a patient has only one of (type 1 or type 2 diabetes), the latest
    coding is told and the others are rejects (pipelines.units.coded.superseded)."""
    with connect() as con:
        con.register("cases", cases.select("case_id", "subject_id", "hadm_id", "admittime"))
        prior = con.sql(warehouse.sql("units_mimic_prior_diagnoses", **TABLES)).pl()
        current = con.sql(warehouse.sql("units_mimic_current_diagnoses", **TABLES)).pl()
    # Most recent earlier admission first, so its code represents the category.
    prior = diagnosis_units(prior.sort("case_id", "coded_at", "icd_code", descending=[False, True, False]), cases,
                            current=False, ref="mimic_diagnoses_icd:prior")
    current = diagnosis_units(current.sort("case_id", "seq_num"), cases, current=True,
                              ref="mimic_diagnoses_icd:current")
    coded = [part for part in (current, prior) if part.height]  # the latest coding first
    if not coded:
        return DiagnosisHistory(pl.DataFrame(), schemas.empty("rejects"))
    replaced = superseded(pl.concat(coded, how="diagonal_relaxed"))
    # Earlier stays first: a condition known from one is not repeated from this stay.
    history = (pl.concat(coded[::-1], how="diagonal_relaxed").join(replaced, on=["case_id", "concept"], how="anti")
               .unique(subset=["case_id", "concept"], keep="first", maintain_order=True))
    rejects = replaced.select(
        pl.lit("mimic_iv").alias("source"), pl.lit("mimic_diagnoses_icd").alias("table"),
        pl.lit("hosp/diagnoses_icd.csv.gz").alias("file"), pl.lit(None, pl.Int64).alias("row_number"),
        pl.format("case_id={},{}", "case_id", "source_ref").alias("row_key"),
        pl.format("superseded by the later coding {}: {}", "kept", "why").alias("reason"),
        pl.col("text").alias("raw"))
    return DiagnosisHistory(history, schemas.conform("rejects", rejects))


def structured_units(warehouse: Warehouse, cases: pl.DataFrame, home_medications: pl.DataFrame | None = None,
                     measurements: PriorMeasurements | None = None,
                     history: DiagnosisHistory | None = None) -> pl.DataFrame:
    """unit_candidates partition ``mimic_structured`` for ``cases`` (pipelines.content.case_keys.mimic_cases).
    ``home_medications``: a reconciled list (pipelines.units.medications.HOME_MEDICATION_COLUMNS) that
    replaces the prior discharge's prescriptions of the cases it has. ``measurements``: the cases'
    :func:`prior_measurements`, and ``history`` their :func:`diagnosis_history`, when the caller
    also writes their rejects."""
    with connect() as con:
        con.register("cases", cases.select("case_id", "subject_id", "hadm_id", "admittime"))
        admissions = con.sql(warehouse.sql("units_mimic_prior_admissions", **TABLES)).pl()
        meds = (con.sql(warehouse.sql("units_mimic_prior_medications", prescriptions="mimic_prescriptions",
                                      **TABLES)).pl()
                if warehouse.exists("mimic_prescriptions") else pl.DataFrame())
    measurements = measurements or prior_measurements(warehouse, cases)
    coded = (history or diagnosis_history(warehouse, cases)).units
    if home_medications is not None and home_medications.height and meds.height:
        meds = meds.join(home_medications.select("case_id").unique(), on="case_id", how="anti")
    reconciled = medication_units(home_medications) if home_medications is not None else pl.DataFrame()
    parts = [demographic_units(cases), coded, prior_admission_units(admissions), reconciled,
             prior_discharge_units(meds), measurement_units(measurements.latest), social_units(cases)]
    parts = [p for p in parts if p.height]
    return finish(pl.concat(parts, how="diagonal_relaxed")) if parts else schemas.empty("unit_candidates")
