"""Candidate cases from MedQA: diagnosis questions become cases, the rest are excluded.

Question selection and answer-to-ICD mapping live in pipelines.medqa; this module only
turns their verdicts into skeleton rows, provenance and exclusions.  MedQA's own split is
kept where the file name says it (train / dev / test files); a question is its own
"patient", so other files are split by a keyed hash of the question.
"""

from __future__ import annotations

import json

import polars as pl

import schemas
from pipelines import icd
from pipelines.cases.skeleton import SkeletonParts, assign_split
from pipelines.ids import hash_column, patient_key_column
from pipelines.medqa.answer_icd import map_answer
from pipelines.medqa.select import classify_question
from pipelines.medqa.vignette import patient_age_sex


def _verdicts(questions: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for q in questions.iter_rows(named=True):
        is_dx, why = classify_question(q["question"], json.loads(q["options"]), q["answer"])
        mapping = map_answer(q["answer"]) if is_dx else None
        info = icd.icd10cm_info(mapping.icd10, origin="text_match") if mapping and mapping.icd10 else None
        age, sex = patient_age_sex(q["question"])
        rows.append({
            "medqa_hash": q["medqa_hash"],
            "is_diagnosis": is_dx,
            "selection_reason": why,
            # The label is the ICD-10-CM title of the code; the answer's own wording stays acceptable.
            "diagnosis_name": (info.title or mapping.diagnosis_name) if info else (
                mapping.diagnosis_name if mapping else None),
            "acceptable_names": _unique([mapping.diagnosis_name, *mapping.acceptable_names]) if mapping else [],
            "primary_icd10": info.code if info else None,
            "primary_icd10_category": info.category if info else None,
            "primary_icd10_block": info.block if info else None,
            "primary_icd10_chapter": info.chapter if info else None,
            "mapping_reason": (f"confidence {mapping.confidence:.2f}: {mapping.reason}" if mapping else None),
            "age": age,
            "sex": sex,
        })
    return pl.DataFrame(rows, schema_overrides={"acceptable_names": pl.List(pl.Utf8), "age": pl.Int32,
                                                "primary_icd10": pl.Utf8, "primary_icd10_category": pl.Utf8,
                                                "primary_icd10_block": pl.Utf8, "primary_icd10_chapter": pl.Utf8,
                                                "diagnosis_name": pl.Utf8, "mapping_reason": pl.Utf8, "sex": pl.Utf8})


def _file_split(name: str) -> str | None:
    lowered = name.lower()
    if "train" in lowered:
        return "train"
    if "test" in lowered or "dev" in lowered:
        return "test"
    return None


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(n for n in names if n))


def medqa_skeleton(questions: pl.DataFrame, id_key: str, dataset: str, test_fraction: float) -> SkeletonParts:
    if questions.height == 0:
        return SkeletonParts.empty()
    questions = questions.with_columns(
        hash_column(pl.col("medqa_hash"), id_key, "c_", "case", "medqa").alias("case_id"),
        patient_key_column(pl.col("medqa_hash"), id_key, "medqa").alias("patient_key"),
    )
    judged = questions.join(_verdicts(questions), on="medqa_hash", how="left", maintain_order="left")
    # The same question may appear in two files; it is one case.
    judged = judged.unique("case_id", keep="first", maintain_order=True)
    judged = judged.with_columns(
        # A vignette may not state sex ("an 11-year-old child"): the case keeps a null sex.
        pl.when(~pl.col("is_diagnosis")).then(pl.col("selection_reason")).alias("reason")
    )
    kept = judged.filter(pl.col("reason").is_null())
    skeleton = assign_split(
        kept.select(
            "case_id",
            pl.lit("medqa").alias("source"),
            pl.lit(dataset).alias("dataset"),
            "patient_key",
            "age",
            "sex",
            pl.lit(None, pl.Datetime("us")).alias("index_time"),  # a vignette has no clock
            "diagnosis_name",
            "acceptable_names",
            "primary_icd10",
            "primary_icd10_category",
            "primary_icd10_block",
            "primary_icd10_chapter",
            pl.concat_list("primary_icd10").list.drop_nulls().alias("acceptable_icd10"),
            pl.when(pl.col("primary_icd10").is_null()).then(pl.lit("unmapped")).otherwise(pl.lit("text_match"))
            .alias("icd_origin"),
            pl.lit([], pl.List(pl.Utf8)).alias("secondary_icd10"),
            pl.lit(False).alias("known_condition"),  # a question is its own patient, with no earlier visit
            "mapping_reason",
            "medqa_file",
        ),
        id_key,
        test_fraction,
    )
    # MedQA's published split wins over the hash where the file name carries it.
    skeleton = skeleton.with_columns(
        pl.col("medqa_file").map_elements(_file_split, return_dtype=pl.Utf8).fill_null(pl.col("split")).alias("split")
    ).drop("medqa_file")
    provenance = judged.select(
        "case_id",
        pl.lit("medqa").alias("source"),
        pl.lit(None, pl.Int64).alias("subject_id"),
        pl.lit(None, pl.Int64).alias("hadm_id"),
        pl.lit([], pl.List(pl.Utf8)).alias("note_ids"),
        pl.lit(None, pl.Int64).alias("CaseID"),
        pl.lit(None, pl.Int64).alias("PatientID"),
        "medqa_file",
        "medqa_line",
        "medqa_hash",
        pl.concat_list([pl.col("medqa_file")]).alias("source_files"),
    )
    exclusions = judged.filter(pl.col("reason").is_not_null()).select(
        "case_id", pl.lit("medqa").alias("source"), pl.lit("medqa_selection").alias("stage"), "reason"
    )
    return SkeletonParts(skeleton, provenance, exclusions, schemas.empty("rejects"))
