import polars as pl
import pytest

import schemas
from pipelines import icd
from pipelines.content.associations import associated_exams, diagnosis_criteria, diagnosis_history, diagnostic_tests
from pipelines.content.associations import exam_associations, required_tests
from pipelines.content.cases import DIAGNOSIS_CRITERIA, DIAGNOSIS_EVIDENCE, DIAGNOSIS_HISTORY, DIAGNOSTIC_TEST
from pipelines.content.cases import OPENING_COMPLAINT, curate
from pipelines.content.cases import evidence_counts
from pipelines.datafiles import DataFileError

RULES = {"mimic_iv": (3, 3), "sicdb": (3, 3), "medqa": (3, 3)}


def _skeleton(ids, source="mimic_iv"):
    base = schemas.empty("case_skeleton")
    rows = [{"case_id": f"c_{i:016x}", "source": source, "dataset": "demo", "split": "train", "age": 60, "sex": "F",
             "diagnosis_name": "Pneumonia", "acceptable_names": [], "primary_icd10": "J18.9",
             "primary_icd10_category": "J18", "primary_icd10_block": "J09-J18", "primary_icd10_chapter": "10",
             "icd_origin": "icd10", "secondary_icd10": [], "patient_key": f"p{i}", "mapping_reason": None,
             "acceptable_icd10": ["J18.9"], "known_condition": False} for i in ids]
    return pl.concat([base, pl.DataFrame(rows, schema=base.schema)])


def _units(rows):
    """(case_id, disclosed, category, importance) rows, or with (text, negated) after them."""
    rows = [(*row, "A fact.", False) if len(row) == 4 else row for row in rows]
    return pl.DataFrame(rows, schema={"case_id": pl.Utf8, "disclosed": pl.Boolean, "category": pl.Utf8,
                                      "importance": pl.Utf8, "text": pl.Utf8, "negated": pl.Boolean}, orient="row")


def _exams(rows):
    """(case_id, exam_name, abnormal, origin) rows, or with (value_num, unit) after them."""
    rows = [(*row, None, None) if len(row) == 4 else row for row in rows]
    return pl.DataFrame(rows, schema={"case_id": pl.Utf8, "exam_name": pl.Utf8, "abnormal": pl.Boolean,
                                      "origin": pl.Utf8, "value_num": pl.Float64, "unit": pl.Utf8}, orient="row")


def _complete(case_id, key=True):
    """A complaint, three hidden units (one key unless ``key`` is False), three exams (a chest X-ray
    among them, which a pneumonia case needs: diagnostic_tests.csv)."""
    units = [(case_id, True, "chief_complaint", "key"), (case_id, False, "hpi", "key" if key else "supporting"),
             (case_id, False, "pmh", "supporting"), (case_id, False, "social", "background")]
    exams = [(case_id, "Hemoglobin", False, "recorded"), (case_id, "Sodium", False, "recorded"),
             (case_id, "Chest X-ray", False, "recorded")]
    return units, exams


def test_sufficiency_keeps_cases_with_enough_hidden_units_and_exams():
    skeleton = _skeleton([1, 2, 3, 4])
    ids = skeleton["case_id"].to_list()
    units, exams = [], []
    for i in ids:
        u, e = _complete(i)
        units += u
        exams += e
    units = [u for u in units if not (u[0] == ids[1] and u[2] in ("pmh", "social"))]  # 1 hidden unit left
    exams = [e for e in exams if not (e[0] == ids[2] and e[1] != "Chest X-ray")]  # 1 exam left
    counts = evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy())
    presentations = pl.DataFrame({"case_id": ids[:3], "presentation": ["A 60-year-old woman."] * 3})
    prior = pl.DataFrame({"case_id": ["c_00000000000000ff"], "source": ["mimic_iv"], "stage": ["case_skeleton"],
                          "reason": ["no diagnoses_icd row with seq_num = 1"]})
    curated = curate(skeleton, prior, presentations, counts, RULES)
    assert curated.cases["case_id"].to_list() == [ids[0]]
    row = curated.cases.row(0, named=True)
    assert (row["n_units"], row["n_exams"], row["presentation"], row["structured_only"]) == (4, 3, "A 60-year-old woman.",
                                                                                            False)
    reasons = dict(curated.excluded.select("case_id", "reason").iter_rows())
    stages = dict(curated.excluded.select("case_id", "stage").iter_rows())
    assert reasons[ids[1]].startswith("1 hidden information unit(s) (at least 3 required)")
    assert "1 examination(s)" in reasons[ids[2]]
    assert stages[ids[3]] == "presentation" and stages["c_00000000000000ff"] == "case_skeleton"
    assert curated.cases.height + curated.excluded.height == skeleton.height + prior.height


def test_a_record_case_needs_evidence_associated_with_its_diagnosis():
    skeleton = _skeleton([1, 2, 3])
    ids = skeleton["case_id"].to_list()
    units, exams = [], []
    for i in ids:
        u, e = _complete(i, key=False)
        units += u
        exams += e
    exams += [(ids[1], "Chest X-ray", True, "recorded"),  # associated with J18.9 and abnormal: enough
              (ids[2], "Chest X-ray", False, "recorded"),  # associated but normal: not evidence
              (ids[2], "Lipase", True, "recorded")]  # abnormal but not associated with pneumonia
    presentations = pl.DataFrame({"case_id": ids, "presentation": ["A 60-year-old woman with a cough."] * 3})
    curated = curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema), presentations,
                     evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES)
    assert curated.cases["case_id"].to_list() == [ids[1]]
    excluded = curated.excluded.row(by_predicate=pl.col("case_id") == ids[0], named=True)
    assert excluded["stage"] == DIAGNOSIS_EVIDENCE and "points to J18.9" in excluded["reason"]
    assert curated.excluded.filter(pl.col("case_id") == ids[2])["stage"].item() == DIAGNOSIS_EVIDENCE


@pytest.mark.parametrize("complaint, kept", [("key", True), ("supporting", False)])
def test_a_nonspecific_abnormal_exam_is_evidence_only_beside_a_key_complaint(complaint, kept):
    skeleton = _skeleton([1])
    case = skeleton["case_id"][0]
    units, exams = _complete(case, key=False)
    units = [(c, d, cat, complaint if cat == "chief_complaint" else imp) for c, d, cat, imp in units]
    exams += [(case, "White blood cell count", True, "recorded")]  # raised in any infection, not only the lung's
    curated = curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema),
                     pl.DataFrame({"case_id": [case], "presentation": ["A 60-year-old woman with a cough."]}),
                     evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES)
    assert curated.cases.height == int(kept)
    if not kept:
        row = curated.excluded.row(0, named=True)
        assert row["stage"] == DIAGNOSIS_EVIDENCE
        assert "its 1 nonspecific one(s) have no key opening complaint" in row["reason"]


@pytest.mark.parametrize("structured_only, kept", [((), False), (("mimic_iv",), True)])
def test_a_record_case_without_a_complaint_is_excluded_unless_structured_only_cases_are_kept(structured_only, kept):
    skeleton = _skeleton([1])
    case = skeleton["case_id"][0]
    units, exams = _complete(case)
    units = [u for u in units if u[2] != "chief_complaint"] + [(case, False, "pmh", "supporting")]
    presentations = pl.DataFrame({"case_id": [case], "presentation": ["A 60-year-old woman admitted as an emergency."]})
    curated = curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema), presentations,
                     evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES, structured_only)
    if kept:
        assert curated.cases["structured_only"].to_list() == [True] and curated.excluded.is_empty()
    else:
        row = curated.excluded.row(0, named=True)
        assert curated.cases.is_empty() and row["stage"] == OPENING_COMPLAINT
        assert "CLINVERSE_STRUCTURED_ONLY=mimic_iv" in row["reason"]


def test_a_vignette_needs_neither_a_complaint_unit_nor_an_associated_exam():
    skeleton = _skeleton([1], source="medqa")
    case = skeleton["case_id"][0]
    units, exams = _complete(case, key=False)
    units = [u for u in units if u[2] != "chief_complaint"] + [(case, False, "pmh", "supporting")]
    curated = curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema),
                     pl.DataFrame({"case_id": [case], "presentation": ["A 60-year-old woman comes with a cough."]}),
                     evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES)
    assert curated.cases["structured_only"].to_list() == [False]


@pytest.mark.parametrize("source, imaging, stage", [("mimic_iv", None, DIAGNOSTIC_TEST), ("mimic_iv", "CT chest", None),
                                                    ("sicdb", None, DIAGNOSTIC_TEST), ("medqa", None, None)])
def test_a_record_case_whose_diagnosis_only_an_examination_establishes_needs_one(source, imaging, stage):
    """Pneumonia is shown on chest imaging: a record case without it cannot be reached, whatever its
    history and its white count say. A vignette states its findings."""
    skeleton = _skeleton([1], source=source)
    case = skeleton["case_id"][0]
    units, exams = _complete(case)
    exams = [e for e in exams if e[1] != "Chest X-ray"] + [(case, "White blood cell count", True, "recorded")]
    if imaging:
        exams.append((case, imaging, None, "recorded"))  # a recorded result establishes it, flagged or not
    curated = curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema),
                     pl.DataFrame({"case_id": [case], "presentation": ["A 60-year-old woman with a cough."]}),
                     evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES, ("sicdb",))
    assert curated.cases.height == int(stage is None)
    if stage:
        row = curated.excluded.row(0, named=True)
        assert row["stage"] == stage
        assert row["reason"] == ("J18.9 is established by an examination that the case does not record "
                                 "(any of: CT chest, Chest X-ray; diagnostic_tests.csv)")


@pytest.mark.parametrize(("code", "test"), [("I60.32", "CT head"), ("K75.0", "Abdominal ultrasound"),
                                           ("B18.2", "Hepatitis C antibody"), ("K85.90", "Lipase"),
                                           ("K85.10", "CT abdomen and pelvis")])
def test_a_headache_bleed_a_liver_abscess_hepatitis_c_and_pancreatitis_need_their_test(code, test):
    without = _curated_with(code, [])
    assert without.cases.is_empty() and without.excluded["stage"].to_list() == [DIAGNOSTIC_TEST]
    assert DIAGNOSTIC_TEST not in _curated_with(code, [(test, None, None)]).excluded["stage"].to_list()


def test_only_a_predicted_result_does_not_establish_a_diagnosis():
    skeleton = _skeleton([1])
    case = skeleton["case_id"][0]
    units, exams = _complete(case)
    exams = [(c, name, flag, "predicted" if name == "Chest X-ray" else origin) for c, name, flag, origin in exams]
    counts = evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy())
    assert counts["n_diagnostic_tests"].fill_null(0).to_list() == [0]
    assert counts["diagnostic_tests"].to_list() == ["CT chest|Chest X-ray"]


def _curated_with(code, results, source="mimic_iv", texts=()):
    """One case of ``code`` with a complete history, ``results`` ((exam, value, unit) recorded) and a hidden pmh
    unit for each of ``texts`` ((text, negated) pairs)."""
    info = icd.icd10cm_info(code)
    skeleton = _skeleton([1], source=source).with_columns(
        primary_icd10=pl.lit(code), primary_icd10_category=pl.lit(code[:3]), primary_icd10_block=pl.lit(info.block),
        acceptable_icd10=pl.lit([code]))
    case = skeleton["case_id"][0]
    units, exams = _complete(case)
    exams += [(case, exam, None, "recorded", value, unit) for exam, value, unit in results]
    units += [(case, False, "pmh", "supporting", text, negated) for text, negated in texts]
    return curate(skeleton, pl.DataFrame(schema=schemas.empty("excluded_cases").schema),
                  pl.DataFrame({"case_id": [case], "presentation": ["A 60-year-old woman with a fever."]}),
                  evidence_counts(skeleton, _units(units).lazy(), _exams(exams).lazy()), RULES, ("sicdb",))


@pytest.mark.parametrize(("code", "results", "met"), [
    # one SIRS criterion: a fast heart (a white count of 11 and a temperature in no unit meet none)
    ("A41.9", [("Heart rate", 98, "bpm"), ("White blood cell count", 11, "K/uL"), ("Body temperature", 38.5, "")], 1),
    ("A41.9", [("Heart rate", 98, "bpm"), ("Bands", 20, "%"), ("White blood cell count", 2, "K/uL")], 2),  # one each
    ("A41.9", [("Respiratory rate", 18, "insp/min"), ("pCO2", 31, "mm Hg"), ("Lactate", 4.4, "mmol/L")], 2),
    ("A41.9", [("Body temperature", 101.3, "°F"), ("Heart rate", 120, "/min")], 2),  # SICdb's units
    ("E16.1", [("Glucose", 77, "mg/dL")], 0),  # hypoglycaemia with a normal glucose
    ("E16.1", [("Glucose", 3.1, "mmol/L")], 1),
    ("E87.5", [("Potassium", 5.0, "mEq/L")], 0),  # the bound itself is not above it
])
def test_a_diagnosis_a_measurement_defines_needs_results_that_meet_its_criteria(code, results, met):
    curated = _curated_with(code, results)
    required = 2 if code.startswith("A41") else 1
    assert curated.cases.height == int(met >= required)
    if met < required:
        row = curated.excluded.row(0, named=True)
        assert row["stage"] == DIAGNOSIS_CRITERIA
        assert row["reason"].startswith(f"{code} is defined by measurements, and the recorded results of the case's "
                                        f"window meet {met} of its criteria (at least {required} required: ")
        assert row["reason"].endswith("; diagnosis_criteria.csv)")


def test_a_vignette_and_an_undefined_diagnosis_are_not_held_to_the_criteria():
    assert _curated_with("E16.1", [("Glucose", 77, "mg/dL")], source="medqa").cases.height == 1
    assert _curated_with("J18.9", [("Chest X-ray", None, None)]).cases.height == 1


def test_diagnosis_criteria_name_catalog_exams_with_a_unit_and_need_no_more_than_they_list(tmp_path):
    sepsis = next(c for c in diagnosis_criteria() if c.holds("A41.9"))
    assert sepsis.at_least == 2 and len(sepsis.criteria) == 5
    header = "diagnoses,criteria,at_least,why\n"
    for row, problem in [("E16,Glucsoe<70 mg/dL,1,misspelt", "Glucsoe"), ("E16,Glucose<70,1,no unit", "Glucose<70"),
                         ("E16,Glucose<70 mg/dL,2,one criterion", "at most the 1 criteria")]:
        (tmp_path / "diagnosis_criteria.csv").write_text(header + row + "\n")
        with pytest.raises(DataFileError, match=problem):
            diagnosis_criteria(tmp_path)


@pytest.mark.parametrize(("code", "texts", "kept"), [
    ("F10.231", [("I drink a bottle of vodka a day.", False)], True),
    ("F10.231", [("Drinking: six beers a night.", False)], True),  # at a word's start, without case
    ("F10.231", [("I do not drink alcohol.", True)], False),  # a negated unit reports nothing
    ("F10.231", [("I am a non-smoker.", False)], False),
    ("J44.1", [("I used to smoke a pack a day.", False)], True),
    ("J44.1", [("I take an albuterol inhaler.", False)], True),
    ("J44.1", [("I have high blood pressure.", False)], False),
    ("F29", [("I hear voices telling me to hurt myself.", False)], True),
    ("F29", [("I feel sad most days.", False)], False),
    ("T81.41XA", [("I had my gallbladder out two weeks ago, surgery went fine.", False)], True),
    ("T81.41XA", [("I have a fever and my belly hurts.", False)], False),
    ("J18.9", [], True),  # pneumonia presupposes no history
    ("T38.3X1A", [("I take insulin glargine 20 units at night.", False)], False),  # insulin, no low sugar
    ("T38.3X1A", [("My sugar dropped to 40 this morning.", False)], True),
    ("R41.82", [("Sent in for an abnormal heart tracing.", False)], False),  # a symptom it is not
    ("R41.82", [("My daughter says I have been confused since yesterday.", False)], True),
    ("R31.2", [("I take warfarin.", False)], False),
    ("R31.2", [("I saw blood in my urine.", False)], True),
    ("R07.89", [("Chest tightness when I climb stairs.", False)], True),
])
def test_a_diagnosis_that_presupposes_a_history_needs_a_unit_that_reports_it(code, texts, kept):
    curated = _curated_with(code, [], texts=texts)
    assert curated.cases.height == int(kept)
    if not kept:
        row = curated.excluded.row(0, named=True)
        assert row["stage"] == DIAGNOSIS_HISTORY
        assert row["reason"].startswith(
            f"{code} presupposes a history or symptom that no information unit of the case reports (")
        assert row["reason"].endswith("; diagnosis_history.csv)")


def test_a_vignette_is_not_held_to_the_history():
    assert _curated_with("F10.231", [], source="medqa").cases.height == 1


def test_diagnosis_history_rows_need_codes_and_wordlike_phrases(tmp_path):
    withdrawal = next(h for h in diagnosis_history() if h.holds("F10.231"))
    assert "alcohol" in withdrawal.phrases and not withdrawal.holds("F10.20")
    header = "diagnoses,phrases,why\n"
    for row, problem in [("F10.23,,no phrases", "phrases"), ("F10.23,alcohol| (drink,punctuation", "drink"),
                         ("alcohol,alcohol,no code", "not a dotted ICD-10-CM code prefix")]:
        (tmp_path / "diagnosis_history.csv").write_text(header + row + "\n")
        with pytest.raises(DataFileError, match=problem):
            diagnosis_history(tmp_path)


def test_diagnostic_tests_name_catalog_exams_and_only_diagnoses_an_examination_establishes(tmp_path):
    assert diagnostic_tests()
    required = required_tests(["C34.90", "I48.91", "I26.99", "I21.4", "N17.9", "C92.00", "I63.40"])
    by_code = {code: set(g["exam_name"]) for (code,), g in required.group_by("primary_icd10")}
    assert by_code["I48.91"] == {"Electrocardiogram"} and by_code["I26.99"] == {"CT chest"}
    assert "CT chest" in by_code["C34.90"]
    # Troponin reaches an infarct, creatinine a kidney injury, the blood count a leukaemia, a sudden
    # focal deficit the block of a stroke.
    assert not {"I21.4", "N17.9", "C92.00", "I63.40"} & set(by_code)
    (tmp_path / "diagnostic_tests.csv").write_text("diagnoses,exams,why\nI26,CT chset,misspelt\n")
    with pytest.raises(DataFileError, match="CT chset"):
        diagnostic_tests(tmp_path)


def test_exam_associations_name_catalog_exams_and_match_code_ranges(tmp_path):
    assert exam_associations()
    pairs = associated_exams(["I21.4", "K85.9"])
    assert {"Troponin I", "Lipase"} <= set(pairs["exam_name"])
    assert pairs.filter(pl.col("exam_name") == "Troponin I")["primary_icd10"].to_list() == ["I21.4"]
    pairs = associated_exams(["J18.9", "J96.01"])
    specific = {(code, exam): s for code, exam, s in pairs.iter_rows()}
    assert specific["J18.9", "Chest X-ray"] and not specific["J18.9", "White blood cell count"]
    spo2 = "Oxygen saturation (pulse oximetry)"
    assert not specific["J18.9", spo2] and specific["J96.01", spo2]  # hypoxaemia defines respiratory failure
    (tmp_path / "exam_associations.csv").write_text("exams,diagnoses,evidence,why\nTroponine,I21,defining,misspelt\n")
    with pytest.raises(DataFileError, match="Troponine"):
        exam_associations(tmp_path)
    (tmp_path / "exam_associations.csv").write_text("exams,diagnoses,evidence,why\nTroponin I,I21,strong,typo\n")
    with pytest.raises(DataFileError, match="evidence"):
        exam_associations(tmp_path)
