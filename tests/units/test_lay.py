import polars as pl

from pipelines.datafiles import csv_records
from pipelines.units.code_ranges import code_range, in_range
from pipelines.units.lay import generic, render, simplify, with_lay_text


def test_common_conditions_are_said_as_a_patient_says_them():
    assert render("E11.9", "Type 2 diabetes mellitus without complications", known=True) == "I have type 2 diabetes"
    assert render("I10", "Essential (primary) hypertension", known=True) == "I have high blood pressure"
    assert render("Z79.01", "Long term (current) use of anticoagulants", known=False) == "I take a blood thinner"
    assert render("Z88.0", "Allergy status to penicillin", known=True) == "I am allergic to penicillin"
    assert render("J18.9", "Pneumonia, unspecified organism", known=False) == "I had pneumonia before"


def test_specific_rows_win_over_general_ones():
    assert render("Z86.73", "Personal history of TIA", known=True) == "I had a mini-stroke or stroke before"
    assert render("Z86.718", "Personal history of other venous thrombosis", known=True) == "I had blood clots before"
    assert render("E10.9", "Type 1 diabetes mellitus without complications", known=True) == "I have type 1 diabetes"


def test_the_generic_rendering_strips_qualifiers():
    assert simplify("Hypertrophy of breast, unspecified") == "hypertrophy of breast"
    assert simplify("Atherosclerotic heart disease of native coronary artery without angina pectoris") == \
        "atherosclerotic heart disease of native coronary artery"
    assert simplify("Human immunodeficiency virus [HIV] disease") == "human immunodeficiency virus disease"
    assert simplify("Other specified hypothyroidism") == "hypothyroidism"
    assert simplify("Pain in right knee") == "pain in knee"
    assert simplify("Left ventricular failure, unspecified") == "left ventricular failure"
    assert simplify("COVID-19") == "COVID-19"


def test_the_generic_rendering_says_known_conditions_in_the_present_and_episodes_in_the_past():
    assert generic("Barrett's esophagus without dysplasia", known=True) == "I was told I have Barrett's esophagus"
    assert generic("Atelectasis", known=False) == "I was treated for atelectasis before"
    assert generic("Personal history of poliomyelitis", known=True) == "I had poliomyelitis before"
    assert generic("Family history of glaucoma", known=True) == "Someone in my family had glaucoma"


def test_no_row_of_lay_terms_is_hidden_by_an_earlier_one():
    records = csv_records("pipelines.units", "lay_terms.csv", ("first", "last", "text"))
    rows = [(r.line, *code_range(r)) for r in records]
    for i, (line, first, last) in enumerate(rows):
        for earlier_line, a, b in rows[:i]:
            assert not (in_range(first, a, b) and in_range(last, a, b)), \
                f"lay_terms.csv line {line} ({first}-{last}) can never match: line {earlier_line} ({a}-{b}) holds it"


def test_with_lay_text_renders_each_code_and_leaves_unmapped_ones_empty():
    df = pl.DataFrame({"icd10_code": ["E11.9", "Z79.4", None], "icd10_title": [
        "Type 2 diabetes mellitus without complications", "Long term (current) use of insulin", None],
        "known": [True, False, False]})
    assert with_lay_text(df)["lay_text"].to_list() == ["I have type 2 diabetes", "I take insulin", None]
