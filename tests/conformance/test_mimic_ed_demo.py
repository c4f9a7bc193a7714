"""Conformance on the real MIMIC-IV demo built with the real MIMIC-IV-ED demo: the triage complaint
opens every case that came through the ED (or is accounted for), ED vital signs are results in the
exam window, medrecon replaces the prior discharge, and no ED diagnosis reaches a patient view."""

import duckdb
import polars as pl
import pytest

from pipelines.content.case_keys import mimic_cases
from pipelines.content.ed_audit import case_ed_diagnoses, ed_diagnosis_leaks, patient_texts
from pipelines.content.ed_stays import case_stays
from pipelines.content.presentation import third_person
from pipelines.exams.mimic import case_windows
from pipelines.exams.window import ExamWindow
from pipelines.units.ed import complaint_items, triage_complaints

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ed_cases(real_ed_demo_warehouse) -> pl.DataFrame:
    """case_id, stay_id of every candidate case whose admission came through the ED."""
    return case_stays(real_ed_demo_warehouse, mimic_cases(real_ed_demo_warehouse))


def test_172_ed_stays_link_171_of_the_275_demo_admissions(mimic_demo_dir, mimic_ed_demo_dir):
    admissions_file = f"read_csv('{mimic_demo_dir}/hosp/admissions.csv.gz')"
    with duckdb.connect() as con:
        stays, admissions, total = con.execute(
            f"SELECT count(*), count(DISTINCT a.hadm_id), (SELECT count(*) FROM {admissions_file}) "
            f"FROM read_csv('{mimic_ed_demo_dir}/ed/edstays.csv.gz') e JOIN {admissions_file} a USING (hadm_id)"
        ).fetchall()[0]
    assert (stays, admissions, total) == (172, 171, 275)  # one admission carries an earlier visit sent home too


def test_every_ed_case_opens_with_its_triage_complaint_or_says_why_not(real_ed_demo_warehouse, ed_cases):
    wh = real_ed_demo_warehouse
    assert ed_cases.height > 90
    units = wh.read("information_units")
    complaints = units.filter(pl.col("source_ref").str.starts_with("ed_triage:"))
    with_complaint = set(complaints.filter(pl.col("category") == "chief_complaint")["case_id"])
    items = complaint_items(triage_complaints(wh, ed_cases)).with_columns(
        pl.format("ed_triage:chiefcomplaint:{}", "position").alias("source_ref"))
    removed = wh.read("leakage_removals").filter(pl.col("source_ref").str.starts_with("ed_triage:"))
    # A case has a complaint unit exactly when an item of its complaint is a complaint that was not left
    # out for naming the diagnosis; the others are a transfer, "UNKNOWN-CC" or a recorded removal.
    said = items.filter(pl.col("kind").is_in(["complaint", "condition"])).join(
        removed, on=["case_id", "source_ref"], how="anti")
    assert set(said["case_id"]) == with_complaint
    assert len(with_complaint) / ed_cases.height > 0.8
    assert set(complaints["case_id"]) <= set(ed_cases["case_id"])
    presentations = dict(wh.read("presentations").iter_rows())
    sexes = dict(wh.read("case_skeleton").select("case_id", "sex").iter_rows())
    opening = complaints.filter(pl.col("disclosed")).group_by("case_id").agg(pl.col("text").first())
    for case_id, text in opening.iter_rows():
        told = third_person(text, sexes[case_id])  # "my heart stopping" is told "his heart stopping"
        assert told[:1].lower() + told[1:] in presentations[case_id]


def test_ed_vital_signs_are_results_charted_in_the_exam_window(real_ed_demo_warehouse, ed_cases):
    wh = real_ed_demo_warehouse
    results = wh.read("exam_results").filter(pl.col("source_ref").str.starts_with("ed_"))
    assert set(results["kind"]) == {"vital"}
    assert {"Heart rate", "Oxygen saturation (pulse oximetry)", "Systolic blood pressure"} <= set(results["exam_name"])
    assert results["case_id"].n_unique() / ed_cases.height > 0.85
    windows = case_windows(wh, mimic_cases(wh), ExamWindow())
    charted = results.join(windows, on="case_id").with_columns(
        (pl.col("index_time") + pl.duration(seconds=(pl.col("offset_hours") * 3600).round())).alias("charted"))
    outside = charted.filter((pl.col("charted") < pl.col("window_start")) | (pl.col("charted") > pl.col("window_end")))
    assert outside.is_empty()
    rejects = wh.read("rejects").filter(pl.col("source") == "mimic_ed")
    assert rejects["reason"].str.contains("^(implausible|pain is no score)").all()


def test_medrecon_is_the_home_medication_list_of_its_cases(real_ed_demo_warehouse):
    meds = real_ed_demo_warehouse.read("information_units").filter(pl.col("category") == "medication")
    reconciled = set(meds.filter(pl.col("source_ref").str.starts_with("ed_medrecon:"))["case_id"])
    fallback = set(meds.filter(pl.col("source_ref").str.starts_with("mimic_prescriptions:"))["case_id"])
    assert len(reconciled) > 50 and not reconciled & fallback


def test_no_ed_diagnosis_reaches_a_patient_visible_view(real_ed_demo_warehouse):
    wh = real_ed_demo_warehouse
    diagnoses = case_ed_diagnoses(wh)
    assert diagnoses.height > 200
    texts = patient_texts(wh.read("information_units"), wh.read("cases"), wh.read("profiles"))
    assert ed_diagnosis_leaks(diagnoses, texts, wh.read("case_skeleton")).is_empty()
