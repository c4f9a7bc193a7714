from datetime import date

import schemas
from pipelines.profiles.fhir import parse_bundle
from pipelines.profiles.pool import read_output, stratum_pool
from pipelines.profiles.snomed import snomed_map

SNOMED = "http://snomed.info/sct"


def _condition(code, display, onset, abatement=None, system=SNOMED):
    resource = {"resourceType": "Condition", "code": {"coding": [{"system": system, "code": code, "display": display}]},
                "onsetDateTime": onset}
    if abatement:
        resource["abatementDateTime"] = abatement
    return {"resource": resource}


BUNDLE = {"resourceType": "Bundle", "type": "transaction", "entry": [
    {"resource": {
        "resourceType": "Patient", "id": "abc-1", "gender": "female", "birthDate": "1970-02-03",
        "deceasedDateTime": "2020-01-01T10:00:00+00:00",
        "name": [{"use": "maiden", "family": "Old", "given": ["X"]},
                 {"use": "official", "family": "Wunsch504", "given": ["Maude482"]}],
        "maritalStatus": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v3-MaritalStatus", "code": "W"}]},
        "communication": [{"language": {"coding": [{"code": "es", "display": "Spanish"}]}}],
        "address": [{"city": "Springfield", "state": "Illinois"}],
        "extension": [
            {"url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race",
             "extension": [{"url": "ombCategory", "valueCoding": {"code": "2054-5", "display": "Black or African American"}},
                           {"url": "text", "valueString": "black"}]},
            {"url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity",
             "extension": [{"url": "text", "valueString": "hispanic"}]},
        ]}},
    _condition("44054006", "Diabetes mellitus type 2 (disorder)", "2001-04-05T00:00:00+00:00"),
    _condition("444814009", "Viral sinusitis (disorder)", "1999-01-01T00:00:00Z", "1999-02-01T00:00:00Z"),
    _condition("E11.9", "coded elsewhere", "2001-04-05T00:00:00Z", system="http://hl7.org/fhir/sid/icd-10-cm"),
    {"resource": {"resourceType": "Observation", "code": {"coding": [{"code": "67875-5"}]},
                  "effectiveDateTime": "2010-01-01T00:00:00Z",
                  "valueCodeableConcept": {"coding": [{"display": "Unemployed"}]}}},
    {"resource": {"resourceType": "Observation", "code": {"coding": [{"code": "67875-5"}]},
                  "effectiveDateTime": "2015-01-01T00:00:00Z",
                  "valueCodeableConcept": {"coding": [{"display": "Part-time work"}]}}},
    {"resource": {"resourceType": "Observation", "code": {"coding": [{"code": "63586-2"}]},
                  "effectiveDateTime": "2015-01-01T00:00:00Z", "valueInteger": 42000}},
]}


def test_minimal_bundle_gives_the_patient_and_snomed_conditions():
    records = parse_bundle(BUNDLE, "output/fhir/x.json")
    row = records.patients.row(0, named=True)
    assert row["pool_patient_id"] == "abc-1"
    assert (row["given_name"], row["family_name"]) == ("Maude", "Wunsch")
    assert (row["sex"], row["birth_date"], row["deceased_date"]) == ("F", date(1970, 2, 3), date(2020, 1, 1))
    assert (row["marital_status"], row["language"], row["city"], row["state"]) == ("Widowed", "Spanish", "Springfield", "Illinois")
    assert (row["race"], row["ethnicity"]) == ("Black or African American", "Hispanic")
    assert row["occupation_or_income"] == "Part-time work; household income 42000"
    conditions = records.conditions.sort("onset")
    assert conditions["snomed_code"].to_list() == ["444814009", "44054006"]
    assert conditions["abatement"].to_list() == [date(1999, 2, 1), None]


def test_bundle_without_a_patient_is_skipped():
    assert parse_bundle({"resourceType": "Bundle", "entry": [{"resource": {"resourceType": "Organization"}}]}, "h.json") is None


def test_real_synthea_bundle_parses_into_a_valid_pool(real_stratum):
    records = read_output(real_stratum.folder)
    assert records.patients.height == 1
    row = records.patients.row(0, named=True)
    assert row["sex"] == "F" and row["given_name"] and row["family_name"] and row["birth_date"]
    assert row["source_file"].startswith("output/fhir/") and row["race"] and row["city"]
    assert records.conditions.height > 0
    assert set(records.conditions["snomed_code"]) <= set(snomed_map()["snomed_code"])  # every code is in the map
    pool = schemas.conform("synthea_pool", stratum_pool(real_stratum))
    assert pool["stratum"].to_list() == ["F_0-17"] and 0 <= pool["age_years"][0] <= 17
    assert pool["conditions"].list.len()[0] == records.conditions.height
