"""Shared column vocabularies (kept here so every schema spells them the same way)."""

import polars as pl

SOURCES = ["mimic_iv", "sicdb", "medqa"]
SEXES = ["F", "M"]
SPLITS = ["train", "test"]
ICD_ORIGINS = [
    "icd10",
    "icd10_ancestor",
    "icd9_gem_exact",
    "icd9_gem_approximate",
    "icd9_gem_one_to_many",
    "icd10_gm",
    "text_match",
    "unmapped",
]
IMPORTANCE = ["key", "supporting", "background"]
EXAM_KINDS = ["lab", "vital", "physical_exam", "imaging", "microbiology", "ecg", "pathology", "other"]
STR_LIST = pl.List(pl.Utf8)
