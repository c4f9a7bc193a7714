import gzip
from pathlib import Path

import polars as pl

import schemas
from pipelines.cases.skeleton import mimic_skeleton, sicdb_skeleton
from pipelines.sources.csv_tables import stage_csv
from pipelines.warehouse import Warehouse
from schemas.staging import MIMIC_IV, SICDB

FILES = {
    "hosp/patients.csv.gz": "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n"
    "10,F,60,2150,2008 - 2010,\n11,M,45,2160,2014 - 2016,\n",
    "hosp/admissions.csv.gz": "subject_id,hadm_id,admittime,dischtime,deathtime,admission_type,admit_provider_id,"
    "admission_location,discharge_location,insurance,language,marital_status,race,edregtime,edouttime,hospital_expire_flag\n"
    "10,100,2152-01-01 10:00:00,2152-01-05 10:00:00,,EW EMER.,P1,EMERGENCY ROOM,HOME,Medicare,ENGLISH,MARRIED,WHITE,,,0\n"
    "10,101,2153-03-01 10:00:00,2153-03-04 10:00:00,,URGENT,P1,PHYSICIAN REFERRAL,HOME,Medicare,ENGLISH,MARRIED,WHITE,,,0\n"
    "11,102,2160-06-01 08:00:00,2160-06-02 08:00:00,,ELECTIVE,P2,PHYSICIAN REFERRAL,HOME,Other,ENGLISH,SINGLE,ASIAN,,,0\n"
    "12,103,2160-06-01 08:00:00,2160-06-02 08:00:00,,ELECTIVE,P2,PHYSICIAN REFERRAL,HOME,Other,ENGLISH,SINGLE,ASIAN,,,0\n",
    "hosp/diagnoses_icd.csv.gz": "subject_id,hadm_id,seq_num,icd_code,icd_version\n"
    "10,100,1,4280,9\n10,100,2,25000,9\n10,100,3,4019,9\n10,101,1,I214,10\n10,101,2,E119,10\n10,101,2,E119,10\n"
    "11,102,2,I10,10\n",
    "hosp/d_icd_diagnoses.csv.gz": "icd_code,icd_version,long_title\n4280,9,\"Congestive heart failure, unspecified\"\n"
    "I214,10,Non-ST elevation (NSTEMI) myocardial infarction\n",
}


def _stage(root: Path, files: dict[str, str], specs) -> Warehouse:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(root / name, "wt") as fh:
            fh.write(text)
    wh = Warehouse(root / "wh")
    for spec in specs:
        if (root / spec.file).exists():
            stage_csv(spec, root, wh)
    return wh


def test_mimic_skeleton_maps_both_icd_versions_and_excludes_with_reasons(tmp_path):
    wh = _stage(tmp_path, FILES, MIMIC_IV)
    parts = mimic_skeleton(wh, "key", "demo", 0.5)
    sk = schemas.conform("case_skeleton", parts.skeleton)
    assert sk.height == 2
    by_code = {r["primary_icd10"]: r for r in sk.iter_rows(named=True)}
    assert by_code["I50.9"]["icd_origin"].startswith("icd9_gem")
    assert by_code["I50.9"]["primary_icd10_block"] == "I30-I5A"
    assert by_code["I50.9"]["age"] == 62 and by_code["I50.9"]["sex"] == "F"
    assert by_code["I50.9"]["secondary_icd10"] == ["E11.9", "I10"]
    assert by_code["I21.4"]["icd_origin"] == "icd10" and by_code["I21.4"]["secondary_icd10"] == ["E11.9"]
    assert "Congestive heart failure, unspecified" in by_code["I50.9"]["acceptable_names"]
    reasons = sorted(parts.exclusions["reason"].to_list())
    assert reasons == ["no diagnoses_icd row with seq_num = 1", "subject_id has no row in hosp/patients"]
    # every admission is accounted for, and provenance alone holds the raw keys
    assert parts.provenance.height == 4
    assert set(parts.provenance["hadm_id"]) == {100, 101, 102, 103}


def test_case_ids_are_keyed_stable_and_reveal_no_source_key(tmp_path):
    wh = _stage(tmp_path, FILES, MIMIC_IV)
    a = mimic_skeleton(wh, "key", "demo", 0.5).skeleton
    b = mimic_skeleton(wh, "key", "demo", 0.5).skeleton
    other = mimic_skeleton(wh, "another-key", "demo", 0.5).skeleton
    assert a["case_id"].to_list() == b["case_id"].to_list()
    assert set(a["case_id"]).isdisjoint(other["case_id"])
    assert not any(str(h) in cid for cid in a["case_id"] for h in (100, 101, 10))


def test_split_is_per_patient(tmp_path):
    wh = _stage(tmp_path, FILES, MIMIC_IV)
    for fraction in (0.0, 0.3, 0.7, 1.0):
        sk = mimic_skeleton(wh, "key", "demo", fraction).skeleton
        assert sk.group_by("patient_key").agg(pl.col("split").n_unique())["split"].max() == 1
    assert set(mimic_skeleton(wh, "key", "demo", 1.0).skeleton["split"]) == {"test"}


SICDB_FILES = {
    "cases.csv.gz": "CaseID,PatientID,AdmissionYear,Sex,AgeOnAdmission,WeightOnAdmission,HeightOnAdmission,ICD10Main,"
    "ICD10MainText,TimeOfStay,OffsetAfterFirstAdmission,OffsetOfDeath,ReferringUnit,SurgicalSite\n"
    "1,500,2015,735,65,80000,180,I21.0,Akuter transmuraler Myokardinfarkt der Vorderwand,86400,0,,,2250\n"
    "2,501,2016,736,70,0,165,E11.90,Diabetes mellitus Typ 2,3600,0,,3041,2250\n"
    "3,502,2017,736,55,60000,160,C19.x1,kaputt,3600,0,,,\n",
    "d_references.csv.gz": "ReferenceGlobalID,ReferenceValue,ReferenceName,ReferenceUnit\n735,männlich,Sex,\n736,weiblich,Sex,\n",
    "laboratory.csv.gz": "CaseID,LaboratoryID,Offset,LaboratoryValue,LaboratoryType\n1,10,600,1.2,1\n",
}


def test_sicdb_skeleton_reads_sex_references_and_matches_gm_at_category(tmp_path):
    wh = _stage(tmp_path, SICDB_FILES, SICDB)
    parts = sicdb_skeleton(wh, "key", "demo", 0.2)
    sk = schemas.conform("case_skeleton", parts.skeleton)
    assert sk.select("sex", "primary_icd10_category").rows() == [("M", "I21"), ("F", "E11")]
    assert set(sk["icd_origin"]) == {"icd10_gm"}
    assert parts.exclusions["reason"].item().startswith("ICD10Main C19.x1")
    assert parts.exclusions["stage"].item() == "icd_normalisation"


def test_an_unmappable_code_is_excluded_or_rejected_with_its_reason_never_shortened(tmp_path):
    files = dict(FILES)
    files["hosp/diagnoses_icd.csv.gz"] = ("subject_id,hadm_id,seq_num,icd_code,icd_version\n"
                                          "10,100,1,Z999999,10\n10,101,1,I214,10\n10,101,2,I2149,10\n10,101,3,E119,10\n")
    parts = mimic_skeleton(_stage(tmp_path, files, MIMIC_IV), "key", "demo", 0.5)
    assert parts.skeleton["primary_icd10"].to_list() == ["I21.4"]
    assert parts.skeleton["secondary_icd10"].to_list() == [["E11.9"]]
    reason = parts.exclusions.filter(pl.col("reason").str.contains("Z999999"))["reason"].item()
    assert "not an ICD-10-CM code" in reason
    rejected = schemas.conform("rejects", parts.rejects)
    assert rejected["raw"].to_list() == ["I2149,10"] and rejected["table"].to_list() == ["mimic_diagnoses_icd"]
    assert "left out of the case" in rejected["reason"].item() and "I21.49" in rejected["reason"].item()
