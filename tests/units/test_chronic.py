import polars as pl

from pipelines.units.chronic import chronic_category, history_category, with_categories


def test_chronic_conditions_of_this_admission_are_history():
    assert chronic_category("I10", "Essential (primary) hypertension") == "pmh"
    assert chronic_category("E11.9", "Type 2 diabetes mellitus without complications") == "pmh"
    assert chronic_category("Z88.0", "Allergy status to penicillin") == "allergy"
    assert chronic_category("Z91.010", "Allergy to peanuts") == "allergy"
    assert chronic_category("F17.210", "Nicotine dependence, cigarettes, uncomplicated") == "social"
    assert chronic_category("Z87.891", "Personal history of nicotine dependence") == "social"
    assert chronic_category("Z79.4", "Long term (current) use of insulin") == "medication"
    assert chronic_category("Z82.49", "Family history of ischemic heart disease") == "family"


def test_acute_and_non_chronic_codes_are_not_history():
    assert chronic_category("I50.33", "Acute on chronic diastolic (congestive) heart failure") is None
    assert chronic_category("I50.32", "Chronic diastolic (congestive) heart failure") == "pmh"
    assert chronic_category("J18.9", "Pneumonia, unspecified organism") is None
    assert chronic_category("N17.9", "Acute kidney failure, unspecified") is None
    assert chronic_category(None, None) is None


def test_earlier_admissions_default_to_pmh_but_not_stay_codes():
    assert history_category("J18.9") == "pmh"
    assert history_category("Z88.1") == "allergy"
    assert history_category("W19.XXXA") is None  # external cause
    assert history_category("Z51.11") is None  # encounter for chemotherapy
    assert history_category("Z66") is None  # DNR status


def test_with_categories_decides_each_pair():
    df = pl.DataFrame({"icd10_code": ["I10", "I50.33", "I10"], "title": ["Hypertension", "Acute on chronic HF", "Hypertension"]})
    assert with_categories(df, current=True)["category"].to_list() == ["pmh", None, "pmh"]
    assert with_categories(df, current=False)["category"].to_list() == ["pmh", "pmh", "pmh"]
