"""SICdb-like tables: ``cases``, ``laboratory``, ``d_references`` (gzip CSV).

Reproduced traps: no timestamps (``Offset`` seconds from case admission, a few negative), ``Sex``
as reference ids (735 male / 736 female), weight in grams and height in cm binned to 5 with 0 =
missing, age binned to 5 years and capped at 90, dotted ICD-10-GM in ``ICD10Main`` with a few
malformed codes, ``CaseID`` not chronological (use ``OffsetAfterFirstAdmission``).

Column names follow the SICdb documentation and the ricu SICdb configuration; the column order of
the real files and the exact ``d_references`` contents are not public and are approximations.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from .diseases import DISEASES, SIC_DIAGNOSES
from .records import Disease
from .reference import (
    D_REFERENCES_HEADER,
    LAB_ITEMS,
    SIC_DISCHARGE_ALIVE,
    SIC_DISCHARGE_DEAD,
    SIC_HOSP_DECEASED,
    SIC_HOSP_HOME,
    SIC_HOSP_TRANSFER,
    SIC_LABS,
    SIC_REFERENCE_ROWS,
    SIC_SEPSIS_NO,
    SIC_SEPSIS_YES,
    SIC_SEX_FEMALE,
    SIC_SEX_MALE,
)
from .writer import DAY, HOUR, MINUTE, CsvGz, SegmentCsv, make_rng, scramble, weighted

CASES_HEADER = (
    "CaseID", "PatientID", "AdmissionYear", "TimeOfStay", "ICUOffset", "saps3", "HospitalDischargeType",
    "DischargeState", "DischargeUnit", "OffsetOfDeath", "EstimatedSurvivalObservationTime", "Sex",
    "WeightOnAdmission", "HeightOnAdmission", "AgeOnAdmission", "HospitalUnit", "ReferringUnit", "ICD10Main",
    "ICD10MainText", "DiagnosisT2", "SurgicalSite", "HoursOfCRRT", "AdmissionFormHasSepsis", "OrbisDataAvailable",
    "HeartSurgeryAdditionalData", "HeartSurgeryCrossClampTime", "HeartSurgeryBeginOffset", "HeartSurgeryEndOffset",
    "OffsetAfterFirstAdmission", "HospitalStayDays", "HospitalDischargeDay",
)
LABORATORY_HEADER = ("id", "CaseID", "LaboratoryID", "Offset", "LaboratoryValue", "LaboratoryType")

# ICD10Main traps: malformed codes in every 97th case and ~0.8% of the others
MALFORMED_CODES: tuple[str, ...] = ("C19.x1", "103.2", "I2l.4", "")
_SEPSIS_KEYS = {"sepsis", "meningitis", "cap", "pyelo", "cdiff"}


def _bin5(x: float) -> int:
    return int(5 * round(x / 5.0))


def _draw(rng: random.Random, spec) -> float:
    if len(spec) == 3:
        return spec[0] * math.exp(rng.gauss(0.0, spec[1]))
    return rng.gauss(spec[0], spec[1])


def _icu_diseases() -> list[tuple[Disease, float]]:
    out = []
    for d in DISEASES:
        if d.sex == "F" and d.key == "preeclampsia":
            w = 0.05
        else:
            w = 0.1 + d.icu_prob
        out.append((d, w))
    return out


def plan_sicdb(seed: int, n_cases: int) -> list[tuple[int, int, int]]:
    """[(patient_index, first_case_index, n_cases)] covering ``n_cases`` cases."""
    plan = []
    c = 0
    pidx = 0
    while c < n_cases:
        prng = make_rng(seed, "sic-patient", pidx)
        n_pc = 1 if prng.random() < 0.86 else 2
        n = min(n_pc, n_cases - c)
        plan.append((pidx, c, n))
        c += n
        pidx += 1
    return plan


def sicdb_chunk(segdir: Path, seed: int, patients: list[tuple[int, int, int]]) -> dict:
    """Write the ``cases`` and ``laboratory`` rows of some patients into segment files."""
    cases = SegmentCsv(segdir / "sicdb__cases.csv.gz")
    lab = SegmentCsv(segdir / "sicdb__laboratory.csv.gz")
    diseases = _icu_diseases()
    for patient_index, first_case, n_pc in patients:
        prng = make_rng(seed, "sic-patient", patient_index)
        prng.random()  # the draw used by plan_sicdb for the number of cases
        patient_id = scramble(patient_index + 1, 10_000, 899_999, 48_611)
        sex = SIC_SEX_MALE if prng.random() < 0.62 else SIC_SEX_FEMALE
        age0 = min(95.0, max(18.0, prng.gauss(64, 15)))
        year0 = prng.randint(2013, 2021)
        height = prng.gauss(176 if sex == SIC_SEX_MALE else 164, 7)
        weight = prng.gauss(84 if sex == SIC_SEX_MALE else 71, 15)
        offset_first = 0
        for k in range(n_pc):
            c = first_case + k
            rng = make_rng(seed, "sic-case", c)
            lab_id = c * 500
            case_id = scramble(c + 1, 1, 99_991, 37_199)
            if k:
                offset_first += rng.randint(20, 500) * DAY
            year = min(2021, year0 + offset_first // (365 * DAY))
            age = age0 + offset_first / (365.25 * DAY)

            # diagnosis
            surgical_site = 2250
            if c % 97 == 3 or rng.random() < 0.008:
                code = MALFORMED_CODES[(c // 97) % 2] if c % 97 == 3 else rng.choice(MALFORMED_CODES)
                text = "" if code == "" else rng.choice(("Sonstige", "Bösartige Neubildung", "unbekannt"))
                d = None
            elif rng.random() < 0.28:
                dx = weighted(rng, [(x, x.weight) for x in SIC_DIAGNOSES])
                code, text = dx.gm, dx.title
                if dx.surgical_site:
                    surgical_site = dx.surgical_site
                d = None
            else:
                d = weighted(rng, diseases)
                code, text = d.gm
                if d.service in ("SURGERY", "ORTHOPAEDICS"):
                    surgical_site = {"appendicitis": 2211, "cholecystitis": 2225, "sbo": 2211,
                                     "hip_fx": 2245}.get(d.key, 2219)
            surgical = surgical_site != 2250
            icu_offset = rng.randint(2 * HOUR, 6 * HOUR) if surgical else 0
            stay = icu_offset + int(max(0.3, rng.lognormvariate(math.log(2.5), 0.8)) * DAY)
            death_p = (d.death_prob * 4 if d else 0.06) + (0.05 if age > 80 else 0.0)
            died_icu = rng.random() < min(0.6, death_p)
            died_later = (not died_icu) and rng.random() < 0.05
            offset_death = ""
            if died_icu:
                offset_death = str(stay - rng.randint(0, 3 * HOUR))
            elif died_later:
                offset_death = str(stay + rng.randint(2, 300) * DAY)
            disch_state = SIC_DISCHARGE_DEAD if died_icu else SIC_DISCHARGE_ALIVE
            hosp_type = SIC_HOSP_DECEASED if (died_icu or (died_later and rng.random() < 0.5)) else rng.choice(
                (SIC_HOSP_HOME, SIC_HOSP_HOME, SIC_HOSP_TRANSFER))
            unit = rng.choice((2, 3, 4, 5)) if not surgical else rng.choice((3, 4))
            w_g = 0 if rng.random() < 0.08 else _bin5(weight + rng.gauss(0, 2)) * 1000
            h_cm = 0 if rng.random() < 0.1 else _bin5(height)
            hosp_days = max(1, int(stay / DAY) + rng.randint(1, 14))
            heart = surgical_site == 2231
            sepsis = d is not None and d.key in _SEPSIS_KEYS and rng.random() < 0.8
            cases.write((
                case_id, patient_id, year, stay, icu_offset, f"{max(15, rng.gauss(48 + (age - 60) * 0.4, 12)):.0f}",
                hosp_type, disch_state, rng.choice((2, 3, 4, 5, 3040)), offset_death,
                rng.randint(180, 365) * DAY if not died_icu else "", sex, w_g, h_cm, min(90, _bin5(age)),
                unit, rng.choice((2219, 3040, 3041, "")), code, text, "", surgical_site,
                rng.randint(4, 96) if rng.random() < 0.06 else 0, SIC_SEPSIS_YES if sepsis else SIC_SEPSIS_NO,
                "True" if rng.random() < 0.9 else "False", 1 if heart else 0,
                rng.randint(40, 110) if heart else "", rng.randint(-5 * HOUR, -2 * HOUR) if heart else "",
                rng.randint(-HOUR, 0) if heart else "", offset_first, hosp_days,
                -1 if rng.random() < 0.03 else max(0, hosp_days - int(stay / DAY) - rng.randint(0, 3)),
            ))

            # laboratory: one admission value and one baseline per lab, trending over 12-hourly draws
            rows = []
            sx = "F" if sex == SIC_SEX_FEMALE else "M"
            per_lab = []
            for sl in SIC_LABS:
                item = LAB_ITEMS[sl.mimic_itemid]
                normal = item.normal_for(sx)
                spec = d.labs.get(sl.mimic_itemid) if d is not None else None
                a = _draw(rng, spec) if spec is not None else _draw(rng, normal)
                per_lab.append((sl, item, a, _draw(rng, normal), normal[1] * 0.2))
            n_draws = max(2, min(8, int(stay / (12 * HOUR)) + 1))
            for n in range(n_draws):
                t = icu_offset + n * 12 * HOUR + rng.randint(-60, 60) * MINUTE
                if n == 0 and rng.random() < 0.3:
                    t = -rng.randint(30, 300) * MINUTE  # drawn before PDMS admission
                frac = 0.6 ** n
                for sl, item, a, b, noise in per_lab:
                    if n and not sl.serial and rng.random() < 0.7:
                        continue
                    v = b + (a - b) * frac + (rng.random() - 0.5) * noise
                    v = min(item.vmax, max(item.vmin, v)) * sl.factor
                    lab_id += 1
                    rows.append((lab_id, case_id, sl.lab_id, t,
                                 f"{v:.{sl.decimals}f}" if sl.decimals else str(int(round(v))),
                                 2 if sl.point_of_care and rng.random() < 0.6 else 1))
            lab.write_many(rows)
    return {"sicdb/cases.csv.gz": cases.close(), "sicdb/laboratory.csv.gz": lab.close()}


def write_d_references(out: Path) -> dict[str, int]:
    refs = CsvGz(out / "sicdb" / "d_references.csv.gz", D_REFERENCES_HEADER)
    rows = list(SIC_REFERENCE_ROWS)
    for sl in SIC_LABS:
        rows.append((sl.lab_id, sl.name, "Laboratory", sl.name, sl.unit, sl.lab_id, 3, "", sl.loinc))
    refs.write_many(sorted(rows, key=lambda r: r[0]))
    refs.close()
    return {"sicdb/d_references.csv.gz": refs.rows}
