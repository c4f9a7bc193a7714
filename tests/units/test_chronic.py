import polars as pl
import pytest

from pipelines.units.chronic import CHRONIC, decide, known_before, with_categories
from pipelines.units.code_ranges import in_range


def _current(code, title=None):
    return decide(code, title, current=True)


def test_chronic_conditions_of_this_admission_are_history():
    assert _current("I10") == ("pmh", "chronic")
    assert _current("E11.9", "Type 2 diabetes mellitus without complications") == ("pmh", "chronic")
    assert _current("N18.3") == ("pmh", "chronic")
    assert _current("F17.210") == ("social", "chronic")


def test_facts_from_before_the_stay_are_history_by_definition():
    assert _current("Z88.0") == ("allergy", "known_on_arrival")
    assert _current("Z91.010") == ("allergy", "known_on_arrival")
    assert _current("Z87.891") == ("social", "known_on_arrival")
    assert _current("Z82.49") == ("family", "known_on_arrival")
    assert _current("Z85.3") == ("pmh", "known_on_arrival")
    assert _current("Z95.5") == ("psh", "known_on_arrival")  # a stent from an earlier procedure


@pytest.mark.parametrize("code", ["Z79.01", "Z79.4", "Z99.11", "Z98.890", "I21.4", "I63.9", "I46.9", "S06.5X0A",
                                  "J18.9", "E43", "R56.9", "D68.9", "G81.91", "G83.10"])
def test_statuses_and_events_the_stay_may_create_are_not_history(code):
    category, rule = _current(code)
    assert category is None and rule in ("same_stay", "not_chronic")


@pytest.mark.parametrize("code", ["Z78.1", "T17.308A", "R74.8", "R79.89", "R94.31", "E87.1", "Z68.41", "Z66",
                                  "W19.XXXA", "Z51.11", "B96.20", "D72.829", "T45.1X5A", "T38.3X6A", "T82.598A",
                                  "T88.7XXA", "E59", "E60", "R29.898", "R68.0", "R68.89"])
def test_stay_descriptions_and_lab_findings_are_never_history(code):
    assert _current(code) == (None, "not_history")
    assert decide(code, None, current=False) == (None, "not_history")


def test_a_transplant_or_an_earlier_injury_stays_history():
    assert decide("T86.11", None, current=False)[1] == "earlier_admission"  # kidney transplant rejection
    assert decide("S72.001A", None, current=False)[1] == "earlier_admission"  # a broken hip


def test_titles_naming_an_event_of_the_stay_are_not_known_on_arrival():
    assert _current("I50.33", "Acute on chronic diastolic (congestive) heart failure") == (None, "acute_title")
    assert _current("K25.4", "Chronic or unspecified gastric ulcer with hemorrhage") == (None, "acute_title")
    assert _current("I50.32", "Chronic diastolic (congestive) heart failure") == ("pmh", "chronic")
    assert _current("N17.9", "Acute kidney failure, unspecified") == (None, "acute_title")


def test_earlier_admissions_give_history_with_its_category():
    assert decide("J18.9", None, current=False) == ("pmh", "earlier_admission")
    assert decide("G81.91", None, current=False) == ("pmh", "earlier_admission")  # an earlier stay's hemiplegia
    assert _current("I69.351") == ("pmh", "chronic")  # hemiplegia left by an earlier stroke
    assert decide("Z79.01", None, current=False) == ("medication", "earlier_admission")
    assert decide("Z98.890", None, current=False) == ("psh", "earlier_admission")
    assert decide(None, None, current=False) == (None, "unmapped")


def test_known_before_separates_conditions_from_episodes():
    assert known_before("E11.9") and known_before("Z85.3")
    assert not known_before("J18.9") and not known_before("I21.4")  # CCI calls MI chronic; it is an event


def test_the_chronic_list_follows_the_cci_at_code_level():
    # whole categories where every code is chronic, single codes where the CCI splits a category
    assert "I10" in CHRONIC and "E11.65" in CHRONIC and "K21.9" in CHRONIC
    assert "I82.501" in CHRONIC and "I82.401" not in CHRONIC  # chronic vs acute deep vein thrombosis
    assert "Z79.01" not in CHRONIC and "J18.9" not in CHRONIC
    assert in_range("Z91.010", "Z91.0", "Z91.0") and not in_range("Z91.19", "Z91.0", "Z91.0")


def test_with_categories_decides_each_pair():
    df = pl.DataFrame({"icd10_code": ["I10", "I50.33", "I10", "N39.0"],
                       "title": ["Hypertension", "Acute on chronic HF", "Hypertension", "Urinary tract infection"]})
    current = with_categories(df, current=True)
    assert current["category"].to_list() == ["pmh", None, "pmh", None]
    assert current["history_rule"].to_list() == ["chronic", "acute_title", "chronic", "not_chronic"]
    assert with_categories(df, current=False)["known"].to_list() == [True, True, True, False]
