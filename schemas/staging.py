"""Source-table specs for the staging layer: publisher file, column names and DuckDB types.

Staging tables keep the publisher's column names (MIMIC lower case, SICdb CamelCase) so a
user's knowledge of the source carries over. ``required`` columns must be in the file's
header; other columns of the file are kept as VARCHAR. A reader casts each listed column to
its type and sends rows that do not cast (or have the wrong number of fields) to ``rejects``.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl


@dataclass(frozen=True)
class SourceTable:
    source: str  # mimic_iv | mimic_note | mimic_ed | sicdb | medqa
    table: str  # warehouse table name, e.g. mimic_labevents
    file: str  # path relative to the source directory
    columns: dict[str, str]  # required column -> DuckDB type
    keys: tuple[str, ...] = ()  # must be non-null in staging (checked by a blocking asset check)
    optional: bool = False  # absent file is skipped with a logged reason
    setting: str = ""  # environment variable that points at the source directory
    restricted: bool = False  # raw note text: no default query view, never exported (schemas.restricted)


_MIMIC = "CLINVERSE_MIMIC_IV_DIR"
_NOTE = "CLINVERSE_MIMIC_NOTE_DIR"
_ED = "CLINVERSE_MIMIC_ED_DIR"
_SICDB = "CLINVERSE_SICDB_DIR"

TS = "TIMESTAMP"

MIMIC_IV = [
    SourceTable("mimic_iv", "mimic_patients", "hosp/patients.csv.gz",
                {"subject_id": "BIGINT", "gender": "VARCHAR", "anchor_age": "INTEGER", "anchor_year": "INTEGER",
                 "anchor_year_group": "VARCHAR", "dod": "DATE"}, keys=("subject_id",), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_admissions", "hosp/admissions.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "admittime": TS, "dischtime": TS, "deathtime": TS,
                 "admission_type": "VARCHAR", "admission_location": "VARCHAR", "discharge_location": "VARCHAR",
                 "insurance": "VARCHAR", "language": "VARCHAR", "marital_status": "VARCHAR", "race": "VARCHAR",
                 "edregtime": TS, "hospital_expire_flag": "INTEGER"}, keys=("subject_id", "hadm_id", "admittime"), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_diagnoses_icd", "hosp/diagnoses_icd.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "seq_num": "INTEGER", "icd_code": "VARCHAR",
                 "icd_version": "INTEGER"}, keys=("hadm_id", "seq_num", "icd_code", "icd_version"), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_d_icd_diagnoses", "hosp/d_icd_diagnoses.csv.gz",
                {"icd_code": "VARCHAR", "icd_version": "INTEGER", "long_title": "VARCHAR"}, keys=("icd_code",), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_labevents", "hosp/labevents.csv.gz",
                {"labevent_id": "BIGINT", "subject_id": "BIGINT", "hadm_id": "BIGINT", "specimen_id": "BIGINT",
                 "itemid": "INTEGER", "charttime": TS, "storetime": TS, "value": "VARCHAR", "valuenum": "DOUBLE",
                 "valueuom": "VARCHAR", "ref_range_lower": "DOUBLE", "ref_range_upper": "DOUBLE", "flag": "VARCHAR",
                 "priority": "VARCHAR", "comments": "VARCHAR"}, keys=("subject_id", "itemid"), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_d_labitems", "hosp/d_labitems.csv.gz",
                {"itemid": "INTEGER", "label": "VARCHAR", "fluid": "VARCHAR", "category": "VARCHAR"}, keys=("itemid",), setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_microbiologyevents", "hosp/microbiologyevents.csv.gz",
                {"microevent_id": "BIGINT", "subject_id": "BIGINT", "hadm_id": "BIGINT", "chartdate": TS, "charttime": TS,
                 "spec_type_desc": "VARCHAR", "storetime": TS, "test_name": "VARCHAR", "org_name": "VARCHAR",
                 "ab_name": "VARCHAR", "interpretation": "VARCHAR", "comments": "VARCHAR"},
                keys=("subject_id",), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_prescriptions", "hosp/prescriptions.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "starttime": TS, "stoptime": TS, "drug_type": "VARCHAR",
                 "drug": "VARCHAR", "dose_val_rx": "VARCHAR", "dose_unit_rx": "VARCHAR", "route": "VARCHAR"},
                keys=("subject_id",), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_omr", "hosp/omr.csv.gz",
                {"subject_id": "BIGINT", "chartdate": "DATE", "seq_num": "INTEGER", "result_name": "VARCHAR",
                 "result_value": "VARCHAR"}, keys=("subject_id", "chartdate"), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_procedures_icd", "hosp/procedures_icd.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "seq_num": "INTEGER", "chartdate": "DATE",
                 "icd_code": "VARCHAR", "icd_version": "INTEGER"}, keys=("hadm_id",), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_icustays", "icu/icustays.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "stay_id": "BIGINT", "first_careunit": "VARCHAR",
                 "intime": TS, "outtime": TS, "los": "DOUBLE"}, keys=("stay_id",), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_chartevents", "icu/chartevents.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "stay_id": "BIGINT", "charttime": TS, "storetime": TS,
                 "itemid": "INTEGER", "value": "VARCHAR", "valuenum": "DOUBLE", "valueuom": "VARCHAR", "warning": "INTEGER"},
                keys=("subject_id", "itemid"), optional=True, setting=_MIMIC),
    SourceTable("mimic_iv", "mimic_d_items", "icu/d_items.csv.gz",
                {"itemid": "INTEGER", "label": "VARCHAR", "abbreviation": "VARCHAR", "linksto": "VARCHAR",
                 "category": "VARCHAR", "unitname": "VARCHAR", "lownormalvalue": "DOUBLE", "highnormalvalue": "DOUBLE"},
                keys=("itemid",), optional=True, setting=_MIMIC),
]

_NOTE_COLUMNS = {"note_id": "VARCHAR", "subject_id": "BIGINT", "hadm_id": "BIGINT", "note_type": "VARCHAR",
                 "note_seq": "INTEGER", "charttime": TS, "storetime": TS, "text": "VARCHAR"}
_DETAIL_COLUMNS = {"note_id": "VARCHAR", "subject_id": "BIGINT", "field_name": "VARCHAR", "field_value": "VARCHAR",
                   "field_ordinal": "INTEGER"}

# Whole notes, hospital course included (note_sections' text, uncut): restricted like note_sections.
MIMIC_NOTE = [
    SourceTable("mimic_note", "note_discharge", "note/discharge.csv.gz", _NOTE_COLUMNS, keys=("note_id", "text"),
                setting=_NOTE, restricted=True),
    SourceTable("mimic_note", "note_radiology", "note/radiology.csv.gz", _NOTE_COLUMNS, keys=("note_id", "text"),
                optional=True, setting=_NOTE, restricted=True),
    SourceTable("mimic_note", "note_discharge_detail", "note/discharge_detail.csv.gz", _DETAIL_COLUMNS,
                keys=("note_id",), optional=True, setting=_NOTE, restricted=True),
    SourceTable("mimic_note", "note_radiology_detail", "note/radiology_detail.csv.gz", _DETAIL_COLUMNS,
                keys=("note_id",), optional=True, setting=_NOTE, restricted=True),
]

# MIMIC-IV-ED v2.2: vital signs are DOUBLE (the full release has decimals), ``pain`` is free text
# ("8", "8/10", "unable"), ``gsn``/``ndc`` keep their leading zeros. Without edstays and triage the
# module gives nothing; the other tables may be absent.
_ED_VITALS = {"temperature": "DOUBLE", "heartrate": "DOUBLE", "resprate": "DOUBLE", "o2sat": "DOUBLE",
              "sbp": "DOUBLE", "dbp": "DOUBLE", "pain": "VARCHAR"}

MIMIC_ED = [
    SourceTable("mimic_ed", "ed_edstays", "ed/edstays.csv.gz",
                {"subject_id": "BIGINT", "hadm_id": "BIGINT", "stay_id": "BIGINT", "intime": TS, "outtime": TS,
                 "gender": "VARCHAR", "race": "VARCHAR", "arrival_transport": "VARCHAR", "disposition": "VARCHAR"},
                keys=("subject_id", "stay_id", "intime"), setting=_ED),
    SourceTable("mimic_ed", "ed_triage", "ed/triage.csv.gz",
                {"subject_id": "BIGINT", "stay_id": "BIGINT", **_ED_VITALS, "acuity": "DOUBLE",
                 "chiefcomplaint": "VARCHAR"}, keys=("stay_id",), setting=_ED),
    SourceTable("mimic_ed", "ed_vitalsign", "ed/vitalsign.csv.gz",
                {"subject_id": "BIGINT", "stay_id": "BIGINT", "charttime": TS, **_ED_VITALS, "rhythm": "VARCHAR"},
                keys=("stay_id", "charttime"), optional=True, setting=_ED),
    SourceTable("mimic_ed", "ed_medrecon", "ed/medrecon.csv.gz",
                {"subject_id": "BIGINT", "stay_id": "BIGINT", "charttime": TS, "name": "VARCHAR", "gsn": "VARCHAR",
                 "ndc": "VARCHAR", "etc_rn": "INTEGER", "etccode": "VARCHAR", "etcdescription": "VARCHAR"},
                keys=("stay_id",), optional=True, setting=_ED),
    # Known at ED discharge and diagnosis-revealing: staged for users, read by no producer.
    SourceTable("mimic_ed", "ed_diagnosis", "ed/diagnosis.csv.gz",
                {"subject_id": "BIGINT", "stay_id": "BIGINT", "seq_num": "INTEGER", "icd_code": "VARCHAR",
                 "icd_version": "INTEGER", "icd_title": "VARCHAR"}, keys=("stay_id",), optional=True, setting=_ED),
    # Medications dispensed in the ED: treatment of this visit, not history; staged only.
    SourceTable("mimic_ed", "ed_pyxis", "ed/pyxis.csv.gz",
                {"subject_id": "BIGINT", "stay_id": "BIGINT", "charttime": TS, "med_rn": "INTEGER", "name": "VARCHAR",
                 "gsn_rn": "INTEGER", "gsn": "VARCHAR"}, keys=("stay_id",), optional=True, setting=_ED),
]

SICDB = [
    SourceTable("sicdb", "sicdb_cases", "cases.csv.gz",
                {"CaseID": "BIGINT", "PatientID": "BIGINT", "AdmissionYear": "INTEGER", "Sex": "INTEGER",
                 "AgeOnAdmission": "INTEGER", "WeightOnAdmission": "DOUBLE", "HeightOnAdmission": "DOUBLE",
                 "ICD10Main": "VARCHAR", "ICD10MainText": "VARCHAR", "TimeOfStay": "BIGINT",
                 "OffsetAfterFirstAdmission": "BIGINT", "OffsetOfDeath": "BIGINT", "ReferringUnit": "BIGINT",
                 "SurgicalSite": "BIGINT"}, keys=("CaseID", "PatientID"), setting=_SICDB),
    SourceTable("sicdb", "sicdb_laboratory", "laboratory.csv.gz",
                {"CaseID": "BIGINT", "LaboratoryID": "BIGINT", "Offset": "BIGINT", "LaboratoryValue": "DOUBLE",
                 "LaboratoryType": "INTEGER"}, keys=("CaseID", "LaboratoryID"), setting=_SICDB),
    SourceTable("sicdb", "sicdb_d_references", "d_references.csv.gz",
                {"ReferenceGlobalID": "BIGINT", "ReferenceValue": "VARCHAR", "ReferenceName": "VARCHAR",
                 "ReferenceUnit": "VARCHAR"}, keys=("ReferenceGlobalID",), setting=_SICDB),
]

ALL = MIMIC_IV + MIMIC_NOTE + MIMIC_ED + SICDB
BY_TABLE = {t.table: t for t in ALL}

# MedQA is JSON lines, staged by pipelines.sources.medqa into this table.
MEDQA_TABLE = "medqa_questions"
MEDQA_COLUMNS = {"medqa_file": "VARCHAR", "medqa_line": "BIGINT", "medqa_hash": "VARCHAR", "question": "VARCHAR",
                 "answer": "VARCHAR", "options": "VARCHAR", "answer_idx": "VARCHAR", "meta_info": "VARCHAR"}


def staging_columns(table: str) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """(required column -> DuckDB type, key columns) of a staging table, or None for other tables."""
    if table == MEDQA_TABLE:
        return MEDQA_COLUMNS, ("medqa_hash", "question", "answer")
    spec = BY_TABLE.get(table)
    return (spec.columns, spec.keys) if spec else None


def describe(con: duckdb.DuckDBPyConnection, glob: str) -> dict[str, str]:
    """Column -> DuckDB type of the Parquet file(s) at ``glob``."""
    return {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{glob}')").fetchall()}


def column_problems(described: dict[str, str], columns: dict[str, str]) -> list[str]:
    """Spec columns that are missing from ``described`` or not of the spec's type."""
    return [f"column {name}: expected {kind}, found {described.get(name, 'nothing')}"
            for name, kind in columns.items() if described.get(name) != kind]


# How polars spells the spec's DuckDB types (a staging frame written by polars must read back as them).
POLARS_TYPES = {"BIGINT": pl.Int64, "INTEGER": pl.Int32, "DOUBLE": pl.Float64, "VARCHAR": pl.Utf8,
                "DATE": pl.Date, "TIMESTAMP": pl.Datetime("us")}


def cast_frame(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the spec's columns cast to their types (as pandera's ``coerce`` does for
    contract tables); whether every spec column is there is checked on the written file."""
    columns, _ = staging_columns(table)
    return frame.with_columns(pl.col(name).cast(POLARS_TYPES[kind]) for name, kind in columns.items()
                              if name in frame.columns)
