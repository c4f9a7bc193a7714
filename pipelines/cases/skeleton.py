"""Build candidate cases (``case_skeleton``), their restricted provenance and exclusions.

One function per source returns a :class:`SkeletonParts`; :func:`combine` stacks them.
Everything a case exposes is keyed by a keyed hash (``pipelines.ids``); raw source keys go
only to ``case_provenance``.  Splits are drawn per *patient* from a keyed hash, so a
patient's admissions never straddle train and test and the split is stable across builds.

The label: ``diagnosis_name`` is the ICD-10-CM title of the primary code (what the judge and the
leakage guard compare against), ``acceptable_names`` adds the source's wording (MIMIC's
``long_title``, SICdb's German text), ``acceptable_icd10`` every code that counts as right
(``pipelines.icd``: all GEM targets of an ICD-9 code, the primary first). ``index_time``, when the
doctor meets the patient: MIMIC-IV ``admittime`` (an ED module may later move it to the ED arrival);
SICdb has offsets only and MedQA no clock, so null. Candidates that are no diagnostic task
(encounters, known conditions, too many per patient) are screened by ``pipelines.cases.encounters``.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

import schemas
from pipelines import icd, shards
from pipelines.cases.encounters import (
    CaseRules,
    known_condition,
    not_diagnostic_reason,
    screen,
)
from pipelines.ids import hash_column, patient_key_column, unit_fraction
from pipelines.warehouse import Warehouse

MIMIC_FILES = ["hosp/admissions.csv.gz", "hosp/patients.csv.gz", "hosp/diagnoses_icd.csv.gz", "hosp/d_icd_diagnoses.csv.gz"]
SICDB_FILES = ["cases.csv.gz", "d_references.csv.gz"]
SICDB_SEX = {735: "M", 736: "F"}  # SICdb v1.0.x reference ids, used when d_references has no label


@dataclass(frozen=True)
class SkeletonParts:
    skeleton: pl.DataFrame
    provenance: pl.DataFrame
    exclusions: pl.DataFrame
    rejects: pl.DataFrame  # source rows left out of a kept case (unmappable secondary codes), with why

    @staticmethod
    def empty() -> "SkeletonParts":
        return SkeletonParts(schemas.empty("case_skeleton"), schemas.empty("case_provenance"),
                             schemas.empty("skeleton_exclusions"), schemas.empty("rejects"))


def assign_split(df: pl.DataFrame, key: str, test_fraction: float) -> pl.DataFrame:
    """``split`` from a keyed hash of the patient: same patient, same split, every build."""
    return df.with_columns(
        pl.col("patient_key")
        .map_elements(lambda p: "test" if unit_fraction(key, "split", p) < test_fraction else "train", return_dtype=pl.Utf8)
        .alias("split")
    )


def _with_icd(df: pl.DataFrame, code: str, version: str, acceptable: bool = False) -> pl.DataFrame:
    return icd.normalise_codes(df, code_col=code, version_col=version, acceptable=acceptable)


def _exclusions(df: pl.DataFrame, source: str) -> pl.DataFrame:
    return df.filter(pl.col("reason").is_not_null()).select("case_id", pl.lit(source).alias("source"), "stage", "reason")


def _label(source_name: str) -> list[pl.Expr]:
    """``diagnosis_name`` (the CM title), ``acceptable_names`` (and the source wording),
    ``acceptable_icd10`` and the primary code's hierarchy, from the normalised code columns."""
    return [
        pl.coalesce("icd10_title", source_name).alias("diagnosis_name"),
        _names("icd10_title", source_name).alias("acceptable_names"),
        pl.col("icd10_code").alias("primary_icd10"),
        pl.col("icd10_category").alias("primary_icd10_category"),
        pl.col("icd10_block").alias("primary_icd10_block"),
        pl.col("icd10_chapter").alias("primary_icd10_chapter"),
        pl.col("icd10_acceptable").alias("acceptable_icd10"),
        "icd_origin",
    ]


def _names(*columns: str) -> pl.Expr:
    """Distinct non-empty names in order, for ``acceptable_names``."""
    return pl.concat_list([pl.col(c) for c in columns]).list.drop_nulls().list.eval(
        pl.element().filter(pl.element().str.len_chars() > 0)
    ).list.unique(maintain_order=True)


def mimic_skeleton(warehouse: Warehouse, id_key: str, dataset: str, test_fraction: float,
                   discharge_notes: pl.DataFrame | None = None, rules: CaseRules = CaseRules()) -> SkeletonParts:
    """Candidate cases from MIMIC-IV admissions (principal diagnosis ``seq_num = 1``)."""
    raw = warehouse.sql_frame("mimic_case_skeleton", admissions="mimic_admissions", patients="mimic_patients",
                              diagnoses_icd="mimic_diagnoses_icd", d_icd_diagnoses="mimic_d_icd_diagnoses")
    raw = raw.with_columns(
        hash_column(pl.col("hadm_id"), id_key, "c_", "case", "mimic_iv").alias("case_id"),
        patient_key_column(pl.col("subject_id"), id_key, "mimic_iv").alias("patient_key"),
    )
    raw = _with_icd(raw, "icd_code", "icd_version", acceptable=True)
    raw = raw.with_columns(
        pl.when(~pl.col("has_patient")).then(pl.lit("subject_id has no row in hosp/patients"))
        .when(pl.col("icd_code").is_null()).then(pl.lit("no diagnoses_icd row with seq_num = 1"))
        .when(pl.col("icd10_code").is_null())
        .then(pl.format("principal ICD-{} code {} not mappable to ICD-10-CM: {}", "icd_version", "icd_code", "icd_reason"))
        .when(~pl.col("gender").is_in(["F", "M"]))
        .then(pl.format("gender {} is not F or M", pl.col("gender").fill_null("missing")))
        .alias("reason")
    )
    raw = raw.with_columns(pl.when(pl.col("reason").is_not_null()).then(pl.lit("case_skeleton")).alias("stage"),
                           _mimic_known(warehouse, raw))
    raw = screen(raw, rules, not_diagnostic_reason("icd10_code", "icd10_title", "admission_type"), ["admittime"])
    kept = raw.filter(pl.col("reason").is_null())
    secondary, unmapped = _mimic_secondary(kept)
    kept = kept.join(secondary, on="hadm_id", how="left", maintain_order="left")
    skeleton = kept.select(
        "case_id",
        pl.lit("mimic_iv").alias("source"),
        pl.lit(dataset).alias("dataset"),
        "patient_key",
        pl.col("age").cast(pl.Int32),
        pl.col("gender").alias("sex"),
        pl.col("admittime").alias("index_time"),
        *_label("long_title"),
        pl.col("secondary_icd10").fill_null([]),
        "known_condition",
        pl.col("icd_reason").alias("mapping_reason"),
    )
    notes = (
        discharge_notes.group_by("hadm_id").agg(pl.col("note_id").sort().alias("note_ids"))
        if discharge_notes is not None and discharge_notes.height
        else pl.DataFrame(schema={"hadm_id": pl.Int64, "note_ids": pl.List(pl.Utf8)})
    )
    provenance = (
        raw.select("case_id", "subject_id", "hadm_id")
        .join(notes, on="hadm_id", how="left", maintain_order="left")
        .with_columns(
            pl.lit("mimic_iv").alias("source"),
            pl.col("note_ids").fill_null([]),
            pl.lit(None, pl.Int64).alias("CaseID"),
            pl.lit(None, pl.Int64).alias("PatientID"),
            pl.lit(None, pl.Utf8).alias("medqa_file"),
            pl.lit(None, pl.Int64).alias("medqa_line"),
            pl.lit(None, pl.Utf8).alias("medqa_hash"),
            pl.lit(MIMIC_FILES).alias("source_files"),
        )
    )
    return SkeletonParts(
        assign_split(skeleton, id_key, test_fraction),
        provenance,
        _exclusions(raw, "mimic_iv"),
        unmapped,
    )


def _mimic_known(warehouse: Warehouse, raw: pl.DataFrame) -> pl.Series:
    """``known_condition`` per admission: its primary category coded at an earlier admission."""
    first = _with_icd(warehouse.sql_frame("mimic_first_coded", diagnoses_icd="mimic_diagnoses_icd",
                                          admissions="mimic_admissions"), "icd_code", "icd_version")
    coded = first.select(pl.col("subject_id").alias("patient"), pl.col("first_coded").alias("at"), "icd10_category")
    cases = raw.select(pl.col("subject_id").alias("patient"), pl.col("admittime").alias("at"),
                       pl.col("icd10_category").alias("primary_icd10_category"))
    return known_condition(cases, coded)


def _mimic_secondary(kept: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Secondary diagnoses as distinct ICD-10-CM codes, and a ``rejects`` row for every secondary
    code that maps to no ICD-10-CM code (it is left out of the case, with the mapping's reason)."""
    long = kept.select("hadm_id", "icd10_code", "secondary_codes", "secondary_versions").explode(
        "secondary_codes", "secondary_versions"
    ).drop_nulls("secondary_codes")
    long = _with_icd(
        long.rename({"icd10_code": "primary_code", "secondary_codes": "code", "secondary_versions": "version"}),
        "code", "version",
    )
    secondary = (
        long.filter(pl.col("icd10_code").is_not_null() & (pl.col("icd10_code") != pl.col("primary_code")))
        .group_by("hadm_id", maintain_order=True)
        .agg(pl.col("icd10_code").unique(maintain_order=True).alias("secondary_icd10"))
    )
    unmapped = long.filter(pl.col("icd10_code").is_null()).unique(["hadm_id", "code", "version"], maintain_order=True)
    rejects = unmapped.select(
        pl.lit("mimic_iv").alias("source"),
        pl.lit("mimic_diagnoses_icd").alias("table"),
        pl.lit("hosp/diagnoses_icd.csv.gz").alias("file"),
        pl.lit(None, pl.Int64).alias("row_number"),
        pl.format("hadm_id={}", "hadm_id").alias("row_key"),
        pl.format("secondary ICD-{} code {} left out of the case: {}", "version", "code", "icd_reason").alias("reason"),
        pl.format("{},{}", "code", "version").alias("raw"),
    )
    return secondary, schemas.conform("rejects", rejects)


def _sicdb_sex(ref_id: int | None, label: str | None) -> str | None:
    if label:
        if label.startswith(("weib", "female", "frau", "w")):
            return "F"
        if label.startswith(("männ", "maenn", "male", "mann", "m")):
            return "M"
    return SICDB_SEX.get(ref_id) if ref_id is not None else None


def sicdb_skeleton(warehouse: Warehouse, id_key: str, dataset: str, test_fraction: float,
                   rules: CaseRules = CaseRules()) -> SkeletonParts:
    """Candidate cases from SICdb ``cases`` (``ICD10Main``, ICD-10-GM matched at the category). A
    patient's stays are ordered by ``OffsetAfterFirstAdmission``; SICdb gives no clock time, so
    ``index_time`` is null and a known condition is an earlier stay's main diagnosis."""
    raw = warehouse.sql_frame("sicdb_case_skeleton", cases="sicdb_cases", d_references="sicdb_d_references")
    raw = raw.with_columns(
        pl.struct("sex_reference_id", "sex_reference_value")
        .map_elements(lambda r: _sicdb_sex(r["sex_reference_id"], r["sex_reference_value"]), return_dtype=pl.Utf8)
        .alias("sex"),
        pl.lit("gm").alias("icd_version"),
        hash_column(pl.col("CaseID"), id_key, "c_", "case", "sicdb").alias("case_id"),
        patient_key_column(pl.col("PatientID"), id_key, "sicdb").alias("patient_key"),
    )
    raw = _with_icd(raw, "icd10_main", "icd_version", acceptable=True).with_columns(
        pl.when(pl.col("icd10_code").is_null())
        .then(pl.format("ICD10Main {} not usable: {}", pl.col("icd10_main").fill_null("(empty)"), "icd_reason"))
        .when(pl.col("sex").is_null())
        .then(pl.format("Sex reference id {} is neither male nor female", pl.col("sex_reference_id").fill_null(-1)))
        .alias("reason")
    )
    stays = raw.select(pl.col("PatientID").alias("patient"), pl.col("offset_after_first_admission").alias("at"),
                       pl.col("icd10_category").alias("primary_icd10_category"))
    raw = raw.with_columns(
        pl.when(pl.col("reason").is_not_null()).then(pl.lit("icd_normalisation")).alias("stage"),
        known_condition(stays, stays.rename({"primary_icd10_category": "icd10_category"})),
    )
    raw = screen(raw, rules, not_diagnostic_reason("icd10_code", "icd10_title"), ["offset_after_first_admission"])
    kept = raw.filter(pl.col("reason").is_null())
    skeleton = kept.select(
        "case_id",
        pl.lit("sicdb").alias("source"),
        pl.lit(dataset).alias("dataset"),
        "patient_key",
        pl.col("age").cast(pl.Int32),
        "sex",
        pl.lit(None, pl.Datetime("us")).alias("index_time"),
        *_label("icd10_main_text"),
        pl.lit([], pl.List(pl.Utf8)).alias("secondary_icd10"),
        "known_condition",
        pl.col("icd_reason").alias("mapping_reason"),
    )
    provenance = raw.select(
        "case_id",
        pl.lit("sicdb").alias("source"),
        pl.lit(None, pl.Int64).alias("subject_id"),
        pl.lit(None, pl.Int64).alias("hadm_id"),
        pl.lit([], pl.List(pl.Utf8)).alias("note_ids"),
        "CaseID",
        "PatientID",
        pl.lit(None, pl.Utf8).alias("medqa_file"),
        pl.lit(None, pl.Int64).alias("medqa_line"),
        pl.lit(None, pl.Utf8).alias("medqa_hash"),
        pl.lit(SICDB_FILES).alias("source_files"),
    )
    return SkeletonParts(
        assign_split(skeleton, id_key, test_fraction),
        provenance,
        _exclusions(raw, "sicdb"),
        schemas.empty("rejects"),
    )


def combine(parts: list[SkeletonParts]) -> SkeletonParts:
    parts = parts or [SkeletonParts.empty()]
    return SkeletonParts(
        *(
            pl.concat([getattr(p, name) for p in parts], how="diagonal_relaxed")
            for name in ("skeleton", "provenance", "exclusions", "rejects")
        )
    )


# The column of case_provenance each source's patient key is a keyed hash of (as the skeletons above make it).
PATIENT_COLUMNS = {"mimic_iv": "subject_id", "sicdb": "PatientID", "medqa": "medqa_hash"}


def provenance_shards(provenance: pl.DataFrame, id_key: str, count: int) -> dict[str, pl.DataFrame]:
    """``case_provenance`` per subject shard (pipelines.shards): each row in its patient's shard, the
    provenance of a candidate the screening rules excluded included."""
    keyed = provenance.with_columns(pl.coalesce([
        pl.when(pl.col("source") == source).then(patient_key_column(pl.col(column), id_key, source))
        for source, column in PATIENT_COLUMNS.items()]).alias(shards.PATIENT_KEY))
    return {name: frame.drop(shards.PATIENT_KEY) for name, frame in shards.split(keyed, count).items()}
