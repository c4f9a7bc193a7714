"""The laboratory physician's deterministic lookup (Protocol B.3) and its structured reports."""

from dataclasses import replace

from pipelines.episodes.config import preset
from pipelines.episodes.lab import LaboratoryPhysician, render
from pipelines.episodes.roles import LatentPatient
from pipelines.episodes.views import ExamResult
from pipelines.exams.catalog import alias_table
from pipelines.exams.vocabulary import panel as panel_members
from pipelines.exams.vocabulary import panels


def lab(case, name="medevoeval", predictor=None, **overrides):
    config = preset(name, **overrides)
    if predictor is None:
        return LaboratoryPhysician(case.exams, config, LatentPatient(case))
    return LaboratoryPhysician(case.exams, config, LatentPatient(case), predictor)


def only(report):
    assert len(report.items) == 1
    return report.items[0]


def test_exact_lookup_folds_case_and_punctuation(heart_failure):
    item = only(lab(heart_failure).lookup("  nt probnp "))
    assert (item.test_name, item.match_type, item.returned) == ("NT-proBNP", "exact", True)
    assert item.text == "NT-proBNP: 5400 pg/mL | reference range: 0-125 pg/mL | flag: abnormal"


def test_medevoeval_takes_no_alias_and_no_panel(heart_failure):
    assert only(lab(heart_failure).lookup("Hgb")).match_type == "not_allowed"
    assert only(lab(heart_failure).lookup("CBC")).match_type == "not_allowed"


def test_catalog_exam_the_case_lacks_is_not_in_case(heart_failure):
    report = lab(heart_failure).lookup("Potassium")
    assert (only(report).match_type, only(report).returned, report.invalid) == ("not_in_case", False, True)
    assert "not done for this patient" in report.text


def test_clinverse_resolves_aliases_and_panels(heart_failure):
    clinverse = lab(heart_failure, "clinverse")
    assert only(clinverse.lookup("Hgb")).test_name == "Hemoglobin"
    cbc = clinverse.lookup("complete blood count")
    assert [i.test_name for i in cbc.items] == ["Hemoglobin"]  # the case's CBC items only
    assert cbc.text.startswith("CBC:\nHemoglobin: 13.2 g/dL")
    bmp = clinverse.lookup("BMP")
    assert [i.test_name for i in bmp.items] == ["Sodium"]


def test_an_alias_several_exams_carry_goes_by_the_curated_table_or_is_refused(heart_failure):
    clinverse = lab(heart_failure, "clinverse")
    assert only(clinverse.lookup("glucose")).test_name == "Glucose"  # a canonical name wins over an alias
    assert only(clinverse.lookup("WBC")).test_name == "White blood cell count"  # curated alias table decides
    ambiguous = only(clinverse.lookup("xyz"))
    assert ambiguous.match_type == "not_allowed" and "ambiguous" in ambiguous.text


def test_unrecorded_policy_switch(heart_failure):
    assert only(lab(heart_failure, unrecorded="null").lookup("Potassium")).text.startswith("Potassium: null")
    assert only(lab(heart_failure, unrecorded="null").lookup("Potassium")).returned
    # until ClinLab exists the predictor hook answers nothing, so `predict` falls back to not_in_case
    assert only(lab(heart_failure, "clinverse").lookup("Potassium")).match_type == "not_in_case"
    seen = []

    def predictor(exam, state):
        seen.append(state)
        return ExamResult(exam, "lab", 4.1, None, "mmol/L", 3.5, 5.1, False)

    item = only(lab(heart_failure, "clinverse", predictor).lookup("K"))
    assert (item.test_name, item.match_type, item.returned) == ("Potassium", "predicted", True)
    assert item.result.origin == "predicted" and not hasattr(seen[0], "manager")
    assert only(lab(heart_failure, "clinverse", predictor).lookup("Sodium")).match_type == "exact"  # recorded wins


def test_report_never_says_normal_when_the_flag_is_unknown():
    result = ExamResult("Sodium", "lab", 140.0, None, "mmol/L", None, None, None)
    assert render(result) == "Sodium: 140 mmol/L | reference range: not recorded | flag: no abnormal flag recorded"
    assert "reference range: >= 135 mmol/L" in render(replace(result, ref_low=135.0))


def test_panels_name_canonical_exams_and_no_exam_alias():
    canonical = set(alias_table()["exam_name"])
    assert {"CBC", "BMP", "LFTs", "Coagulation", "ABG", "Urinalysis", "Cardiac enzymes"} <= set(panels())
    assert all(m in canonical for members in panels().values() for m in members)
    assert not {k for k in alias_table()["alias_key"] if panel_members(k)}
    assert panel_members("Liver function tests") == panel_members("LFTs") and panel_members("Sodium") is None


def test_procedure_tests_are_offered_only_where_panels_are(store):
    from pipelines.episodes.settings import EpisodeSettings

    settings = EpisodeSettings(store)
    offered = settings.catalog_names(preset("clinverse"))
    assert "Pleural fluid analysis" in offered and set(panels()) <= set(offered)
    exact = settings.catalog_names(preset("medevoeval"))
    assert "Pleural fluid analysis" not in exact and exact == store.catalog.names


def test_every_episode_of_a_case_shares_its_reports_unless_values_are_replaced_by_seed(heart_failure):
    asked = []

    def predictor(exam, state):
        asked.append(exam)
        return ExamResult(exam, "lab", 4.1, None, "mmol/L", 3.5, 5.1, False)

    first = lab(heart_failure, "clinverse", predictor).lookup("K")
    again = lab(heart_failure, "clinverse", predictor).lookup("K")  # another episode of the case
    assert again is first and asked == ["Potassium"]  # predicted once, served again
    assert only(lab(heart_failure, "clinverse", predictor, unrecorded="null").lookup("K")).match_type == "not_in_case"
    older = replace(heart_failure, age=heart_failure.age + 30)  # what the predictor reads is part of the key
    assert lab(older, "clinverse", predictor).lookup("K") is not first and asked == ["Potassium"] * 2
    replaced = [lab(heart_failure, "clinverse", predictor, replace_fraction=0.5).lookup("Sodium") for _ in range(2)]
    assert replaced[0] is not replaced[1]  # seeded replacement: each episode's report is its own
