"""Role views are isolated by construction: each role takes its own view and refuses the others."""

from dataclasses import astuple, fields

import polars as pl
import pytest
from episode_cases import case_id, frames

from pipelines.episodes.actions import Finalize
from pipelines.episodes.config import preset
from pipelines.episodes.judge import Judge
from pipelines.episodes.lab import LaboratoryPhysician
from pipelines.episodes.patient import ObservablePatient
from pipelines.episodes.retrieval import Vocabulary
from pipelines.episodes.roles import ClinicalState, LatentPatient, Role
from pipelines.episodes.screen import BoundaryScreen
from pipelines.episodes.store import CaseStore
from pipelines.episodes.views import ExamView, ManagerView, PatientView


@pytest.fixture(scope="module")
def vocabulary(store):
    return Vocabulary(store.unit_texts())


def test_store_splits_a_case_into_three_views(heart_failure):
    assert isinstance(heart_failure.patient, PatientView)
    assert isinstance(heart_failure.exams, ExamView)
    assert isinstance(heart_failure.manager, ManagerView)
    assert {f.name for f in fields(PatientView)} == {"case_id", "units", "profile"}
    assert heart_failure.manager.icd10_title == "Heart failure, unspecified"
    assert heart_failure.manager.acceptable_icd10 == ("I50.9",)  # no acceptable_icd10 column: the primary
    assert len(heart_failure.patient.hidden) == len(heart_failure.patient.units) - 1


def test_patient_view_holds_no_exam_value_and_no_diagnosis(heart_failure):
    text = repr(heart_failure.patient).lower()
    assert "heart failure" not in text and "i50" not in text and "5400" not in text


@pytest.mark.parametrize("view", ["exams", "manager"])
def test_a_patient_handed_another_view_raises(heart_failure, vocabulary, view):
    with pytest.raises(TypeError, match="ObservablePatient takes a PatientView"):
        ObservablePatient(getattr(heart_failure, view), vocabulary, seed=1)


def test_other_roles_refuse_foreign_views(heart_failure):
    with pytest.raises(TypeError):
        LaboratoryPhysician(heart_failure.patient, preset("medevoeval"))
    with pytest.raises(TypeError):
        Judge(heart_failure.exams)
    with pytest.raises(TypeError):
        BoundaryScreen(heart_failure.patient, heart_failure.exams)


def test_latent_patient_answers_only_the_lab_and_the_judge(heart_failure):
    latent = LatentPatient(heart_failure)
    state = latent.answer(Role.LAB)
    assert isinstance(state, ClinicalState)
    assert "manager" not in {f.name for f in fields(ClinicalState)}  # a predictor never sees the diagnosis
    assert latent.answer(Role.JUDGE).manager.primary_icd10 == "I50.9"
    for caller in (Role.DOCTOR, Role.PATIENT, Role.CONSULTANT, Role.CONTROLLER):
        with pytest.raises(PermissionError):
            latent.answer(caller)


def test_acceptable_codes_and_repeated_results_when_the_warehouse_has_them():
    tables = frames()
    tables["cases"] = tables["cases"].with_columns(
        pl.when(pl.col("case_id") == case_id("01")).then(pl.lit(["I50.9", "I11.0"])).otherwise(
            pl.concat_list("primary_icd10")).alias("acceptable_icd10"))
    later = tables["exam_results"].filter(pl.col("case_id") == case_id("01"), pl.col("exam_name") == "Sodium")
    tables["exam_results"] = pl.concat([later.with_columns(value_num=140.0, value_text=pl.lit("140"), offset_hours=9.0),
                                        tables["exam_results"]])
    case = CaseStore(tables).case(case_id("01"))
    assert case.manager.acceptable_icd10 == ("I50.9", "I11.0")
    final = Finalize("Hypertensive heart disease with heart failure", "I11.0", (), (), ())
    assert Judge(case.manager).reward(final) == 1.0  # an acceptable code's block counts
    assert [r.value_text for r in case.exams.results if r.exam_name == "Sodium"] == ["131", "140"]
    assert case.exams.by_name["Sodium"].value_text == "131"  # the earliest measurement is reported


def test_first_results_are_what_each_exam_view_reports():
    """The frame of every case's first results (read by cohort-wide passes that build no view) holds
    each view's ``by_name``, in its order: repeated measurements, a case without results."""
    tables = frames()
    sodium = tables["exam_results"].filter(pl.col("case_id") == case_id("01"), pl.col("exam_name") == "Sodium")
    tables["exam_results"] = pl.concat([
        sodium.with_columns(value_num=140.0, value_text=pl.lit("140"), offset_hours=9.0),
        sodium.with_columns(value_num=120.0, value_text=pl.lit("120"), offset_hours=None),
        tables["exam_results"].filter(pl.col("case_id") != case_id("02"))])
    store = CaseStore(tables)
    views = [(c.case_id, *astuple(r)) for c in store.each_case(store.case_ids()) for r in c.exams.by_name.values()]
    assert store.first_results().rows() == views
    assert (case_id("01"), "131") in {(c, r[3]) for c, *r in views if r[0] == "Sodium"}
    assert not any(c == case_id("02") for c, *_ in views)
    empty = CaseStore({**tables, "exam_results": tables["exam_results"].clear()})
    assert empty.first_results().is_empty() and empty.first_results().columns == store.first_results().columns


def test_a_cohort_pass_builds_each_case_as_the_store_does_and_keeps_none():
    tables = frames()
    passing, replaying = CaseStore(tables), CaseStore(tables)
    ids = passing.case_ids()
    assert [c.case_id for c in passing.each_case(ids)] == ids
    assert list(passing.each_case(ids)) == [replaying.case(i) for i in ids]  # the same views, unit for unit
    assert not passing._built  # nothing kept: a cohort-wide step holds one case at a time
    assert replaying.case(ids[0]) is replaying.case(ids[0])  # case() keeps them, for the episodes that replay


def test_a_case_without_units_or_results_has_empty_views():
    tables = frames()
    bare = case_id("01")
    tables["information_units"] = tables["information_units"].filter(pl.col("case_id") != bare)
    tables["exam_results"] = tables["exam_results"].filter(pl.col("case_id") != bare)
    case = CaseStore(tables).case(bare)
    assert case.patient.units == () and case.exams.results == ()
