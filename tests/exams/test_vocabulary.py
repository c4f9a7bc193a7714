
import polars as pl
import pytest

from pipelines.datafiles import DataFileError
from pipelines.demo import generate_demo
from pipelines.exams import vocabulary
from pipelines.exams.catalog import alias_table
from pipelines.exams.mimic import lab_items
from pipelines.exams.vocabulary import exams, panel, panels, reference_ranges, resolve


def test_resolve_folds_aliases_and_spellings_onto_the_canonical_name():
    assert {resolve(n) for n in ("Hgb", "hämoglobin", "HEMOGLOBIN", "Hb (BGA)")} == {"Hemoglobin"}
    assert resolve("Glucose (Urine)") == "Urine glucose"
    assert resolve("ESR") == "Erythrocyte sedimentation rate"
    # a manual differential's blast count (acute leukaemia): ordered with the differential, not a CBC
    assert resolve("Blasts") == resolve("blasts %") == "Blasts"
    assert "Blasts" in panel("differential") and "Blasts" not in panel("CBC")
    assert resolve("Frobnicase") is None and resolve("") is None and resolve(None) is None


def test_panels_answer_by_name_and_alias_with_canonical_members():
    assert panel("basic metabolic panel") == panel("BMP") == panel("Chem-7")
    assert panel("BMP") == ["Sodium", "Potassium", "Chloride", "Bicarbonate", "Blood urea nitrogen", "Creatinine",
                            "Glucose", "Calcium"]
    assert panel("coags") == ["INR", "Prothrombin time", "Partial thromboplastin time", "Fibrinogen"]
    assert "Direct bilirubin" in panel("liver function tests") and "Troponin T" in panel("cardiac enzymes")
    assert set(panel("BMP")) < set(panel("comprehensive metabolic panel"))
    assert panel("Hemoglobin") is None and panel("nothing") is None


def test_a_name_is_an_exam_or_a_panel_never_both():
    for short, members in panels().items():
        assert resolve(short) is None and members
        assert all(resolve(m) == m for m in members)


def test_every_panel_the_laboratory_physician_needs_exists():
    for name in ("CBC", "BMP", "CMP", "LFTs", "coagulation", "ABG", "urinalysis", "cardiac enzymes"):
        assert panel(name), name


def test_the_catalog_alias_table_is_the_vocabulary():
    table = alias_table()
    assert set(table["exam_name"]) == {e.name for e in exams()}
    assert table.filter(pl.col("alias") == "Hgb")["exam_name"].item() == "Hemoglobin"


def test_reference_ranges_are_keyed_by_canonical_names_one_per_unit():
    ranges = reference_ranges()
    assert set(ranges) <= {e.name for e in exams()}
    assert [r.unit for r in ranges["Body temperature"]] == ["°C", "°F"]
    hemoglobin = ranges["Hemoglobin"][0]
    assert (hemoglobin.unit, hemoglobin.low, hemoglobin.high, hemoglobin.female) == ("g/dL", 13.5, 17.5, (12.0, 16.0))
    assert ranges["Heart rate"][0].adults_only and not hemoglobin.adults_only


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    generate_demo(out, admissions=20, seed=0)
    return out


def test_every_lab_and_vital_label_of_the_demo_resolves(demo):
    """Lab labels as the MIMIC producer proposes them (qualified by a non-blood fluid: a urine "pH" is
    "pH (Urine)"), and every chart item label (vitals, finger-stick glucose, GCS components)."""
    labs = lab_items(pl.read_csv(demo / "mimic-iv" / "hosp" / "d_labitems.csv.gz"))
    charted = pl.read_csv(demo / "mimic-iv" / "icu" / "d_items.csv.gz", infer_schema=False)
    assert labs.height and charted.height
    assert [n for n in labs["exam_name"] if resolve(n) is None] == []
    assert [n for n in charted["label"] if resolve(n) is None] == []


@pytest.fixture
def vocabulary_files(data_package):
    """The vocabulary loaders pointed at a throw-away package (their caches cleared around the test)."""
    return data_package(vocabulary, (vocabulary.exams, vocabulary._panel_records, vocabulary._exam_index, vocabulary._panel_members,
               vocabulary._panel_index, vocabulary.reference_ranges))


HEADER = "exam_name,kind,loinc,panels,aliases\n"
PANELS = "panel,aliases\nCBC,complete blood count\n"


def test_vocabulary_errors_name_file_line_and_field(vocabulary_files):
    vocabulary_files(exam_vocabulary=HEADER + "Hemoglobin,lab,718-7,CBC,Hb\nHematocrit,lab,,CBC,HB\n",
                     exam_panels=PANELS)
    with pytest.raises(DataFileError, match=r"vocabulary_fixture/exam_vocabulary\.csv: line 3, field 'aliases': "
                                            r"'HB' already names 'Hemoglobin'"):
        vocabulary.exams()
    vocabulary_files(exam_vocabulary=HEADER + "Hemoglobin,blood,,,\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'kind': 'blood' is not one of lab"):
        vocabulary.exams()
    vocabulary_files(exam_vocabulary=HEADER + "Hemoglobin,lab,,LFTs,\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'panels': \['LFTs'\] not in exam_panels\.csv"):
        vocabulary.exams()
    vocabulary_files(exam_vocabulary=HEADER + "Hemoglobin,lab,,CBC,\n", exam_panels=PANELS + "BMP,chem 7\n")
    with pytest.raises(DataFileError, match=r"exam_panels\.csv: line 3, field 'panel': no exam"):
        vocabulary.panels()
    vocabulary_files(exam_panels="panel,aliases\nCBC,blood count|Hemoglobin\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'aliases': 'Hemoglobin' names the exam 'Hemoglobin'"):
        vocabulary.panel("CBC")


def test_reference_range_errors_name_file_line_and_field(vocabulary_files):
    columns = "exam_name,unit,low,high,female_low,female_high,adults_only\n"
    vocabulary_files(exam_vocabulary=HEADER + "Hemoglobin,lab,,CBC,\n", exam_panels=PANELS,
                     reference_ranges=columns + "Hgb,g/dL,13.5,17.5,,,\n")
    with pytest.raises(DataFileError, match=r"reference_ranges\.csv: line 2, field 'exam_name': 'Hgb' is not a canonical"):
        vocabulary.reference_ranges()
    vocabulary_files(reference_ranges=columns + "Hemoglobin,g/dL,17.5,13.5,,,\n")
    with pytest.raises(DataFileError, match=r"line 2, field 'low': low 17.5 is above high 13.5"):
        vocabulary.reference_ranges()
