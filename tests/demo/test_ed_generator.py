"""The demo's MIMIC-IV-ED module: the real module's headers, ED stays of the admissions that came
through the ED (linked by hadm_id, registered before admission), a triage complaint of the
admission's disease, vital signs, reconciled home medications; deterministic, and the other tables
do not depend on it."""

from __future__ import annotations

import csv
import gzip
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from pipelines.demo import generate_demo
from pipelines.demo.diseases import DISEASES
from pipelines.demo.mimic_ed import ED_HEADERS
from schemas.staging import MIMIC_ED

N = 120


def _dicts(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ed-demo")
    generate_demo(out, admissions=N, seed=0)
    return out


def ed(demo: Path, table: str) -> list[dict[str, str]]:
    return _dicts(demo / "mimic-iv-ed" / "ed" / f"{table}.csv.gz")


def test_headers_are_the_publishers(demo, mimic_ed_demo_dir):
    for name in ED_HEADERS:
        with gzip.open(mimic_ed_demo_dir / name.removeprefix("mimic-iv-ed/"), "rt") as real, \
                gzip.open(demo / name, "rt") as ours:
            assert ours.readline() == real.readline(), name


def test_every_staging_column_is_written():
    for spec in MIMIC_ED:
        assert set(spec.columns) <= set(ED_HEADERS[f"mimic-iv-ed/{spec.file}"]), spec.table


def test_ed_admissions_have_their_stay_registered_before_admission(demo):
    admissions = {a["hadm_id"]: a for a in _dicts(demo / "mimic-iv/hosp/admissions.csv.gz")}
    through_ed = {h for h, a in admissions.items() if a["edregtime"]}
    stays = ed(demo, "edstays")
    admitted = {s["hadm_id"]: s for s in stays if s["disposition"] == "ADMITTED"}
    assert set(admitted) == through_ed and len(through_ed) > N // 3
    for hadm, stay in admitted.items():
        a = admissions[hadm]
        assert stay["intime"] == a["edregtime"] and _time(stay["intime"]) < _time(a["admittime"])
        assert stay["subject_id"] == a["subject_id"]
    assert any(s["hadm_id"] == "" for s in stays)  # visits sent home, as in the real module


def test_triage_complaint_is_one_of_the_admissions_disease(demo):
    codes = {(d.code.icd10_nodot, "10"): d for d in DISEASES} | {(d.code.icd9_nodot, "9"): d for d in DISEASES}
    primary = {r["hadm_id"]: codes[(r["icd_code"], r["icd_version"])]
               for r in _dicts(demo / "mimic-iv/hosp/diagnoses_icd.csv.gz") if r["seq_num"] == "1"}
    stay_of = {s["stay_id"]: s["hadm_id"] for s in ed(demo, "edstays") if s["disposition"] == "ADMITTED"}
    checked = 0
    for row in ed(demo, "triage"):
        if row["stay_id"] not in stay_of:
            continue
        said = row["chiefcomplaint"].removesuffix(", Transfer").removesuffix(", TRANSFER").lower()
        options = [c.lower() for c in primary[stay_of[row["stay_id"]]].chief_complaints]
        assert any(said == o or ("{" in o and said.split()[-1] == o.split()[-1]) for o in options), said
        checked += 1
    assert checked == len(stay_of)


def test_vitals_medications_and_traps(demo):
    triage = ed(demo, "triage")
    assert sum(1 for t in triage if t["heartrate"]) > 0.9 * len(triage)
    vitals = ed(demo, "vitalsign")
    assert len(vitals) >= len(triage)
    pains = Counter(v["pain"] for v in vitals + triage)
    assert any(not p.isdigit() and p for p in pains)  # "unable", "asleep": no score
    medrecon = ed(demo, "medrecon")
    assert medrecon and any(m["name"].startswith("*") or m["etcdescription"].startswith("Medical Suppl")
                            for m in medrecon)
    diagnosis = ed(demo, "diagnosis")
    assert {d["seq_num"] for d in diagnosis} >= {"1"}


def test_same_seed_same_bytes(demo, tmp_path):
    generate_demo(tmp_path, admissions=N, seed=0)
    for name in ED_HEADERS:
        assert (tmp_path / name).read_bytes() == (demo / name).read_bytes(), name


def test_the_other_tables_do_not_depend_on_the_ed_module(demo, tmp_path, monkeypatch):
    from pipelines.demo import mimic_ed

    monkeypatch.setattr(mimic_ed.EdWriter, "admission", lambda self, visit: None)
    generate_demo(tmp_path, admissions=N, seed=0)
    others = [p.relative_to(demo) for p in demo.rglob("*.gz") if "mimic-iv-ed" not in p.parts]
    assert others and all((tmp_path / p).read_bytes() == (demo / p).read_bytes() for p in others)
    triage = "mimic-iv-ed/ed/triage.csv.gz"
    assert (tmp_path / triage).read_bytes() != (demo / triage).read_bytes()
