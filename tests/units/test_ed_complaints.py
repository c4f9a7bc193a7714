"""Triage chief complaints: shorthand said in the patient's words, items that name the diagnosis left
out (by ICD-10 prefix, by the scrubber's terms, by the index-name detector), one unit per item."""

import re

import duckdb
import polars as pl
import pytest

from pipelines.units import ed
from pipelines.units.ed_complaints import expand, vocabulary


def _said(cc: str) -> list[tuple[str, str]]:
    return [(c.lay, c.kind) for c in expand(cc)]


@pytest.mark.parametrize(("cc", "said"), [
    ("SOB", [("shortness of breath", "complaint")]),
    ("Abd pain, n/v/d", [("belly pain", "complaint"), ("nausea, vomiting and diarrhea", "complaint")]),
    ("S/P FALL", [("a fall", "complaint")]),
    ("LETHARGY/SOB", [("sleepiness", "complaint"), ("shortness of breath", "complaint")]),
    ("R Leg pain, ETOH", [("right leg pain", "complaint"), ("drinking alcohol", "condition")]),
    ("Chest pain, Transfer", [("chest pain", "complaint"), ("sent from another hospital", "referral")]),
    ("HEAD BLEED", [("bleeding in the head", "condition")]),
    ("CP, HA", [("chest pain", "complaint"), ("headache", "complaint")]),
    ("SI", [("thoughts of suicide", "complaint")]),
    ("DIARRHEA,FEVER", [("diarrhea", "complaint"), ("fever", "complaint")]),
    ("UNKNOWN-CC", [("", "none")]),
    ("Toe  pain ", [("toe pain", "complaint")]),  # plain words: lower-cased, spaces folded
    ("L Leg PNA", [("left leg pneumonia", "condition")]),  # word by word, a condition word makes a condition
    ("", []),
])
def test_shorthand_is_said_in_the_patients_words(cc, said):
    assert _said(cc) == said


def test_the_guard_sees_the_clinical_expansion_and_the_icd_prefixes():
    (bleed,) = expand("HEAD BLEED")
    assert bleed.clinical == "intracranial hemorrhage" and "I61" in bleed.icd10
    assert expand("s/p cardiac arrest")[0].icd10 == ("I46",)


def test_every_item_of_the_real_ed_demo_is_covered(mimic_ed_demo_dir):
    """An item in capitals, or holding a capitalised abbreviation or a slash, is listed whole or made of
    listed words; a mixed-case item may otherwise only hold plain words."""
    items, words = vocabulary()
    with duckdb.connect() as con:
        complaints = [r[0] for r in con.execute(
            f"SELECT DISTINCT chiefcomplaint FROM read_csv('{mimic_ed_demo_dir / 'ed/triage.csv.gz'}')").fetchall()]
    uncovered = []
    for cc in complaints:
        for c in expand(cc):
            key = " ".join(c.raw.upper().split())
            if key in items:
                continue
            shorthand = [t for t in c.raw.split() if "/" in t or (t.isupper() and len(t) <= 5) or c.raw.isupper()]
            if any(t.upper() not in words for t in shorthand if not re.fullmatch(r"[A-Z][a-z]+|[a-z]+", t)):
                uncovered.append(c.raw)
    assert uncovered == []


SKELETON = pl.DataFrame({
    "case_id": ["c_000000000000000a", "c_000000000000000b", "c_000000000000000c"],
    "diagnosis_name": ["Nontraumatic intracerebral hemorrhage, unspecified", "Pneumonia, unspecified organism",
                       "Urinary tract infection, site not specified"],
    "acceptable_names": [[], [], []],
    "primary_icd10": ["I61.9", "J18.9", "N39.0"],
    "acceptable_icd10": [["I61.9"], ["J18.9"], ["N39.0", "N30.00"]],
})


def _guarded(complaints: dict[str, str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    triage = pl.DataFrame({"case_id": list(complaints), "chiefcomplaint": list(complaints.values())})
    return ed.guard_items(ed.complaint_items(triage), SKELETON)


def test_items_that_name_the_diagnosis_never_reach_the_patient():
    kept, removals = _guarded({"c_000000000000000a": "HEAD BLEED, Headache, Transfer",
                               "c_000000000000000b": "Cough, PNA, Pneumonia",
                               "c_000000000000000c": "Dysuria, UTI"})
    assert dict(kept.group_by("case_id", maintain_order=True).agg("raw").iter_rows()) == {
        "c_000000000000000a": ["Headache", "Transfer"], "c_000000000000000b": ["Cough"],
        "c_000000000000000c": ["Dysuria"]}
    terms = dict(zip(removals["original_snippet"], removals["term"]))
    assert terms["HEAD BLEED"] == "names I61.9" and terms["PNA"] == "names J18.9"  # by the ICD-10 prefixes
    assert "names" not in terms["Pneumonia"]  # plain words, no prefix: the text guards
    assert terms["UTI"] == "names N39.0"
    assert set(removals["action"]) == {"dropped_unit"}
    assert removals["source_ref"].str.starts_with("ed_triage:chiefcomplaint:").all()


def test_a_complaint_naming_another_condition_is_kept():
    kept, removals = _guarded({"c_000000000000000b": "HEAD BLEED", "c_000000000000000a": "PNA"})
    assert sorted(kept["raw"]) == ["HEAD BLEED", "PNA"] and removals.is_empty()


def test_each_item_is_one_unit_complaints_disclosed_a_transfer_hidden_history():
    kept, _ = _guarded({"c_000000000000000c": "Fever, Transfer, UNKNOWN-CC"})
    units = ed.complaint_units(kept)
    assert units.select("category", "text", "disclosed").rows() == [
        ("chief_complaint", "Fever", True), ("hpi", "Sent from another hospital", False)]
    assert units["source_ref"].to_list() == ["ed_triage:chiefcomplaint:0", "ed_triage:chiefcomplaint:1"]
