"""Information unit candidates from patient-visible sections (pipelines.notes.units)."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from medspacy.target_matcher import TargetRule
from note_texts import CASE_ID, DISCHARGE_NOTE, NEVER_SENTINELS, NOTE_ID, nstemi_cases

import schemas
from pipelines import ids
from pipelines.leakage import find_mentions
from pipelines.notes.lexicon import ENCOUNTER_REASONS, HISTORY_CUES
from pipelines.notes.sections import section_notes
from pipelines.notes.units import (
    ENCOUNTER_RULES,
    HISTORY,
    Event,
    Fact,
    encounter_events,
    note_units,
    split_facts,
    unwrap,
)


@pytest.fixture(scope="module")
def sections(nlp) -> pl.DataFrame:
    return section_notes(pl.DataFrame({"note_id": [NOTE_ID], "text": [DISCHARGE_NOTE]}), nlp=nlp)


@pytest.fixture(scope="module")
def result(sections: pl.DataFrame, nlp) -> tuple[pl.DataFrame, pl.DataFrame]:
    return note_units(sections, nstemi_cases([NOTE_ID]), nlp=nlp)


def _split(nlp, section: str, text: str) -> list[Fact]:
    prepared = unwrap(section, text)
    doc = nlp(prepared, disable=[p for p in nlp.pipe_names if p not in {"sentencizer", "line_break_sentences"}])
    events = encounter_events(doc) if section == "hpi" else []
    return split_facts(section, prepared, [(s.start_char, s.end_char) for s in doc.sents], events)


def _facts(nlp, section: str, text: str) -> list[tuple[str, bool | None]]:
    """The facts kept (text, negation as split_facts decides it)."""
    return [(text[f.start : f.end], f.negated) for f in _split(nlp, section, text) if f.encounter is None]


def _dropped(nlp, text: str) -> list[tuple[str, str]]:
    """The HPI clauses dropped as encounter events: (text, reason)."""
    return [(text[f.start : f.end], f.encounter.split(":")[0]) for f in _split(nlp, "hpi", text) if f.encounter]


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


@pytest.mark.parametrize("text, dropped", [
    ("Pt with chest pain. Labs notable for Na of 122.", [("Labs notable for Na of 122", "result")]),
    ("Tylenol overdose 6 hours ago. NAC started.", [("NAC started", "treatment")]),
    ("MAP remained <65 and norepinephrine started.", [("MAP remained <65 and norepinephrine started", "treatment")]),
    ("Pt with weakness, DOE, found to have iron deficiency anemia.",
     [("found to have iron deficiency anemia", "result")]),
    ("Cough for 3 days. CT showed a RUL mass.", [("CT showed a RUL mass", "result")]),
    ("Given ASA 325 and SL nitro.", [("Given ASA 325 and SL nitro", "treatment")]),
    ("Shortness of breath. In the ED, BP 90/60 and HR 120.", [("In the ED, BP 90/60 and HR 120", "ed_course")]),
    ("TSH undetectable and free T4 elevated on labs.", [("TSH undetectable and free T4 elevated on labs", "result")]),
    ("Foley placed with 200 cc UOP.", [("Foley placed with 200 cc UOP", "procedure")]),
    # the narrative goes on to the end of the sentence, and past a label's line break
    ("Para in ED: PMN 80, no SBP.", [("Para in ED: PMN 80", "ed_course"), ("no SBP", "ed_course")]),
    ("XR:\ndisplaced R femoral neck fx.", [("XR", "result"), ("displaced R femoral neck fx", "result")]),
], ids=["labs-notable", "nac-started", "pressor-started", "found-to-have", "ct-showed", "given", "in-the-ed",
        "tsh-result", "foley-placed", "narrative-to-sentence-end", "label-line"])
def test_hpi_clauses_about_the_encounter_are_dropped(nlp, text: str, dropped: list[tuple[str, str]]) -> None:
    assert _dropped(nlp, text) == dropped


def test_the_patients_history_and_reports_survive_an_encounter_rule(nlp) -> None:
    text = ("Was treated with levofloxacin for pneumonia 2 weeks ago. Recently started on hydrochlorothiazide. "
            "Never intubated. Weakness, found to have anemia, denies melena.")
    assert _dropped(nlp, text) == [("found to have anemia", "result")]
    assert [f for f, _ in _facts(nlp, "hpi", text)] == [
        "Was treated with levofloxacin for pneumonia 2 weeks ago", "Recently started on hydrochlorothiazide",
        "Never intubated", "Weakness", "melena"]
    # the same rules do not run outside the HPI
    assert _facts(nlp, "social", "Labs notable for nothing.") == [("Labs notable for nothing", None)]


def test_encounter_clauses_are_recorded_with_their_reason(nlp) -> None:
    note = ("History of Present Illness:\nShe has 2 days of cough and fever. Labs notable for WBC of 15. "
            "Denies chest pain.\n")
    units, removals = note_units(section_notes(pl.DataFrame({"note_id": ["n1"], "text": [note]}), nlp=nlp),
                                 nstemi_cases(["n1"]), nlp=nlp)
    assert units["text"].to_list() == ["She has 2 days of cough and fever", "no chest pain"]
    assert removals.select("term", "original_snippet", "action").rows() == [
        ("result: Labs notable", "Labs notable for WBC of 15", "dropped_encounter_event")]
    start, end = map(int, removals["source_ref"][0].split(":")[1].split("-"))
    assert note[start:end] == "Labs notable for WBC of 15"
    schemas.conform("leakage_removals", removals)


def test_a_lab_result_word_is_no_negation(nlp) -> None:
    """"free" in "free T4" and "without" in "without relief" negate nothing (ConText PSEUDO rules)."""
    note = ("History of Present Illness:\nThyroid results showed TSH undetectable and free T4 elevated. "
            "Using albuterol every 2 hours without relief. Denies fever.\n")
    doc_units, _ = note_units(section_notes(pl.DataFrame({"note_id": ["n1"], "text": [note]}), nlp=nlp),
                              nstemi_cases(["n1"]), nlp=nlp)
    assert doc_units.select("text", "negated").rows() == [
        ("Using albuterol every 2 hours without relief", False), ("no fever", True)]
    facts = _split(nlp, "ros", "TSH undetectable and free T4 elevated")
    doc = nlp("TSH undetectable and free T4 elevated")
    doc.ents = [doc.char_span(facts[0].start, facts[0].end, label="FACT")]
    nlp.get_pipe("medspacy_context")(doc)
    assert doc.ents[0]._.is_negated is False


def test_scrubbing_the_diagnosis_keeps_the_symptom(nlp) -> None:
    note = ("Chief Complaint:\nWitnessed seizure\n\nHistory of Present Illness:\nPt had a witnessed generalized "
            "tonic-clonic seizure at home lasting 2 minutes. Known epilepsy on levetiracetam.\n")
    cases = pl.DataFrame({"note_id": ["n1"], "case_id": [CASE_ID], "diagnosis_name": ["Epilepsy"],
                          "acceptable_names": [["Seizure disorder"]], "primary_icd10": ["G40.909"],
                          "icd10_title": ["Epilepsy, unspecified, not intractable, without status epilepticus"]})
    units, removals = note_units(section_notes(pl.DataFrame({"note_id": ["n1"], "text": [note]}), nlp=nlp),
                                 cases, nlp=nlp)
    assert units["text"].to_list() == ["Witnessed seizure",
                                       "patient had a witnessed generalized tonic-clonic seizure at home lasting 2 minutes"]
    assert removals.select("term", "action").rows() == [("Epilepsy", "dropped_unit")]


def test_encounter_events_are_what_a_medspacy_target_matcher_of_the_rules_finds(nlp, sections):
    """Matches inside a token (``IV\\ntPA``, ``Hgb of 5.5``, ``Prior admission\\nfor``) are widened to
    the tokens they touch, overlapping rules all kept, events in text order with their reasons."""
    matcher = nlp.add_pipe("medspacy_target_matcher", name="reference_encounters",
                           config={"result_type": "group", "span_group_name": "reference", "prune": False})
    try:
        matcher.add([TargetRule(r.name, r.name, pattern=p) for r in ENCOUNTER_REASONS for p in r.patterns]
                    + [TargetRule("history cue", HISTORY, pattern=p) for p in HISTORY_CUES])
        texts = [*sections.filter(pl.col("section") == "hpi")["text"],
                 "Received IV\ntPA at ___. Given lasix 40 IV in ED with 1L UOP; CIWA >20 in ED, got IV lorazepam x3.",
                 "Sent in by his\nPCP for Hgb of 5.5 on routine labs. Prior admission\nfor DTs 2 years ago.",
                 "In the ED, initial vitals: T 98. Upon arrival to the floor, c/s by GI. EMS gave ASA en route.", ""]
        for text in texts:
            doc = nlp.make_doc(text)
            with warnings.catch_warnings():  # regex rules only: spaCy warns that the token matcher is empty
                warnings.simplefilter("ignore", UserWarning)
                matcher(doc)
            reference = sorted((Event(s.start_char, s.end_char, s.label_, s.text) for s in doc.spans["reference"]),
                               key=lambda e: (e.start, e.end))
            assert encounter_events(doc) == reference, text
        widened = [m.group() for text in texts[-4:-1] for pattern, _ in ENCOUNTER_RULES for m in pattern.finditer(text)
                   if nlp.make_doc(text).char_span(*m.span()) is None]
        assert "IV\nt" in widened and "Hgb of 5" in widened  # the widening is exercised
    finally:
        nlp.remove_pipe("reference_encounters")
