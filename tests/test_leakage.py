"""Diagnosis leakage primitives (pipelines.leakage)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from pipelines import leakage
from pipelines.content.leakage_audit import audit as independent_audit
from pipelines.content.leakage_audit import detector
from pipelines.leakage import (
    AUDIT_COLUMNS,
    audit_frame,
    diagnosis_terms,
    find_mentions,
    has_content,
    normalise,
    scrub,
    synonym_groups,
)

NSTEMI = diagnosis_terms("NSTEMI", ["Non-ST elevation myocardial infarction"], "I21.4",
                         "Non-ST elevation (NSTEMI) myocardial infarction")
CHF = diagnosis_terms("Acute on chronic diastolic heart failure", [], "I50.33",
                      "Acute on chronic diastolic (congestive) heart failure")
PE = diagnosis_terms("Pulmonary embolism", [], "I26.99", "Other pulmonary embolism without acute cor pulmonale")


def _found(text: str, terms: list[str]) -> list[str]:
    return [m.surface for m in find_mentions(text, terms)]


def test_normalise_folds_case_punctuation_hyphens_and_accents() -> None:
    assert normalise("Crohn\u2019s  Disease\u2014M\u00e9ni\u00e8re's, a-fib / I50.23") == "crohns disease menieres a fib i50 23"
    assert normalise(None) == ""
    assert normalise("  NON-ST-Elevation   MI. ") == "non st elevation mi"


def test_accent_folding_maps_every_kept_character_back_to_its_place() -> None:
    """ASCII runs stay in place; an accented letter loses its mark, a ligature becomes two letters of
    one place, a lone combining mark goes, and a mention found in the folded text is the original's."""
    assert leakage._accent_map("na\u00efve \ufb01x 38 \u00b0C e\u0301") == (
        "naive fix 38 \u00b0C e", [0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
    assert leakage._accent_map("") == ("", [])
    assert _found("Known M\u00e9ni\u00e8re's disease, 38 \u00b0C.", ["Meniere's disease"]) == [
        "M\u00e9ni\u00e8re's disease"]


def test_terms_cover_names_title_code_and_synonyms() -> None:
    for term in ("NSTEMI", "Non-ST elevation myocardial infarction", "myocardial infarction", "MI", "heart attack",
                 "STEMI", "acute coronary syndrome", "I21.4", "I214"):
        assert term in NSTEMI, term
    # simplified ICD title: parentheses dropped, qualifiers removed, synonym group by code
    for term in ("Acute on chronic diastolic heart failure", "diastolic heart failure", "heart failure", "CHF",
                 "HFpEF", "I50.33", "I5033"):
        assert term in CHF, term
    assert "pulmonary embolism without acute cor pulmonale" in PE and "PE" in PE
    assert diagnosis_terms("NSTEMI", ["x"], "I21.4", None) == diagnosis_terms("NSTEMI", ["x"], "I21.4", None)


def test_terms_never_hide_generic_words() -> None:
    terms = {t.lower() for t in diagnosis_terms("Sepsis, unspecified organism", [], "A41.9", "Sepsis, unspecified organism")}
    assert {"sepsis", "septic shock", "a41.9"} <= terms
    assert not terms & {"unspecified", "organism", "other", "disease", "acute"}
    assert diagnosis_terms(None, None, None, None) == []


def test_synonym_table_covers_the_common_diagnoses() -> None:
    terms = {t for g in synonym_groups() for t in g.terms}
    for term in ("MI", "STEMI", "NSTEMI", "heart attack", "CHF", "HF", "heart failure", "AF", "afib", "PE", "DVT",
                 "CAP", "pneumonia", "COPD", "DKA", "UTI", "AKI", "ARF", "CVA", "stroke", "SAH", "GIB", "UGIB", "SBO",
                 "pancreatitis", "appendicitis", "cholecystitis", "sepsis", "cellulitis"):
        assert term in terms, term
    assert all(g.icd10_prefixes and g.terms for g in synonym_groups())


def test_find_mentions_variants_and_original_spans() -> None:
    text = "h/o CHF. Prior heart-failure admits; 2 MIs; non ST-elevation myocardial infarctions; I21.4 / I214; HEART ATTACK."
    hits = find_mentions(text, NSTEMI + CHF)
    assert [m.surface for m in hits] == ["CHF", "heart-failure", "MIs", "non ST-elevation myocardial infarctions",
                                         "I21.4", "I214", "HEART ATTACK"]
    assert all(text[m.start : m.end] == m.surface for m in hits)
    assert hits[3].term == "Non-ST elevation myocardial infarction"  # the longest term wins


def test_find_mentions_whole_words_plurals_and_case_rules() -> None:
    assert _found("two PEs and a saddle embolus", PE) == ["PEs", "saddle embolus"]
    assert _found("pe, ope, PEEP, typed", PE) == []  # short upper-case abbreviations only match upper case
    assert _found("afib with RVR; a-fib; A. fib", diagnosis_terms("Atrial fibrillation", [], "I48.91", None)) == [
        "afib", "RVR", "a-fib", "A. fib"]
    assert _found("wears a cap; CAP treated", diagnosis_terms("Pneumonia", [], "J18.9", None)) == ["CAP"]
    assert _found("pancreatic", diagnosis_terms("Acute pancreatitis", [], "K85.9", None)) == []
    assert _found("Crohn's disease flare", diagnosis_terms("Crohns disease", [], None, None)) == ["Crohn's disease"]
    assert _found("M\u00e9ni\u00e8re disease", ["Meniere disease"]) == ["M\u00e9ni\u00e8re disease"]
    assert find_mentions("", NSTEMI) == [] and find_mentions(None, NSTEMI) == [] and find_mentions("MI", []) == []


def test_find_mentions_finds_what_the_whole_alternation_of_terms_finds() -> None:
    """A text is matched with each term's own pattern, for the terms whose start it holds only, and
    only where that start occurs: the mentions, their spans and the term behind each are those one
    alternation of the case's whole set of terms finds (plurals, -ies, case rules, terms inside or
    overlapping others, a term that overlaps itself, a start inside a word or repeated)."""
    terms = (NSTEMI + CHF + PE + diagnosis_terms("Kidney stones", ["Nephrolithiasis"], "N20.0", "Calculus of kidney")
             + ["stone kidney", "failure", "failure failure", "heart"])
    texts = ["h/o CHF. Prior heart-failure admits; 2 MIs; non ST-elevation myocardial infarctions; I21.4 / I214",
             "two PEs, kidney stone x2, nephrolithiases; chf (lower case) and Heart Failures",
             "calculi of kidney? pulmonary emboli; HEART ATTACK; stones", "nothing here at all",
             "kidney stone kidney stone kidney; failure failure failure; heart heart failure failures",
             "preheart failure; heartheart failure, heart  failure; kidneystone kidney\nstones; MIMI mi MI, STEMIs",
             # beyond ASCII: units and degrees keep the start screen; a letter the regex matches with
             # case ignored (dotless i, long s) sends the text to every term's regex
             "38 \u00b0C, creatinine 90 \u00b5mol/L; heart failure \u00b7 kidney stone", "k\u0131dney stone; \u017ftones"]
    for text in texts:
        whole = []
        for ordered in leakage._modes(tuple(terms)):
            groups = "|".join(f"({leakage._term_regex(t)})" for t in ordered)
            flags = 0 if leakage._case_sensitive(ordered[0]) else re.IGNORECASE
            alternation = re.compile(rf"(?<![^\W_])(?:{groups})(?![^\W_])", flags)
            whole += [(m.start(), m.end(), ordered[m.lastindex - 1]) for m in alternation.finditer(text)]
        whole.sort(key=lambda m: (m[0], -(m[1] - m[0])))
        kept: list[tuple[int, int, str]] = []
        for m in whole:
            if not kept or m[0] >= kept[-1][1]:
                kept.append(m)
        assert [(m.start, m.end, m.term) for m in find_mentions(text, terms)] == kept, text
        # Whether there is any mention, decided by the first match: with the whole set, and with each
        # term alone (most of which the text does not hold), a term that folds to nothing included.
        for subset in [terms, *([term] for term in [*terms, "--"])]:
            assert leakage.mentions_any(text, subset) == bool(find_mentions(text, subset)), (text, subset)
    assert not leakage.mentions_any("", terms) and not leakage.mentions_any(None, terms)
    assert not leakage.mentions_any("heart failure", [])


def test_start_screen_holds_beyond_ascii_unless_a_letter_folds_to_ascii() -> None:
    assert leakage._lowers_in_place("38 \u00b0C, 90 \u00b5mol/L \u2013 \u03bc \u00b7 plain")
    for text in ("k\u0131dney", "\u017ftones", "\u0130stanbul", "\u212a"):  # ı, ſ, İ (lowers to two), Kelvin
        assert not leakage._lowers_in_place(text), text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Chest pain concerning for NSTEMI and SOB", "Chest pain and SOB"),
        ("History of CHF and HTN, presents with dyspnea", "HTN, presents with dyspnea"),
        ("CHF exacerbation", ""),
        ("HTN, CHF, DM", "HTN, DM"),
        ("Dyspnea. Found to have acute on chronic diastolic heart failure. Legs swollen.", "Dyspnea. Legs swollen."),
        ("No chest pain.", "No chest pain."),
        ("T 101.2, exam c/w CHF; legs swollen", "T 101.2, exam; legs swollen"),
    ],
)
def test_scrub_removes_the_clause(text: str, expected: str) -> None:
    out, mentions = scrub(text, NSTEMI + CHF)
    assert out == expected
    assert find_mentions(out, NSTEMI + CHF) == []
    assert all(m.removed is not None and m.removed[0] <= m.start < m.end <= m.removed[1] for m in mentions)
    assert bool(mentions) == (text != expected)


def test_scrub_records_what_it_removed_and_can_replace() -> None:
    out, mentions = scrub("Father died of heart attack at 55", NSTEMI)
    assert out == "" and not has_content(out)
    assert [(m.term, m.surface, m.removed) for m in mentions] == [("heart attack", "heart attack", (0, 33))]
    replaced, mentions = scrub("She has pneumonia and a PE.", PE, replacement="a condition")
    assert replaced == "She has pneumonia and a a condition."
    assert [m.surface for m in mentions] == ["PE"]
    assert scrub(None, NSTEMI) == ("", [])


def test_has_content() -> None:
    assert has_content("fever")
    assert not has_content("history of, and ___")
    assert not has_content(" 12 , ")


def test_audit_frame_finds_hits_per_case() -> None:
    other = "c_ffffffffffffffff"
    df = pl.DataFrame(
        {
            "case_id": ["c_0123456789abcdef", other, "c_0123456789abcdef"],
            "text": ["chest pain", "history of MI", "no STEMI on EKG"],
            "names": [["fever"], ["heart attack"], ["old NSTEMI"]],
        }
    )
    hits = audit_frame(df, ["text", "names"], {"c_0123456789abcdef": NSTEMI, other: PE})
    assert hits.schema == pl.Schema(AUDIT_COLUMNS)
    assert hits.select("column", "term").rows() == [("text", "STEMI"), ("names", "NSTEMI")]
    assert "no STEMI on EKG" in hits["snippet"][0]
    clean = audit_frame(df.head(1), ["text"], {"c_0123456789abcdef": NSTEMI})
    assert clean.is_empty() and clean.columns == list(AUDIT_COLUMNS)


def test_scrub_leaves_no_stranded_title_or_bare_parenthetical():
    terms = ["COPD"]
    assert scrub("Mr. ___ is a ___ y/o M with h/o COPD on 2L home O2, HFrEF (EF 30%)", terms)[0] == "HFrEF (EF 30%)"
    assert scrub("COPD (FEV1 0.9L)", terms)[0] == "FEV1 0.9L"
    assert scrub("Mr. Smith has HFrEF, COPD", terms)[0] == "Mr. Smith has HFrEF"


EPILEPSY = diagnosis_terms("Epilepsy with breakthrough seizure", ["seizure", "Generalized tonic-clonic seizure"],
                           "G40.909", "Epilepsy, unspecified, not intractable, without status epilepticus")


def test_scrubbing_a_diagnosis_keeps_the_symptom_that_shares_its_word() -> None:
    # "seizure" is reportable for epilepsy (leakage_synonyms.csv), even as an acceptable name
    assert not {"seizure", "seizures", "generalized tonic-clonic seizure"} & {t.lower() for t in EPILEPSY}
    assert {"epilepsy", "seizure disorder", "status epilepticus", "G40.909"} <= set(EPILEPSY)
    kept, mentions = scrub("Pt had a witnessed generalized tonic-clonic seizure at home; known epilepsy", EPILEPSY)
    assert kept == "Pt had a witnessed generalized tonic-clonic seizure at home"
    assert [m.term for m in mentions] == ["epilepsy"]
    assert scrub("history of seizure disorder", EPILEPSY)[0] == ""


def test_a_symptom_that_is_the_coded_diagnosis_stays_a_term() -> None:
    # R56: the convulsion is the diagnosis; a name bringing in the epilepsy group takes nothing back
    convulsions = diagnosis_terms("Unspecified convulsions", ["Epilepsy"], "R56.9", "Unspecified convulsions")
    assert {"seizure", "convulsion", "epilepsy"} <= {t.lower() for t in convulsions}
    assert scrub("witnessed seizure at home", convulsions)[0] == ""


def test_syncope_cases_scrub_the_patients_words_for_fainting() -> None:
    # R55: "fainting" is an ICD-10-CM index name of the code, so the independent audit flags it
    syncope = diagnosis_terms("Syncope and collapse", [], "R55", "Syncope and collapse")
    assert scrub("concern for fainting", syncope)[0] == ""
    assert scrub("She passed out at church", syncope)[0] == ""


def test_reportable_words_are_never_a_groups_own_terms() -> None:
    for group in synonym_groups():
        assert not {normalise(t) for t in group.reportable} & {normalise(t) for t in group.terms}, group.group


# ------------------------------------------------------------------ the independent detector

def test_the_detector_builds_its_names_from_icd10cm_not_from_the_scrubber() -> None:
    found = detector("I50.23")
    assert {"heart failure", "systolic heart failure", "heart failure with reduced ejection fraction"} <= set(found.forms)
    assert {"CHF", "HFrEF"} <= set(found.abbreviations)
    # the category's siblings are other conditions: N39.0 does not look for N39.3 stress incontinence
    assert "urinary tract infection" in detector("N39.0").forms
    assert not [f for f in detector("N39.0").forms if "incontinence" in f]
    assert "seizure disorder" in detector("G40.909").forms and "seizure" not in detector("G40.909").forms
    assert detector("U99.9").forms == ()  # a code ICD-10-CM does not know has no names


@pytest.mark.parametrize("code, text, names", [
    ("I50.23", "History of congestive heart failure.", ["heart failure"]),
    ("I50.23", "h/o CHF, EF 25%", ["CHF"]),
    ("I50.23", "Heart-failure admissions twice", ["heart failure"]),
    ("E11.9", "Takes metformin for type 2 diabetes mellitus", ["type 2 diabetes mellitus"]),
    ("E11.9", "chf", []),  # another code's abbreviation, and lower case
    ("D50.9", "Ferrous sulfate for her iron-deficiency anaemia", []),  # British spelling is not in ICD-10-CM
    ("D50.9", "told she had iron deficiency anemia", ["iron deficiency anemia"]),
    ("G40.909", "Pt had a witnessed generalized tonic-clonic seizure", []),
    ("G40.909", "Known epilepsy on levetiracetam", ["epilepsy"]),
    ("J18.9", "Cough for 3 days; CAP last year", ["CAP"]),
    ("J18.9", "Fever and capsules", []),
])
def test_the_detector_matches_whole_words(code: str, text: str, names: list[str]) -> None:
    assert detector(code).find(text) == names


def test_the_independent_audit_reports_every_case_with_the_text() -> None:
    texts = pl.DataFrame({"case_id": ["a", "b", "c"], "text": ["known CHF", "known CHF", "cough"]})
    codes = pl.DataFrame({"case_id": ["a", "b", "c"], "primary_icd10": ["I50.23", "J18.9", "I50.23"]})
    hits = independent_audit(texts, ["text"], codes)
    assert hits.rows() == [("a", "text", "CHF", "known CHF")]


@pytest.mark.parametrize("name, code, title, text", [
    # found by the independent audit in generated builds of 1,000 and 5,000 admissions
    ("Pulmonary embolism", "I26.99", "Other pulmonary embolism without acute cor pulmonale",
     "transferred from ___ with pulmonary thromboembolism"),
    ("Thyrotoxicosis with diffuse goiter without thyrotoxic crisis or storm", "E05.00",
     "Thyrotoxicosis with diffuse goiter without thyrotoxic crisis or storm", "admitted with toxic diffuse goiter"),
    ("Iron deficiency anemia secondary to blood loss (chronic)", "D50.0",
     "Iron deficiency anemia secondary to blood loss (chronic)", "transferred from ___ with iron deficiency anemia"),
    ("Chronic obstructive pulmonary disease with (acute) exacerbation", "J44.1",
     "Chronic obstructive pulmonary disease with (acute) exacerbation", "history of Hypertension, Asthma"),
])
def test_what_the_independent_detector_finds_the_scrubber_removes(name, code, title, text) -> None:
    assert detector(code).find(text)  # ICD-10-CM names it (asthma with COPD is coded J44)
    terms = diagnosis_terms(name, [], code, title)
    assert find_mentions(text, terms)
    assert not detector(code).find(scrub(text, terms)[0])
