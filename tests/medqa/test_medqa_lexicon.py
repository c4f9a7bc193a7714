from pipelines.exams.vocabulary import exams, resolve
from pipelines.medqa import lexicon
from pipelines.medqa.findings import NUMBER, flag_value, lab_name


def test_lab_and_vital_names_are_canonical_vocabulary_names():
    canonical = {e.name for e in exams()}
    assert {lab.exam_name for lab in lexicon.lab_patterns()} <= canonical
    assert {v.exam_name for v in lexicon.vital_patterns(NUMBER)} <= canonical


def test_dipstick_analytes_name_the_urine_exam_once_qualified():
    assert lab_name("Protein", "urine") == "Protein (Urine)" and resolve("Protein (Urine)") == "Urine protein"
    assert lab_name("Protein") is None  # not a result outside a fluid panel
    for lab in lexicon.lab_patterns():
        if lab.fluid_only:
            assert lab.exam_name.startswith("Urine "), lab


def test_reference_ranges_come_from_the_vocabulary():
    assert flag_value("Hemoglobin", 11.0, "g/dL", "F", 30) == (True, 12.0, 16.0)
    assert flag_value("Hemoglobin", 11.0, "g/L", "F", 30) == (None, None, None)  # another unit: no flag
    assert flag_value("Body temperature", 101.0, "°F", "M", 30) == (True, 96.8, 100.3)
    assert flag_value("Heart rate", 130.0, "/min", "M", 5) == (None, None, None)  # adults only
    assert flag_value("INR", 2.0, "", "M", 30) == (True, 0.8, 1.2)
