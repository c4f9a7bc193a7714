"""Disease catalog of the embedded demo generator (data: ``data/diseases/*.yaml``, ``codes.yaml``,
``comorbidities.yaml``, ``imaging.yaml``, ``sicdb_diagnoses.csv``).

Every primary diagnosis carries an ICD-10-CM code (dotted; MIMIC files store it without the dot)
and an ICD-9-CM code that the CMS GEM maps into the same ICD-10-CM category, with the long titles
of MIMIC-IV ``hosp/d_icd_diagnoses`` (checked by the tests when the open demo is available); an
ICD-10-GM code for the SICdb-like output; names, complaints, HPI phrasings, exam findings,
vital/lab profiles, imaging, medications, microbiology, procedures, comorbidities and MedQA facts.
All values are synthetic.
"""

from __future__ import annotations

from .catalog import catalog
from .records import Code, Comorbidity, Disease, Imaging

DISEASES: tuple[Disease, ...] = catalog().diseases
COMORBIDITIES: dict[str, Comorbidity] = catalog().comorbidities
SIC_DIAGNOSES = catalog().sic_diagnoses  # SICdb ICU admission diagnoses outside DISEASES

# records the generator uses by name
CXR_NORMAL: Imaging = catalog().imaging["cxr_normal"]  # outpatient screening film
HX_TOBACCO: Code = catalog().codes["hx_tobacco"]
DNR: Code = catalog().codes["dnr"]


def chapters() -> set[str]:
    return {d.chapter for d in DISEASES}


def all_codes() -> list[Code]:
    """Every ICD code the MIMIC output may use (primary, associated, history, comorbidity, status)."""
    seen: dict[tuple[str, str], Code] = {}
    for d in DISEASES:
        for code in [d.code, d.history_code, *[c for c, _ in d.associated]]:
            if code is not None:
                seen.setdefault((code.icd10, code.icd9), code)
    for code in [c.code for c in COMORBIDITIES.values()] + list(catalog().codes.values()):
        seen.setdefault((code.icd10, code.icd9), code)
    return list(seen.values())


def d_icd_rows() -> list[tuple[str, str, str]]:
    """(icd_code dotless, icd_version, long_title) for every code, sorted as in MIMIC (by code, version)."""
    rows: dict[tuple[str, str], str] = {}
    for code in all_codes():
        rows[(code.icd9_nodot, "9")] = code.title9
        rows[(code.icd10_nodot, "10")] = code.title10
    return [(c, v, t) for (c, v), t in sorted(rows.items())]
