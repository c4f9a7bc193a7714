import polars as pl

from pipelines.units.medications import discharge_medications, drug_rule, medication_units, prior_discharge_units

C = "c_0000000000000001"


def _orders(rows):
    return pl.DataFrame(rows, schema=["case_id", "drug", "dose", "dose_unit", "route", "doses_per_24_hrs"],
                        orient="row")


def _rules(rows) -> dict[str, str | None]:
    out = discharge_medications(_orders(rows))
    return dict(zip(out["drug"] + " " + out["route"].fill_null("-"), out["rule"]))


def test_inpatient_only_orders_are_not_home_medications():
    rules = _rules([
        (C, "Heparin", "5000", "UNIT", "SC", "3"),
        (C, "Insulin", "0", "UNIT", "SC", "1"),
        (C, "Sodium Chloride 0.9%  Flush", "3", "mL", "IV", "3"),
        (C, "Docusate Sodium", "100", "mg", "PO", "2"),
        (C, "Glucose Gel", "15", "g", "PO", None),
        (C, "Potassium Chloride Replacement (Critical Care and Oncology)", "20", "mEq", "PO", None),
        (C, "Aspirin", "81", "mg", "PO/NG", "1"),
        (C, "Vancomycin", "1000", "mg", "IV", "2"),
        (C, "Acetaminophen", "650", "mg", "PO", None),
        (C, "Metoprolol Tartrate", "25", "mg", None, "2"),
    ])
    assert rules == {
        "Heparin SC": "inpatient_only", "Insulin SC": "inpatient_only",
        "Sodium Chloride 0.9%  Flush IV": "inpatient_route", "Docusate Sodium PO": "inpatient_only",
        "Glucose Gel PO": "inpatient_only",
        "Potassium Chloride Replacement (Critical Care and Oncology) PO": "inpatient_only",
        "Aspirin PO/NG": "inpatient_route", "Vancomycin IV": "inpatient_route",
        "Acetaminophen PO": "as_needed", "Metoprolol Tartrate -": "inpatient_route",
    }


def test_scheduled_outpatient_orders_and_home_as_needed_drugs_are_kept_once():
    rules = _rules([
        (C, "Atorvastatin", "40", "mg", "PO", "1"),
        (C, "Glargine", "20", "UNIT", "SC", "1"),
        (C, "Albuterol Inhaler", "2", "PUFF", "IH", None),
        (C, "Nitroglycerin SL", "0.4", "mg", "SL", None),
        (C, "Lisinopril", "10", "mg", "PO", "1"),
        (C, "LISINOPRIL", "20", "mg", "PO", "1"),
    ])
    assert rules == {"Atorvastatin PO": None, "Glargine SC": None, "Albuterol Inhaler IH": None,
                     "Nitroglycerin SL SL": None, "Lisinopril PO": None, "LISINOPRIL PO": "repeat"}


def test_drug_rules_match_the_drug_name():
    assert drug_rule("Heparin Flush (10 units/ml)") == "inpatient_only"
    assert drug_rule("Insulin Glargine") is None  # basal insulin is a home medication
    assert drug_rule("Albuterol Inhaler") == "home_as_needed"
    assert drug_rule("Multivitamins") is None


def test_medication_units_say_the_drug_as_a_patient_would():
    meds = pl.DataFrame({"case_id": [C, C, C], "drug": ["Metoprolol Succinate XL", "Fluticasone Propionate NASAL",
                                                         "TraZODone"],
                         "dose": ["100", "1", None], "dose_unit": ["mg", "SPRY", None], "route": ["PO", "NU", None],
                         "source_ref": ["medrecon:1", "medrecon:2", "medrecon:3"]})
    units = medication_units(meds)
    assert units["text"].to_list() == ["I take metoprolol succinate XL 100 mg",
                                       "I take fluticasone propionate nasal 1 spray in the nose", "I take trazodone"]
    assert units["concept"].to_list() == ["drug:metoprolol", "drug:fluticasone", "drug:trazodone"]
    assert units["source_ref"].to_list() == ["medrecon:1", "medrecon:2", "medrecon:3"]


def test_prior_discharge_units_keep_only_home_medications():
    units = prior_discharge_units(_orders([(C, "Heparin", "5000", "UNIT", "SC", "3"),
                                           (C, "Aspirin", "81", "mg", "PO", "1")]))
    assert units.select("text", "source_ref").rows() == [("I take aspirin 81 mg",
                                                          "mimic_prescriptions:prior_discharge:Aspirin")]
