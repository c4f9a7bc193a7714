"""MIMIC-IV ``hosp/diagnoses_icd`` and ``hosp/procedures_icd`` rows in the admission's ICD version."""

from __future__ import annotations

from .diseases import COMORBIDITIES, DNR, HX_TOBACCO
from .mimic_patient import Patient
from .records import Disease
from .reference import PROCEDURE_NOTES, PROCEDURES
from .writer import DAY, day_str


class CodingMixin:
    """Diagnosis and procedure coding of :class:`~.mimic.MimicWriter` (uses its ``w``)."""

    def _diagnoses(self, rng, p: Patient, d: Disease, sid, hadm, version, chronic, labs, died) -> list[str]:
        codes = [d.code]
        names: list[str] = []
        for code, prob in d.associated:
            if rng.random() < prob:
                codes.append(code)
        for key in chronic:
            codes.append(COMORBIDITIES[key].code)
            names.append(COMORBIDITIES[key].pmh[0])
        for hc in p.prior_history_codes:
            codes.append(hc)
        if p.smoker is False and "tobacco" not in chronic and rng.random() < 0.1:
            codes.append(HX_TOBACCO)
        if died and rng.random() < 0.5:
            codes.append(DNR)
        seen = set()
        rows = []
        for code in codes:
            c, _ = code.for_version(version)
            if c in seen:
                continue
            seen.add(c)
            rows.append((sid, hadm, len(rows) + 1, c, version))
        self.w["mimic-iv/hosp/diagnoses_icd.csv.gz"].write_many(rows)
        return names

    def _procedures(self, rng, sid, hadm, d: Disease, version, admittime, dischtime, icu) -> list[str]:
        rows = []
        lines = []
        todo = [k for k, prob in d.procedures if rng.random() < prob]
        if icu and rng.random() < 0.15 and "mech_vent" not in todo:
            todo.append("mech_vent")
        for key in todo:
            (c9, t9), (c10, t10) = PROCEDURES[key]
            code, title = (c9, t9) if version == 9 else (c10, t10)
            day = admittime + rng.randint(0, max(0, int((dischtime - admittime) / DAY) - 1)) * DAY
            rows.append((sid, hadm, len(rows) + 1, day_str(day), code, version))
            lines.append(PROCEDURE_NOTES[key] if rng.random() < 0.75 else (t9 if version == 9 else t10))
        if rows:
            self.w["mimic-iv/hosp/procedures_icd.csv.gz"].write_many(rows)
        return lines, todo
