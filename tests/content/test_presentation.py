from datetime import datetime

import polars as pl

from pipelines.content.presentation import compose, mimic_presentations, person, sicdb_presentations


def test_person_wording():
    assert person(67, "M") == "A 67-year-old man"
    assert person(80, "F") == "An 80-year-old woman"
    assert person(11, "F") == "An 11-year-old girl"
    assert person(None, None) == "An adult patient"


def test_chief_complaint_wins_over_the_admission_route():
    assert compose(54, "F", ["Chest pain", "SOB"], "EW EMER.", "EMERGENCY ROOM") == \
        "A 54-year-old woman presenting with chest pain and SOB."
    assert compose(54, "F", [], "EW EMER.", "EMERGENCY ROOM") == \
        "A 54-year-old woman admitted as an emergency through the emergency department."
    assert compose(54, "F", [], "SOMETHING NEW", None) == "A 54-year-old woman admitted to hospital."


def test_a_complaint_in_the_patients_words_is_told_of_the_patient():
    assert compose(47, "M", ["my heart stopping"]) == "A 47-year-old man presenting with his heart stopping."
    assert compose(89, "F", ["My breathing stopping", "needing more of my medication"]) == \
        "An 89-year-old woman presenting with her breathing stopping and needing more of her medication."
    assert compose(None, None, ["a problem with my IV line"]) == \
        "An adult patient presenting with a problem with their IV line."
    assert compose(60, "F", ["Myalgia", "mycoplasma exposure"]) == \
        "A 60-year-old woman presenting with myalgia and mycoplasma exposure."  # words, not letters
    assert compose(30, "M", ["type I diabetes"]) == "A 30-year-old man presenting with type I diabetes."


def test_presentations_per_source():
    cases = pl.DataFrame({"case_id": ["c_1", "c_2"], "age": [70, 40], "sex": ["M", "F"],
                          "admission_type": ["URGENT", "ELECTIVE"],
                          "admission_location": ["TRANSFER FROM HOSPITAL", "PHYSICIAN REFERRAL"],
                          "admittime": [datetime(2150, 1, 1)] * 2})
    complaints = pl.DataFrame({"case_id": ["c_2", "c_2"], "text": ["Fever", "cough"]})
    out = dict(mimic_presentations(cases, complaints).iter_rows())
    assert out == {"c_1": "A 70-year-old man admitted urgently on transfer from another hospital.",
                   "c_2": "A 40-year-old woman presenting with fever and cough."}
    icu = sicdb_presentations(pl.DataFrame({"case_id": ["c_3"], "age": [65], "sex": ["F"]}))
    assert icu["presentation"].to_list() == ["A 65-year-old woman admitted to the intensive care unit."]
