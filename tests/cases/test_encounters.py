"""The screening rules of pipelines.cases.encounters, on hand-built MIMIC-IV and SICdb tables."""

import polars as pl
import pytest
from test_skeleton import SICDB_FILES, _stage

import schemas
from pipelines.cases.encounters import NOT_DIAGNOSTIC_FILE, CaseRules, _rule, not_diagnostic_reason, not_diagnostic_rules
from pipelines.cases.skeleton import mimic_skeleton, sicdb_skeleton
from pipelines.config import Settings
from pipelines.datafiles import DataFileError, csv_records
from schemas.staging import MIMIC_IV, SICDB

ADMISSION_COLUMNS = ("subject_id,hadm_id,admittime,dischtime,deathtime,admission_type,admit_provider_id,admission_location,"
                     "discharge_location,insurance,language,marital_status,race,edregtime,edouttime,hospital_expire_flag\n")


def _admission(subject: int, hadm: int, when: str, kind: str = "EW EMER.") -> str:
    return f"{subject},{hadm},{when},{when},,{kind},P1,EMERGENCY ROOM,HOME,Medicare,ENGLISH,MARRIED,WHITE,,,0\n"


# Patient 10: heart failure (secondary diabetes) in 2150, chemotherapy in 2151, heart failure again in
# 2152 (known: I50 coded in 2150), pneumonia in 2153 and 2154, an elective CABG in 2155.
# Patient 11: one admission with acute MI.
FILES = {
    "hosp/patients.csv.gz": "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n"
    "10,F,60,2150,2008 - 2010,\n11,M,45,2160,2014 - 2016,\n",
    "hosp/admissions.csv.gz": ADMISSION_COLUMNS
    + _admission(10, 100, "2150-01-01 10:00:00") + _admission(10, 101, "2151-01-01 10:00:00", "URGENT")
    + _admission(10, 102, "2152-01-01 10:00:00") + _admission(10, 103, "2153-01-01 10:00:00")
    + _admission(10, 104, "2154-01-01 10:00:00") + _admission(10, 105, "2155-01-01 10:00:00", "ELECTIVE")
    + _admission(11, 110, "2160-06-01 08:00:00"),
    "hosp/diagnoses_icd.csv.gz": "subject_id,hadm_id,seq_num,icd_code,icd_version\n"
    "10,100,1,4280,9\n10,100,2,25000,9\n10,101,1,V5811,9\n10,101,2,1749,9\n10,102,1,I5023,10\n"
    "10,103,1,486,9\n10,104,1,J189,10\n10,105,1,I2510,10\n11,110,1,I214,10\n",
    "hosp/d_icd_diagnoses.csv.gz": "icd_code,icd_version,long_title\n4280,9,\"Congestive heart failure, unspecified\"\n",
}


def _parts(tmp_path, rules: CaseRules = CaseRules()):
    return mimic_skeleton(_stage(tmp_path, FILES, MIMIC_IV), "key", "demo", 0.5, None, rules)


def _hadm(parts, frame) -> list[int]:
    ids = dict(parts.provenance.select("case_id", "hadm_id").iter_rows())
    return sorted(ids[c] for c in frame["case_id"])


def _by_hadm(parts, frame, column: str) -> dict[int, object]:
    ids = dict(parts.provenance.select("case_id", "hadm_id").iter_rows())
    return {ids[c]: v for c, v in frame.select("case_id", column).iter_rows()}


def test_chemotherapy_and_planned_admissions_are_excluded_with_their_reason(tmp_path):
    parts = _parts(tmp_path, CaseRules(max_cases_per_patient=0))
    reasons = _by_hadm(parts, parts.exclusions, "reason")
    assert sorted(reasons) == [101, 105]
    assert set(parts.exclusions["stage"]) == {"not_diagnostic"}
    assert "Z51.11 (Encounter for antineoplastic chemotherapy)" in reasons[101]
    assert "admission type ELECTIVE" in reasons[105]
    kept = _parts(tmp_path / "keep", CaseRules(non_diagnostic="keep", max_cases_per_patient=0))
    assert _hadm(kept, kept.skeleton) == [100, 101, 102, 103, 104, 105, 110]


def test_a_repeat_of_an_earlier_coded_category_is_a_known_condition(tmp_path):
    parts = _parts(tmp_path, CaseRules(max_cases_per_patient=0))
    known = _by_hadm(parts, schemas.conform("case_skeleton", parts.skeleton), "known_condition")
    # I50 (4280 in 2150) again in 2152; J18 (486 in 2153) again in 2154; E11 only ever secondary
    assert known == {100: False, 102: True, 103: False, 104: True, 110: False}
    excluded = _parts(tmp_path / "x", CaseRules(known_conditions="exclude", max_cases_per_patient=0))
    assert _hadm(excluded, excluded.skeleton) == [100, 103, 110]
    stages = _by_hadm(excluded, excluded.exclusions, "stage")
    assert sorted(h for h, s in stages.items() if s == "known_condition") == [102, 104]


def test_cases_per_patient_are_capped_new_conditions_and_earliest_first(tmp_path):
    parts = _parts(tmp_path, CaseRules(max_cases_per_patient=2))
    assert _hadm(parts, parts.skeleton) == [100, 103, 110]  # the two new conditions of patient 10
    capped = parts.exclusions.filter(pl.col("stage") == "patient_cap")
    assert _hadm(parts, capped) == [102, 104]
    assert capped["reason"].str.contains("the patient has 4 candidate cases; 2 are kept").all()
    one = _parts(tmp_path / "one", CaseRules(max_cases_per_patient=1))
    assert _hadm(one, one.skeleton) == [100, 110]  # the earliest
    # every admission is accounted for, kept or excluded once
    assert sorted(_hadm(one, one.skeleton) + _hadm(one, one.exclusions)) == [100, 101, 102, 103, 104, 105, 110]


def test_the_label_is_the_cm_title_with_the_source_wording_and_index_time_is_admittime(tmp_path):
    sk = _parts(tmp_path).skeleton
    hf = sk.filter(pl.col("primary_icd10") == "I50.9").row(0, named=True)
    assert hf["diagnosis_name"] == "Heart failure, unspecified"
    assert hf["acceptable_names"] == ["Heart failure, unspecified", "Congestive heart failure, unspecified"]
    assert hf["acceptable_icd10"] == ["I50.9"]
    assert str(hf["index_time"]) == "2150-01-01 10:00:00"


def test_sicdb_stays_of_one_patient_are_ordered_by_offset(tmp_path):
    files = dict(SICDB_FILES)
    files["cases.csv.gz"] = SICDB_FILES["cases.csv.gz"] + (
        "4,500,2015,735,65,80000,180,I21.4,Nicht-ST-Hebungsinfarkt,3600,9000000,,,\n"
        "5,500,2015,735,65,80000,180,Z51.1,Chemotherapie,3600,5000000,,,\n"
    )
    parts = sicdb_skeleton(_stage(tmp_path, files, SICDB), "key", "demo", 0.2)
    sk = schemas.conform("case_skeleton", parts.skeleton)
    by_case = dict(parts.provenance.select("case_id", "CaseID").iter_rows())
    known = {by_case[c]: k for c, k in sk.select("case_id", "known_condition").iter_rows()}
    assert known == {1: False, 2: False, 4: True}  # I21 main diagnosis of the earlier stay 1
    assert sk["index_time"].null_count() == sk.height  # SICdb has offsets, no clock time
    assert {by_case[c]: s for c, s in parts.exclusions.select("case_id", "stage").iter_rows()}[5] == "not_diagnostic"


def test_the_rules_come_from_the_build_settings_and_the_data_file():
    rules = CaseRules.of(Settings.from_values({"home": "/tmp/x", "known_conditions": "exclude",
                                                "max_cases_per_patient": "0", "non_diagnostic": "keep"}))
    assert rules == CaseRules(non_diagnostic="keep", known_conditions="exclude", max_cases_per_patient=0)
    assert CaseRules.of(Settings.from_values({"home": "/tmp/x"})) == CaseRules()
    listed = {(match, value) for match, value, _ in not_diagnostic_rules()}
    assert {("icd10", "Z51"), ("icd10", "Z43"), ("icd10", "Z38"), ("admission_type", "ELECTIVE"),
            ("admission_type", "SURGICAL SAME DAY ADMISSION")} <= listed
    with pytest.raises(ValueError, match="CLINVERSE_KNOWN_CONDITIONS"):
        Settings.from_values({"home": "/tmp/x", "known_conditions": "drop"})


def test_complications_that_arise_in_hospital_are_no_diagnostic_task_but_a_readmission_for_one_is():
    codes = pl.DataFrame({"code": ["J95.851", "I95.81", "K91.61", "T81.40XA", "J18.9", "I97.2"],
                          "title": ["Ventilator associated pneumonia", "Postprocedural hypotension", "Intraop",
                                    "Infection following a procedure", "Pneumonia", "Postmastectomy lymphedema"]})
    reasons = codes.select(not_diagnostic_reason("code", "title")).to_series().to_list()
    assert "mechanical ventilation" in reasons[0] and "follows a procedure" in reasons[1]
    assert "during an operation" in reasons[2]
    assert reasons[3:] == [None, None, None]  # a wound infection brings the patient back; lymphoedema is chronic


@pytest.mark.parametrize("value", ["J95.9X", "Q99.99", "J95.851x"])
def test_a_listed_code_must_exist_in_icd10cm(tmp_path, value):
    (tmp_path / NOT_DIAGNOSTIC_FILE).write_text(f"match,value,why\nicd10,{value},a typo\n")
    record = csv_records(tmp_path, NOT_DIAGNOSTIC_FILE, ("match", "value", "why"))[0]
    with pytest.raises(DataFileError, match="not a dotted ICD-10-CM code"):
        _rule(record)
