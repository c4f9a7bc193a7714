"""Home medications and MIMIC-IV ``hosp/prescriptions`` rows of one admission."""

from __future__ import annotations

from .diseases import COMORBIDITIES
from .mimic_patient import Patient
from .records import Disease
from .reference import DRUGS
from .writer import DAY, HOUR, ts


class MedsMixin:
    """Medications of :class:`~.mimic.MimicWriter` (uses its ``w``, ``providers``, ``_pharmacy``)."""

    def _home_meds(self, chronic: list[str]) -> list[str]:
        meds: list[str] = []
        for key in chronic:
            for m in COMORBIDITIES[key].home_meds:
                if m not in meds:
                    meds.append(m)
        return meds

    def _prescriptions(self, rng, p: Patient, hadm, d: Disease, admittime, dischtime, home_meds, icu) -> None:
        keys = list(d.admission_meds)
        for m in home_meds:
            if rng.random() < 0.5 and m not in keys:
                keys.append(m)
        if icu and rng.random() < 0.3 and "norepinephrine" not in keys and d.key in ("sepsis", "meningitis"):
            keys.append("norepinephrine")
        rows = []
        provider = rng.choice(self.providers)
        for key in keys:
            drug = DRUGS[key]
            p.poe_seq += rng.randint(1, 12)
            start = admittime + rng.randint(0, 8) * HOUR
            start -= start % HOUR
            if start >= dischtime:
                start = admittime
            stop = dischtime - dischtime % HOUR if rng.random() < 0.6 else min(
                dischtime, start + rng.randint(1, 4) * DAY)
            poe = f"{p.subject_id}-{p.poe_seq}" if rng.random() < 0.93 else ""
            rows.append((p.subject_id, hadm, self._pharmacy(), poe, p.poe_seq if poe else "",
                         provider if poe else "", ts(start), ts(stop) if rng.random() < 0.97 else "",
                         drug.drug_type, drug.drug, drug.code, drug.gsn, drug.ndc, drug.strength, "", drug.dose,
                         drug.unit, drug.form_val, drug.form_unit, drug.per_day, drug.route))
        if rows:
            self.w["mimic-iv/hosp/prescriptions.csv.gz"].write_many(rows)
