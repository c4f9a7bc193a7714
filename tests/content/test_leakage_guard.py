import polars as pl

from pipelines.content.leakage_guard import audit, case_terms, hits_per_source, scrub_column
from pipelines.units.publish import guard

SKELETON = pl.DataFrame({
    "case_id": ["c_hf", "c_pna", "c_hf2"],
    "source": ["mimic_iv", "mimic_iv", "sicdb"],
    "diagnosis_name": ["Congestive heart failure, unspecified", "Pneumonia, unspecified organism",
                       "Congestive heart failure, unspecified"],
    "acceptable_names": [["Heart failure, unspecified"], [], ["Heart failure, unspecified"]],
    "primary_icd10": ["I50.9", "J18.9", "I50.9"],
    "acceptable_icd10": [["I50.9"], ["J18.9"], ["I50.9"]],
})


def test_cases_sharing_a_diagnosis_share_terms():
    terms = case_terms(SKELETON)
    keys = dict(terms.cases.iter_rows())
    assert keys["c_hf"] == keys["c_hf2"] != keys["c_pna"]
    assert "heart failure" in [t.lower() for t in terms.terms[keys["c_hf"]]]


def test_the_titles_of_every_acceptable_code_are_terms():
    """ICD-9 25012 maps to E11.10 and E11.65 (GEM targets): either title names the diagnosis."""
    skeleton = pl.DataFrame({"case_id": ["c_dka"], "source": ["mimic_iv"],
                             "diagnosis_name": ["Type 2 diabetes mellitus with ketoacidosis without coma"],
                             "acceptable_names": [[]], "primary_icd10": ["E11.10"],
                             "acceptable_icd10": [["E11.10", "E11.65"]]})
    terms = case_terms(skeleton)
    (listed,) = terms.terms.values()
    assert "type 2 diabetes mellitus with hyperglycemia" in [t.lower() for t in listed]
    units = pl.DataFrame({"case_id": ["c_dka"], "text": ["Type 2 diabetes mellitus with hyperglycemia"],
                          "producer": ["mimic_structured"], "source_ref": ["dx:1"]})
    kept, removals = guard(units, terms)
    assert kept.height == 0 and removals["action"].to_list() == ["dropped_unit"]


def test_free_text_is_scrubbed_and_coded_titles_are_dropped():
    units = pl.DataFrame({
        "case_id": ["c_hf", "c_hf", "c_pna", "c_hf"],
        "text": ["Chest pain, CHF exacerbation", "Hypertensive heart disease with heart failure",
                 "Hypertensive heart disease with heart failure", "Essential (primary) hypertension"],
        "producer": ["mimic_notes", "mimic_structured", "mimic_structured", "mimic_structured"],
        "source_ref": ["n1:0-30", "dx:1", "dx:1", "dx:2"],
    })
    kept, removals = guard(units, case_terms(SKELETON))
    assert kept["text"].to_list() == ["Chest pain", "Hypertensive heart disease with heart failure",
                                      "Essential (primary) hypertension"]
    assert kept["case_id"].to_list() == ["c_hf", "c_pna", "c_hf"]
    assert sorted(removals["action"]) == ["dropped_unit", "removed_clause"]


def test_audit_counts_hits_per_source():
    terms = case_terms(SKELETON)
    table = pl.DataFrame({"case_id": ["c_hf", "c_hf2", "c_pna"], "presentation": [
        "A man with heart failure.", "A woman with CHF.", "A man with heart failure."]})
    hits = audit(table, ["presentation"], terms)
    assert sorted(hits["case_id"]) == ["c_hf", "c_hf2"]
    assert hits_per_source(hits, SKELETON.select("case_id", "source")) == {"mimic_iv": 1, "sicdb": 1}
    clean = scrub_column(table, "presentation", terms)
    assert clean.filter(pl.col("case_id") == "c_pna")["leak_terms"].to_list() == [None]
