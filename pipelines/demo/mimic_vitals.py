"""Vital signs: outpatient MIMIC-IV ``hosp/omr`` measurements and ICU ``icu/chartevents`` trends."""

from __future__ import annotations

from .mimic_patient import Patient
from .records import Disease
from .reference import CHART_ITEMS, GCS_ITEMS
from .writer import DAY, HOUR, MINUTE, day_str, ts, weighted


class VitalsMixin:
    """OMR and chartevents of :class:`~.mimic.MimicWriter` (uses its ``w`` and ``caregivers``)."""

    def _omr(self, rng, p: Patient, admittime: int) -> None:
        n = weighted(rng, ((0, 0.25), (1, 0.35), (2, 0.25), (3, 0.15)))
        rows = []
        start = max(p.last_discharge, admittime - 720 * DAY)
        dates = sorted(start + rng.randrange(max(1, (admittime - start) // DAY - 2)) * DAY for _ in range(n))
        for t in dates:
            ds = day_str(t)
            sbp = int(rng.gauss(p.sbp_base, 9))
            dbp = int(rng.gauss(sbp * 0.45 + 20, 5))
            rows.append((p.subject_id, ds, 1, "Blood Pressure", f"{sbp}/{dbp}"))
            if rng.random() < 0.15:
                rows.append((p.subject_id, ds, 2, "Blood Pressure", f"{sbp + rng.randint(-8, 8)}/{dbp}"))
            h_m = p.height_in * 0.0254
            kg = p.bmi * h_m * h_m * rng.uniform(0.97, 1.03)
            lbs = kg / 0.45359237
            rows.append((p.subject_id, ds, 1, "Weight (Lbs)", f"{lbs:.0f}" if rng.random() < 0.6 else f"{lbs:.1f}"))
            if rng.random() < 0.8:
                rows.append((p.subject_id, ds, 1, "BMI (kg/m2)", f"{kg / (h_m * h_m):.1f}"))
            if rng.random() < 0.4:
                rows.append((p.subject_id, ds, 1, "Height (Inches)",
                             f"{p.height_in:.0f}" if rng.random() < 0.7 else f"{p.height_in:.1f}"))
        if rows:
            self.w["mimic-iv/hosp/omr.csv.gz"].write_many(rows)

    def _chartevents(self, rng, sid, hadm, stay_id, d: Disease, v_adm: dict, icu_in: int, icu_out: int,
                     chronic: list[str]) -> None:
        rows = []
        t = icu_in + rng.randint(0, 20) * MINUTE
        k = 0
        caregiver = rng.choice(self.caregivers)
        target = {"hr": 80, "sbp": 125, "dbp": 70, "rr": 17, "temp": 98.4, "spo2": 97}
        fs = "dm2" in chronic or "dm1" in chronic or d.key == "dka"
        while t < icu_out:
            frac = 0.8 ** k
            vals = {}
            for key in ("hr", "sbp", "dbp", "rr", "temp", "spo2"):
                vals[key] = target[key] + (v_adm[key] - target[key]) * frac + rng.gauss(0, 2.0 if key != "temp"
                                                                                        else 0.25)
            vals["spo2"] = min(100.0, vals["spo2"])
            vals["dbp"] = min(vals["dbp"], vals["sbp"] - 15)
            vals["map"] = (vals["sbp"] + 2 * vals["dbp"]) / 3
            store = t + rng.randint(0, 25) * MINUTE
            cs, ss = ts(t), ts(store)
            if k % 4 == 0 and rng.random() < 0.2:
                caregiver = rng.choice(self.caregivers)
            for key in ("hr", "sbp", "dbp", "map", "rr", "spo2"):
                itemid, uom = CHART_ITEMS[key]
                sv = str(int(round(vals[key])))
                rows.append((sid, hadm, stay_id, caregiver, cs, ss, itemid, sv, sv, uom, 0))
            if k % 4 == 0:
                itemid, uom = CHART_ITEMS["temp"]
                sv = f"{vals['temp']:.1f}"
                rows.append((sid, hadm, stay_id, caregiver, cs, ss, itemid, sv, sv, uom, 0))
            if k % 8 == 0:
                for itemid, text, score in GCS_ITEMS:
                    rows.append((sid, hadm, stay_id, caregiver, cs, ss, itemid, text, score, "", 0))
            if fs and k % 6 == 0:
                g = str(int(max(40, rng.gauss(260 if d.key == "dka" and k < 6 else 160, 45))))
                itemid, uom = CHART_ITEMS["glucose_fs"]
                rows.append((sid, hadm, stay_id, caregiver, cs, ss, itemid, g, g, uom, 0))
            k += 1
            t += (1 if k < 4 else 4) * HOUR + rng.randint(-10, 10) * MINUTE
        self.w["mimic-iv/icu/chartevents.csv.gz"].write_many(rows)
