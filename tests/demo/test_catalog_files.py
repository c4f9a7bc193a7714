"""The demo generator's data files (pipelines/demo/data): they load, every reference resolves, and a
damaged copy fails with an error that names the file, the record and the field."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

import pipelines.demo
from pipelines.datafiles import DataFileError
from pipelines.demo import mimic, sicdb
from pipelines.demo.catalog import DISEASE_FILES, catalog, load_catalog
from pipelines.demo.diseases import CXR_NORMAL, DISEASES, DNR, HX_TOBACCO
from pipelines.demo.reference import (
    CHART_ITEMS,
    DAILY_PANELS,
    SIC_DISCHARGE_ALIVE,
    SIC_DISCHARGE_DEAD,
    SIC_HOSP_DECEASED,
    SIC_HOSP_HOME,
    SIC_HOSP_TRANSFER,
    SIC_SEPSIS_NO,
    SIC_SEPSIS_YES,
    SIC_SEX_FEMALE,
    SIC_SEX_MALE,
)

DATA = Path(pipelines.demo.__file__).parent / "data"


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(DATA, root)
    return root


def test_packaged_catalogs_load_once():
    c = catalog()
    assert catalog() is c
    assert len(c.diseases) >= 30 and c.diseases == DISEASES
    assert c.lab_items and c.drugs and c.comorbidities and c.imaging and c.codes and c.sic_labs


def test_a_copy_loads_to_the_same_catalog(data_copy):
    assert load_catalog(data_copy) == catalog()


def test_every_reference_resolves():
    c = catalog()
    imaging = list(c.imaging.values())
    for d in c.diseases:
        assert all(img in imaging for img in d.imaging), d.key
        assert set(d.labs) | set(d.ua) <= set(c.lab_items), d.key
        assert set(d.vitals) == set(c.normal_vitals), d.key
        assert set(d.panels) <= set(c.panels), d.key
        assert set(d.admission_meds) | set(d.discharge_meds) <= set(c.drugs), d.key
        assert {k for k, _ in d.comorbidities} <= set(c.comorbidities), d.key
        assert {k for k, _ in d.procedures} <= set(c.procedures), d.key
        assert {s for s, _, _ in d.micro} <= set(c.specimens), d.key
        assert {o for _, o, _ in d.micro if o} <= set(c.organisms), d.key
        assert {q.kind for q in d.medqa} <= set(c.medqa.question_stems), d.key
        assert {s for s, _ in d.exam} <= set(c.notes.exam_order), d.key
        assert d.admission_type in c.population.admission_locations, d.key
    for com in c.comorbidities.values():
        assert set(com.home_meds) <= set(c.drugs) and set(com.baseline_labs) <= set(c.lab_items), com.key
    assert set(c.susceptibility) <= set(c.organisms)
    assert set(c.medqa.labs) <= set(c.lab_items)
    assert set(c.medqa.imaging_phrases) <= {img.exam_code for img in imaging}
    assert {lab.mimic_itemid for lab in c.sic_labs} <= set(c.lab_items)
    sites = {row[0] for row in c.sic_references if row[2] == "SurgicalSite"}
    assert {dx.surgical_site for dx in c.sic_diagnoses if dx.surgical_site} <= sites


def test_keys_named_in_code_exist():
    c = catalog()
    diseases = {d.key for d in c.diseases}
    assert mimic.RIGHT_SIDED <= diseases and sicdb._SEPSIS_KEYS <= diseases
    assert set(DAILY_PANELS) <= set(c.panels)
    assert {"hr", "sbp", "dbp", "map", "rr", "temp", "spo2", "glucose_fs"} <= set(CHART_ITEMS)
    assert "mech_vent" in c.procedures and "norepinephrine" in c.drugs and "morbid_obesity" in c.comorbidities
    ids = {row[0] for row in c.sic_references}
    assert {SIC_SEX_MALE, SIC_SEX_FEMALE, SIC_DISCHARGE_ALIVE, SIC_DISCHARGE_DEAD, SIC_HOSP_DECEASED, SIC_HOSP_HOME,
            SIC_HOSP_TRANSFER, SIC_SEPSIS_YES, SIC_SEPSIS_NO, 2219, 2250} <= ids


def test_every_code_and_imaging_study_is_used():
    c = catalog()
    used_codes = [code for d in c.diseases for code in [d.history_code, *(x for x, _ in d.associated)]]
    for key, code in c.codes.items():
        assert code in used_codes or code in (HX_TOBACCO, DNR), f"codes.yaml: {key} is not used"
    used_imaging = [img for d in c.diseases for img in d.imaging] + [CXR_NORMAL]
    for key, img in c.imaging.items():
        assert img in used_imaging, f"imaging.yaml: {key} is not used"


def test_csv_comment_blocks_describe_every_column():
    for path in sorted(DATA.glob("*.csv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        comment = "\n".join(line for line in lines if line.startswith("#"))
        header = next(line for line in lines if not line.startswith("#"))
        assert lines[0].startswith("# "), path.name
        for column in header.split(","):
            assert re.search(rf"\b{re.escape(column)}\b", comment), f"{path.name}: column {column} not described"


# ------------------------------------------------------------------------------------ damage


def _edit_yaml(root: Path, name: str, edit) -> None:
    path = root / name
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _edit_text(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (name, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _set(*keys_and_value):
    *keys, last, value = keys_and_value

    def edit(data):
        for k in keys:
            data = data[k]
        data[last] = value
    return edit


def _drop(*keys):
    *keys, last = keys

    def edit(data):
        for k in keys:
            data = data[k]
        del data[last]
    return edit


YAML_DAMAGE = [
    # (file, edit, record, field, what the message says)
    ("diseases/cardio.yaml", _drop("stemi", "name"), "disease 'stemi'", "name", "missing"),
    ("diseases/pulm_id.yaml", _set("cap", "imaging", ["cxr_pnx"]), "disease 'cap'", "imaging",
     "unknown imaging study 'cxr_pnx'; use one defined in imaging.yaml"),
    ("diseases/cardio.yaml", _set("stemi", "code", "icd10", "I2109"), "disease 'stemi'", "code.icd10",
     "'I2109' is not well-formed: dotted ICD-10-CM"),
    ("diseases/cardio.yaml", _set("stemi", "code", "icd9", 410.11), "disease 'stemi'", "code.icd9",
     "quote it in YAML"),
    ("diseases/gi.yaml", _set("pancreatitis", "gm", "code", "K8.5"), "disease 'pancreatitis'", "gm.code",
     "not well-formed"),
    ("diseases/cardio.yaml", _set("stemi", "labs", {"tropo": [1.6, 0.9, "log"]}), "disease 'stemi'", "labs",
     "unknown lab item 'tropo'; use one defined in lab_items.csv"),
    ("diseases/cardio.yaml", _set("stemi", "labs", {"trop": [1.6, "log"]}), "disease 'stemi'", "labs",
     "expected [mean, sd] or [median, sigma, log]"),
    ("diseases/cardio.yaml", _set("nstemi", "comorbidities", {"hypertension": 0.7}), "disease 'nstemi'",
     "comorbidities", "unknown comorbidity 'hypertension'; use one defined in comorbidities.yaml"),
    ("diseases/cardio.yaml", _set("nstemi", "associated", {"cad": 1.5}), "disease 'nstemi'", "associated",
     "expected a probability"),
    ("diseases/cardio.yaml", _set("stemi", "history", "code", "old_mii"), "disease 'stemi'", "history.code",
     "unknown code 'old_mii'"),
    ("diseases/cardio.yaml", _set("stemi", "medqa", "questions", 0, "kind", "diagnosis"), "disease 'stemi'",
     "medqa.questions[0].kind", "unknown question kind 'diagnosis'"),
    ("diseases/cardio.yaml", _set("stemi", "exam", {"Heart": ["RRR"]}), "disease 'stemi'", "exam",
     "unknown exam system 'Heart'; use one defined in notes.yaml"),
    ("diseases/cardio.yaml", _set("stemi", "synonym", ["STEMI"]), "disease 'stemi'", "synonym", "unknown field"),
    ("diseases/pulm_id.yaml", _set("sepsis", "micro", 0, "organism", "e_coli"), "disease 'sepsis'",
     "micro[0].organism", "unknown organism 'e_coli'; use one defined in organisms.csv"),
    ("comorbidities.yaml", _set("htn", "home_meds", ["lisinoprill"]), "comorbidity 'htn'", "home_meds",
     "unknown drug 'lisinoprill'; use one defined in drugs.csv"),
    ("diseases/cardio.yaml", _set("afib_rvr", "code", "title9", "Atrial fibrillation (AF)"), "disease 'afib_rvr'",
     "code.title9", "ICD-9 427.31 is titled 'Atrial fibrillation' in "),
    ("codes.yaml", _set("old_mi", "icd9", "4122"), "code 'old_mi'", "icd9", "not well-formed"),
    ("imaging.yaml", _drop("cxr_pna", "findings"), "imaging study 'cxr_pna'", "findings", "missing"),
    ("notes.yaml", _set("exam_systems", "CV", "labels", ["CV:"]), "notes phrases", "exam_systems.CV.labels",
     "expected 4 labels"),
]


@pytest.mark.parametrize(("name", "edit", "record", "field", "says"), YAML_DAMAGE,
                         ids=[f"{d[0]}:{d[3]}" for d in YAML_DAMAGE])
def test_damaged_yaml_names_file_record_and_field(data_copy, name, edit, record, field, says):
    _edit_yaml(data_copy, name, edit)
    with pytest.raises(DataFileError) as err:
        load_catalog(data_copy)
    e = err.value
    assert Path(e.file) == data_copy / name and (e.record, e.field) == (record, field), str(e)
    assert str(data_copy / name) in str(e) and record in str(e) and repr(field) in str(e)
    assert says in str(e)


def test_duplicate_yaml_key(data_copy):
    _edit_text(data_copy, "codes.yaml", "\nhx_pe:\n", "\nold_mi:\n")
    with pytest.raises(DataFileError, match=r"codes\.yaml.*duplicate key 'old_mi'"):
        load_catalog(data_copy)


def test_duplicate_disease_key_across_files(data_copy):
    _edit_yaml(data_copy, "diseases/other.yaml", lambda data: data.update(
        stemi=yaml.safe_load((data_copy / "diseases/cardio.yaml").read_text(encoding="utf-8"))["stemi"]))
    with pytest.raises(DataFileError) as err:
        load_catalog(data_copy)
    assert err.value.record == "disease 'stemi'" and "already used in diseases/cardio.yaml" in str(err.value)


CSV_DAMAGE = [
    # (file, old text, new text, record, field, what the message says)
    ("lab_items.csv", "\ntrop,51003,", "\ntrop,5100x,", "key 'trop'", "itemid", "expected a number"),
    ("lab_items.csv", ",0,0.01,,,0.005,", ",0.01,0,,,0.005,", "key 'trop'", "ref_upper", "reversed"),
    ("drugs.csv", "\naspirin,Aspirin,", "\naspirin,,", "key 'aspirin'", "drug", "missing"),
    ("procedures.csv", "\npci,3607,", "\npci,36.07,", "key 'pci'", "icd9", "not well-formed"),
    ("sicdb_labs.csv", ",2160-0,cr,", ",2160-0,creatinine,", "lab_id '367'", "mimic_lab",
     "unknown lab item 'creatinine'; use one defined in lab_items.csv"),
    ("sicdb_diagnoses.csv", ",Aortenklappenstenose,2231,", ",Aortenklappenstenose,2232,", "icd10_gm 'I35.0'",
     "surgical_site", "unknown surgical site 2232"),
    ("susceptibility.csv", "\nsaureus,90007,", "\nstaph,90007,", "organism 'staph'", "organism",
     "unknown organism 'staph'"),
    ("medqa_labs.csv", "\nhgb,Hemoglobin,g/dL,1,hematology", "\nhgb,Hemoglobin,g/dL,1,blood",
     "lab 'hgb'", "section", "'blood' is not one of hematology, serum, blood_gas, other"),
]


@pytest.mark.parametrize(("name", "old", "new", "record", "field", "says"), CSV_DAMAGE,
                         ids=[f"{d[0]}:{d[4]}" for d in CSV_DAMAGE])
def test_damaged_csv_names_file_row_and_column(data_copy, name, old, new, record, field, says):
    _edit_text(data_copy, name, old, new)
    with pytest.raises(DataFileError) as err:
        load_catalog(data_copy)
    e = err.value
    assert Path(e.file) == data_copy / name and e.record.startswith(record + " (line ") and e.field == field, str(e)
    assert says in str(e)


def test_csv_header_must_list_the_columns(data_copy):
    _edit_text(data_copy, "organisms.csv", "\nkey,org_itemid,org_name\n", "\nkey,org_id,org_name\n")
    with pytest.raises(DataFileError, match=r"organisms\.csv: line \d+: the header row is .*expected the columns"):
        load_catalog(data_copy)


def test_disease_files_exist_in_the_listed_order():
    assert sorted(DISEASE_FILES) == sorted(f"diseases/{p.name}" for p in (DATA / "diseases").glob("*.yaml"))


def test_csv_row_with_a_stray_comma(data_copy):
    _edit_text(data_copy, "specimens.csv", "\nblood,70012,", "\nblood,70012,,")
    with pytest.raises(DataFileError, match=r"specimens\.csv: key 'blood' \(line \d+\): 6 cells, expected 5"):
        load_catalog(data_copy)
