"""Information unit candidates from patient-visible sections (pipelines.notes.units)."""

from __future__ import annotations

import polars as pl
import pytest
from note_texts import CASE_ID, DISCHARGE_NOTE, NEVER_SENTINELS, NOTE_ID, nstemi_cases

import schemas
from pipelines import ids
from pipelines.leakage import find_mentions
from pipelines.notes.sections import section_notes
from pipelines.notes.units import note_units, split_facts, unwrap


@pytest.fixture(scope="module")
def sections(nlp) -> pl.DataFrame:
    return section_notes(pl.DataFrame({"note_id": [NOTE_ID], "text": [DISCHARGE_NOTE]}), nlp=nlp)


@pytest.fixture(scope="module")
def result(sections: pl.DataFrame, nlp) -> tuple[pl.DataFrame, pl.DataFrame]:
    return note_units(sections, nstemi_cases([NOTE_ID]), nlp=nlp)


def _facts(nlp, section: str, text: str) -> list[tuple[str, bool | None]]:
    prepared = unwrap(section, text)
    doc = nlp(prepared, disable=[p for p in nlp.pipe_names if p not in {"sentencizer", "line_break_sentences"}])
    return [(text[f.start : f.end], f.negated) for f in split_facts(section, prepared, [(s.start_char, s.end_char)
                                                                                           for s in doc.sents])]


def _texts(units: pl.DataFrame, category: str) -> list[str]:
    return units.filter(pl.col("category") == category)["text"].to_list()


def test_units_by_category(result: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    units, _ = result
    assert _texts(units, "chief_complaint") == ["Chest pain", "shortness of breath"]
    hpi = _texts(units, "hpi")
    for fact in ("chest pain", "shortness of breath for 2 days", "no fever", "nausea", "diaphoresis",
                 "no recent travel"):
        assert fact in hpi, fact
    assert _texts(units, "pmh") == ["hypertension", "hyperlipidemia", "Type 2 diabetes mellitus, diet controlled"]
    assert _texts(units, "medication") == ["Metformin 500 mg by mouth twice daily", "Lisinopril 10 mg by mouth daily"]
    assert _texts(units, "allergy") == ["allergic to Penicillins", "allergic to Codeine"]
    assert _texts(units, "social") == ["Lives with her husband", "Former smoker, quit ___ years ago", "no Illicits"]
    assert _texts(units, "family") == ["Mother with breast cancer"]


def test_disclosure_ordinals_and_schema(result: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    units, _ = result
    assert units.filter(pl.col("disclosed"))["category"].unique().to_list() == ["chief_complaint"]
    assert units["ordinal"].to_list() == list(range(units.height))
    assert units["category"].unique(maintain_order=True).to_list() == [
        "chief_complaint", "hpi", "pmh", "medication", "allergy", "social", "family"]
    schemas.conform("information_units", units.with_columns(pl.lit("supporting").alias("importance")))


def test_source_refs_point_at_the_fact(result: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    units, _ = result
    for ref, text in units.select("source_ref", "text").iter_rows():
        note_id, span = ref.split(":")
        start, end = map(int, span.split("-"))
        assert note_id == NOTE_ID
        surface = DISCHARGE_NOTE[start:end]
        assert surface and surface.strip() == surface
    refs = dict(zip(units["text"], units["source_ref"]))
    start, end = map(int, refs["shortness of breath for 2 days"].split(":")[1].split("-"))
    assert DISCHARGE_NOTE[start:end] == "SOB x2\ndays"


def test_hospital_events_and_never_sections_stay_out(result: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    units, _ = result
    joined = " ".join(units["text"])
    for sentinel in NEVER_SENTINELS:
        assert sentinel.lower() not in joined.lower(), sentinel
    assert "initial vitals" not in joined and "98.6" not in joined  # ED course


def test_diagnosis_scrubbed_and_recorded(result: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    units, removals = result
    terms = nstemi_cases([NOTE_ID]).row(0, named=True)
    from pipelines.leakage import diagnosis_terms

    hidden = diagnosis_terms(terms["diagnosis_name"], terms["acceptable_names"], terms["primary_icd10"],
                             terms["icd10_title"])
    assert all(not find_mentions(t, hidden) for t in units["text"])
    assert removals.select("case_id", "term", "original_snippet", "action").rows() == [
        (CASE_ID, "heart attack", "Father died of heart attack at 55", "dropped_unit")]
    start, end = map(int, removals["source_ref"][0].split(":")[1].split("-"))
    assert DISCHARGE_NOTE[start:end] == "Father died of heart attack at 55"
    schemas.conform("leakage_removals", removals)


def test_partial_scrub_keeps_the_rest(nlp) -> None:
    note = "Chief Complaint:\nchest pain concerning for NSTEMI\n\nHistory of Present Illness:\nDenies MI or fever.\n"
    units, removals = note_units(section_notes(pl.DataFrame({"note_id": ["n1"], "text": [note]}), nlp=nlp),
                                 nstemi_cases(["n1"]), nlp=nlp)
    assert units.select("category", "text", "negated").rows() == [
        ("chief_complaint", "chest pain", False), ("hpi", "no fever", True)]
    assert removals.select("term", "action").rows() == [("NSTEMI", "removed_clause"), ("MI", "dropped_unit")]


def test_negation_from_context(nlp) -> None:
    facts = dict(_facts(nlp, "hpi", "She denies chest pain. Reports cough but no fever. Negative for chills, sweats."))
    assert facts == {"chest pain": None, "cough": None, "fever": None, "chills": None, "sweats": None}
    note = "History of Present Illness:\nShe denies chest pain. Reports cough but no fever. Negative for chills, sweats.\n"
    units, _ = note_units(section_notes(pl.DataFrame({"note_id": ["n1"], "text": [note]}), nlp=nlp),
                          nstemi_cases(["n1"]), nlp=nlp)
    assert units.select("text", "negated").rows() == [
        ("no chest pain", True), ("cough", False), ("no fever", True), ("no chills", True), ("no sweats", True)]


def test_atomic_splitting(nlp) -> None:
    assert [f for f, _ in _facts(nlp, "hpi", "Pt c/o CP and SOB x2 days, denies fever")] == ["CP", "SOB x2 days", "fever"]
    assert [f for f, _ in _facts(nlp, "social", "Lives with wife and son. Tobacco: never.")] == ["Lives with wife and son",
                                                                                            "Tobacco"]
    assert [f for f, _ in _facts(nlp, "family", "Mother with hypertension and diabetes.")] == [
        "Mother with hypertension and diabetes"]
    assert [f for f, _ in _facts(nlp, "pmh", "1. CAD s/p CABG\n2. HTN, HLD\n3. COPD on 2L home\n   oxygen")] == [
        "CAD s/p CABG", "HTN", "HLD", "COPD on 2L home\n   oxygen"]
    assert _facts(nlp, "allergies", "Patient recorded as having No Known Allergies to Drugs") == [
        ("Patient recorded as having No Known Allergies to Drugs", True)]
    assert [f for f, _ in _facts(nlp, "hpi", "___ year-old F p/w fever. Lipase 1570 in the ED. EKG with TWI.")] == [
        "fever"]
    assert _facts(nlp, "ros", "10-point ROS otherwise negative.") == []


def test_unit_ids_are_stable(result: tuple[pl.DataFrame, pl.DataFrame], sections: pl.DataFrame, nlp) -> None:
    units, _ = result
    again, _ = note_units(sections, nstemi_cases([NOTE_ID]), nlp=nlp)
    assert again.equals(units)
    for case_id, unit_id, ref, text in units.select("case_id", "unit_id", "source_ref", "text").iter_rows():
        assert unit_id == ids.unit_id(case_id, "note", ref, text)
    assert units["unit_id"].n_unique() == units.height


def test_only_mapped_notes_and_patient_sections(sections: pl.DataFrame, nlp) -> None:
    units, removals = note_units(sections, nstemi_cases(["some-other-note"]), nlp=nlp)
    assert units.is_empty() and removals.is_empty()
    assert units.columns == ["case_id", "unit_id", "ordinal", "category", "text", "negated", "disclosed", "source_ref"]
