"""The note path on notes written by the embedded demo generator (publisher layout, MIMIC-IV-Note v2.2)."""

from __future__ import annotations

import polars as pl
import pytest
from reference_sections import COLUMNS, medspacy_sections

import schemas
from pipelines.demo import generate_demo
from pipelines.icd import dotted
from pipelines.leakage import audit_frame, diagnosis_terms
from pipelines.notes.findings import exam_findings_and_removals
from pipelines.notes.sections import section_notes
from pipelines.notes.units import note_units


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    out = tmp_path_factory.mktemp("demo")
    generate_demo(out, admissions=40, seed=3)
    note = out / "mimic-iv-note" / "note"
    hosp = out / "mimic-iv" / "hosp"
    codes = {"icd_code": pl.Utf8}
    primary = (
        pl.read_csv(hosp / "diagnoses_icd.csv.gz", schema_overrides=codes)
        .filter(pl.col("seq_num") == 1)
        .join(pl.read_csv(hosp / "d_icd_diagnoses.csv.gz", schema_overrides=codes), on=["icd_code", "icd_version"])
    )
    cases = primary.select(
        "hadm_id",
        case_id=pl.format("c_{}", pl.col("hadm_id").cast(pl.Utf8).str.zfill(16)),
        diagnosis_name=pl.col("long_title"),
        acceptable_names=pl.lit([], dtype=pl.List(pl.Utf8)),
        primary_icd10=pl.when(pl.col("icd_version") == 10)
        .then(pl.col("icd_code").map_elements(dotted, return_dtype=pl.Utf8)),
        icd10_title=pl.lit(None, dtype=pl.Utf8),
    )
    discharge = pl.read_csv(note / "discharge.csv.gz")
    radiology = pl.read_csv(note / "radiology.csv.gz")
    notes = pl.concat([discharge.select("note_id", "hadm_id", "note_type", "text"),
                       radiology.select("note_id", "hadm_id", "note_type", "text")])
    return {
        "notes": notes,
        "cases": cases,
        "note_cases": notes.join(cases, on="hadm_id").drop("hadm_id", "note_type", "text"),
        "detail": pl.read_csv(note / "radiology_detail.csv.gz"),
    }


@pytest.fixture(scope="module")
def sections(demo: dict[str, pl.DataFrame], nlp) -> pl.DataFrame:
    return section_notes(demo["notes"].select("note_id", "note_type", "text"), nlp=nlp)


def test_demo_notes_have_chief_complaint_and_hpi(demo: dict[str, pl.DataFrame], sections: pl.DataFrame) -> None:
    discharge_ids = demo["notes"].filter(pl.col("note_type") == "DS")["note_id"]
    assert discharge_ids.len() >= 20
    found = sections.group_by("note_id").agg(pl.col("section"))
    with_both = found.filter(
        pl.col("note_id").is_in(discharge_ids.implode())
        & pl.col("section").list.contains("chief_complaint")
        & pl.col("section").list.contains("hpi")
    )
    assert with_both.height >= 0.9 * discharge_ids.len()
    radiology_ids = demo["notes"].filter(pl.col("note_type") != "DS")["note_id"]
    findings = sections.filter(pl.col("section") == "findings")["note_id"]
    assert findings.n_unique() >= 0.9 * radiology_ids.len()
    schemas.conform("note_sections", sections)


def test_demo_sections_equal_medspacy_sectionizer(demo: dict[str, pl.DataFrame], sections: pl.DataFrame, nlp) -> None:
    notes = [(note_id, text, "discharge" if note_type == "DS" else "radiology")
             for note_id, note_type, text in demo["notes"].select("note_id", "note_type", "text").iter_rows()]
    assert sections.select(COLUMNS).rows() == medspacy_sections(nlp, notes).rows()


def test_demo_units_and_exams_are_clean(demo: dict[str, pl.DataFrame], sections: pl.DataFrame, nlp) -> None:
    units, removals = note_units(sections, demo["note_cases"], nlp=nlp)
    exams, exam_removals = exam_findings_and_removals(sections, demo["note_cases"], demo["detail"], nlp)
    assert units["case_id"].n_unique() >= 0.9 * demo["notes"].filter(pl.col("note_type") == "DS").height
    assert set(units["category"]) >= {"chief_complaint", "hpi", "pmh", "allergy"}
    assert set(exams["kind"]) == {"vital", "physical_exam", "imaging", "ecg"}  # the presenting ECG of the HPI
    terms = {
        row["case_id"]: diagnosis_terms(row["diagnosis_name"], row["acceptable_names"], row["primary_icd10"], None)
        for row in demo["cases"].iter_rows(named=True)
    }
    assert audit_frame(units, ["text"], terms).is_empty()
    assert audit_frame(exams, ["value_text"], terms).is_empty()
    assert removals.height > 0  # the generator names the diagnosis in some HPIs on purpose
    schemas.conform("information_units", units.with_columns(pl.lit("background").alias("importance")))
    schemas.conform("exam_results", exams)
    schemas.conform("leakage_removals", pl.concat([removals, exam_removals]))
