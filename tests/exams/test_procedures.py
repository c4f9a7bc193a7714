"""Procedure-revealing specimens end to end: named after the procedure by the producers, returned by
the laboratory physician only for the procedure's test."""


import pytest

from pipelines.datafiles import DataFileError
from pipelines.episodes.config import preset
from pipelines.episodes.lab import LaboratoryPhysician
from pipelines.episodes.views import CatalogEntry, ExamCatalog, ExamResult, ExamView
from pipelines.exams import procedures
from pipelines.exams.procedures import lab_name, procedure_test


def _result(name: str, value: float, kind: str = "lab") -> ExamResult:
    return ExamResult(name, kind, value, None, "g/dL", None, None, None)


RESULTS = (_result("Total protein", 7.1), _result("Hemoglobin", 12.0), _result("Pleural fluid: Total Protein", 4.0),
           _result("Pleural fluid: Lactate Dehydrogenase", 322.0), _result("Pleural fluid: Polys", 70.0),
           _result("CSF: Glucose", 60.0))
CATALOG = ExamCatalog(tuple(
    CatalogEntry(r.exam_name, r.kind, aliases) for r, aliases in zip(RESULTS, (
        ("Protein, Total",), ("Hgb",), ("Total Protein, Pleural",), ("Lactate Dehydrogenase, Pleural",),
        ("Polys (Pleural)",), ("CSF glucose",)))
) + (CatalogEntry("Bronchoscopy", "imaging", ()),))  # a MedQA study named like a procedure test


def _lab(results=RESULTS, name: str = "clinverse") -> LaboratoryPhysician:
    return LaboratoryPhysician(ExamView("c_1", results, CATALOG), preset(name))


def _returned(report) -> list[str]:
    return [i.test_name for i in report.items if i.returned]


def test_ordinary_orders_never_return_procedure_results():
    lab = _lab()
    assert _returned(lab.lookup("Total protein")) == ["Total protein"]
    assert _returned(lab.lookup("Protein, Total")) == ["Total protein"]
    assert _returned(lab.lookup("CBC")) == ["Hemoglobin"]
    assert _returned(lab.lookup("Polys")) == []


def test_the_procedure_test_returns_its_results_together():
    lab = _lab()
    report = lab.lookup("pleural fluid analysis")
    assert _returned(report) == ["Pleural fluid: Total Protein", "Pleural fluid: Lactate Dehydrogenase",
                                 "Pleural fluid: Polys"]
    assert report.text.startswith("Pleural fluid analysis:\n")
    assert _returned(lab.lookup("Thoracentesis")) == _returned(report)
    assert _returned(lab.lookup("lumbar puncture")) == ["CSF: Glucose"]
    assert _returned(lab.lookup("Pleural fluid: Polys")) == ["Pleural fluid: Polys"]  # by its own name


def test_a_procedure_the_case_did_not_have_is_not_in_case():
    report = _lab(RESULTS[:2]).lookup("paracentesis")
    assert report.invalid and report.items[0].match_type == "not_in_case"


def test_a_source_exam_named_like_the_procedure_is_one_of_its_results():
    bronchoscopy = ExamResult("Bronchoscopy", "imaging", None, "friable mucosa", None, None, None, True)
    assert _returned(_lab((*RESULTS, bronchoscopy)).lookup("bronchoscopy")) == ["Bronchoscopy"]


def test_exact_name_presets_order_no_procedure_test():
    lab = _lab(name="medevoeval")
    assert lab.lookup("Pleural fluid analysis").items[0].match_type == "not_allowed"
    assert _returned(lab.lookup("Pleural fluid: Polys")) == ["Pleural fluid: Polys"]


def test_lab_names_of_procedure_specimens_drop_the_repeated_specimen():
    assert lab_name("Total Protein, Pleural", "Pleural") == "Pleural fluid: Total Protein"
    assert lab_name("Total Nucleated Cells, Joint", "Joint Fluid") == "Joint fluid: Total Nucleated Cells"
    assert lab_name("LD, Body Fluid", "other body fluid") == "Body fluid: LD"
    assert lab_name("Influenza A by PCR", "Other Body Fluid") is None  # a swab, filed as body fluid
    assert lab_name("Protein", "Urine") is None and lab_name("Protein", None) is None
    assert procedure_test("Spinal tap").test == "CSF analysis" and procedure_test("CBC") is None


@pytest.fixture
def procedure_files(data_package):
    return data_package(procedures, (procedures.tests, procedures.specimens, procedures._index, procedures._lab_specimens))


def test_procedure_file_errors_name_file_line_and_field(procedure_files):
    header = "test,label,aliases\n"
    procedure_files(procedure_tests=header + "Pleural fluid analysis,Pleural fluid,Thoracentesis|Hgb\n")
    with pytest.raises(DataFileError, match=r"procedure_tests\.csv: test 'Pleural fluid analysis' \(line 2\), "
                                            r"field 'aliases': 'Hgb' names the exam 'Hemoglobin'"):
        procedures.tests()
    procedure_files(procedure_tests=header + "A test,A,CBC\n")
    with pytest.raises(DataFileError, match=r"'CBC' names the panel 'CBC'"):
        procedures.tests()
    procedure_files(procedure_tests=header + "A test,A,Tap\nB test,B,tap\n")
    with pytest.raises(DataFileError, match=r"line 3\), field 'aliases': 'tap' already names 'A test'"):
        procedures.tests()
    procedure_files(procedure_tests=header + "A test,A,\n",
                    procedure_specimens="table,specimen,test,suffixes,not_procedure\nlabevents,Pleural,B test,,\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'test': unknown procedure test 'B test'"):
        procedures.specimens()
