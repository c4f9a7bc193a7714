"""MIMIC-IV ``hosp/labevents`` rows: admission panels, serial and daily labs, outpatient labs.

Values start from the patient's baseline (sex, chronic conditions) and the disease's lab profile,
trend back to baseline day by day, and are kept consistent (Hct~Hgb, anion gap, ...).  Rows
reproduce MIMIC's traps (text results, missing results, duplicate and malformed rows).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .diseases import COMORBIDITIES
from .mimic_patient import Patient
from .records import Disease
from .reference import DAILY_PANELS, LAB_IDS, LAB_ITEMS, PANELS
from .writer import DAY, HOUR, MINUTE, fmt_num, ts, weighted

# lab items the generator treats specially, by their key in data/lab_items.csv
AG, CL, CR, GLU, HCO3, HCT, HGB, LYMPH, NA, NEUT, TROP = (LAB_IDS[k] for k in (
    "ag", "cl", "cr", "glu", "hco3", "hct", "hgb", "lymph", "na", "neut", "trop"))
U_GLUCOSE, U_HCG, U_KETONE, U_LEUK, U_NITRITE, U_PROTEIN = (LAB_IDS[k] for k in (
    "u_glucose", "u_hcg", "u_ketone", "u_leuk", "u_nitrite", "u_protein"))
MALFORMED_ITEMIDS = ("___", "5O912", "NaN", "51222.0.1", "")


def _draw(rng: random.Random, spec) -> float:
    if len(spec) == 3:
        return spec[0] * math.exp(rng.gauss(0.0, spec[1]))
    return rng.gauss(spec[0], spec[1])


@dataclass
class LabDraw:
    time: int
    panel: str
    values: dict  # itemid -> value (float) or text


class LabsMixin:
    """Lab methods of :class:`~.mimic.MimicWriter` (uses its ``w``, ``providers``, ``labevent_id``, ``_specimen``)."""

    def _baseline(self, p: Patient, chronic: list[str]) -> dict:
        base = {}
        for itemid, item in LAB_ITEMS.items():
            base[itemid] = item.normal_for(p.sex)
        for key in chronic:
            base.update(COMORBIDITIES[key].baseline_labs)
        return base

    def _lab_draws(self, rng, p: Patient, d: Disease, base: dict, t_first: int, admittime: int, dischtime: int,
                   has_ed: bool) -> list[LabDraw]:
        panels = ["cbc", "chem"]
        if rng.random() < 0.6:
            panels.append("mg_phos")
        if rng.random() < 0.35:
            panels.append("diff")
        for extra in d.panels:
            if extra not in panels and (rng.random() < 0.9):
                panels.append(extra)
        if p.sex == "M":
            panels = [x for x in panels if x != "hcg"]
        adm_vals: dict[int, float] = {}
        baseline_vals: dict[int, float] = {}
        needed = sorted({it for name in panels for it in PANELS[name]} |
                        {it for name in DAILY_PANELS for it in PANELS[name]})
        for itemid in needed:
            item = LAB_ITEMS[itemid]
            b = _draw(rng, base[itemid]) if base[itemid][1] else base[itemid][0]
            baseline_vals[itemid] = b
            spec = d.labs.get(itemid)
            adm_vals[itemid] = _draw(rng, spec) if spec is not None else b + rng.gauss(0, item.normal[1] * 0.3)
        for itemid, text in ua_values(d, p.sex, rng).items():
            if itemid in adm_vals:
                adm_vals[itemid] = text
        self._derive(adm_vals, rng, d)
        self._derive(baseline_vals, rng, None)

        draws: list[LabDraw] = []
        for name in panels:
            t = t_first + (rng.randint(0, 40) * MINUTE if name not in ("cbc", "chem") else 0)
            draws.append(LabDraw(t, name, {it: adm_vals[it] for it in PANELS[name]}))
        # serial troponins
        if "trop" in panels:
            mult = (1.9, 1.4) if d.key in ("stemi", "nstemi") else (1.05, 1.0)
            for k, m in enumerate(mult, 1):
                draws.append(LabDraw(t_first + k * 6 * HOUR + rng.randint(0, 40) * MINUTE, "trop",
                                     {TROP: adm_vals[TROP] * m}))
        if "lactate" in panels and adm_vals.get(50813, 0) > 2.0:
            draws.append(LabDraw(t_first + rng.randint(3, 6) * HOUR, "lactate",
                                 {50813: max(0.6, adm_vals[50813] * rng.uniform(0.45, 0.8))}))
        # daily AM labs trending from admission values to baseline
        n_days = max(0, min(4, (dischtime - admittime) // DAY))
        day_start = (t_first // DAY + 1) * DAY
        for k in range(n_days):
            t = day_start + k * DAY + rng.randint(4 * HOUR + 30 * MINUTE, 7 * HOUR)
            if t > dischtime - 2 * HOUR:
                break
            frac = 0.55 ** (k + 1)
            for name in DAILY_PANELS:
                if name == "mg_phos" and rng.random() < 0.3:
                    continue
                vals = {}
                for it in PANELS[name]:
                    item = LAB_ITEMS[it]
                    a, b = adm_vals[it], baseline_vals[it]
                    vals[it] = b + (a - b) * frac + rng.gauss(0, item.normal[1] * 0.25)
                self._derive(vals, rng, None)
                draws.append(LabDraw(t, name, vals))
        draws.sort(key=lambda x: x.time)
        return draws

    @staticmethod
    def _derive(vals: dict, rng, d: Disease | None) -> None:
        """Keep dependent values consistent (Hct~Hgb, RBC, MCHC, anion gap, chloride)."""
        labs = d.labs if d is not None else {}
        if HGB in vals:
            hgb = vals[HGB]
            if HCT not in labs:
                vals[HCT] = hgb * 3.0 + rng.gauss(0, 0.8)
            if 51248 in vals:
                mch = vals[51248]
                vals[51279] = hgb * 10.0 / max(mch, 15.0)
            if HCT in vals and 51249 in vals:
                vals[51249] = hgb / max(vals[HCT], 5.0) * 100.0
        if NEUT in vals and LYMPH in vals and LYMPH not in labs:
            vals[LYMPH] = max(1.5, 100.0 - vals[NEUT] - abs(rng.gauss(9, 2.5)))
        if NA in vals and CL in vals and CL not in labs:
            vals[CL] = vals[NA] - 37 + rng.gauss(0, 1.5)
        if NA in vals and CL in vals and HCO3 in vals:
            vals[AG] = vals[NA] - vals[CL] - vals[HCO3]

    # ------------------------------------------------------------------------------------------
    def _lab_row(self, rng, sid, hadm_s, spec_id, itemid, cs, ss, value, sex, priority, provider):
        """One labevents row (list) for a numeric or text result."""
        item = LAB_ITEMS[itemid]
        self.labevent_id += 1
        ref = item.ref_for(sex)
        lo, hi = (ref if ref else ("", ""))
        comment = ""
        flag = ""
        if itemid == 50920:  # eGFR: only a comment
            return [self.labevent_id, sid, hadm_s, spec_id, itemid, provider, cs, ss, "", "", "",
                    "", "", "", priority, value]
        if isinstance(value, str):  # text result (urinalysis, HCG, ...)
            num = ""
            if value[:1].isdigit():
                num = value
                flag = "abnormal"
            elif value in ("POS", "LG", "MOD", "SM", "TR"):
                flag = "abnormal" if itemid not in (U_PROTEIN,) else ""
            if not num and rng.random() < 0.4:
                comment, value = value + ".", ""
            uom = item.uom if num or itemid in (U_KETONE, U_GLUCOSE, U_PROTEIN) else ("" if itemid != U_HCG
                                                                                       else item.uom)
            return [self.labevent_id, sid, hadm_s, spec_id, itemid, provider, cs, ss, value, num,
                    uom, "", "", flag, priority, comment]
        v = min(item.vmax, max(item.vmin, value))
        sval = fmt_num(v, item.decimals)
        fv = float(sval)
        if ref:
            if fv < float(lo) or fv > float(hi):
                flag = "abnormal"
        value_col, num_col = sval, sval
        if itemid == TROP and fv < 0.01:
            value_col, num_col, comment = "", "", "<0.01.  " + item.comment
        elif itemid in (50856, 50922) and fv < 1:
            value_col, num_col, comment, flag = "", "", "NEG.", ""
        elif item.comment and rng.random() < 0.7:
            comment = item.comment
            if item.text_value:
                value_col = item.text_value
        if rng.random() < 0.008:  # missing result
            value_col, num_col, flag = rng.choice(("", "", "___")), "", ""
            comment = rng.choice(("UNABLE TO REPORT.", "HEMOLYZED SPECIMEN.", "___", "TEST NOT PERFORMED."))
        return [self.labevent_id, sid, hadm_s, spec_id, itemid, provider, cs, ss, value_col,
                num_col, item.uom, lo, hi, flag, priority, comment]

    def _write_labs(self, rng, p: Patient, hadm_s: str, draws: list[LabDraw], i: int) -> None:
        rows = []
        sid = p.subject_id
        for k, dr in enumerate(draws):
            spec_id = self._specimen()
            priority = "" if dr.panel in ("lactate", "abg") else ("STAT" if k < 6 or rng.random() < 0.3
                                                                  else "ROUTINE")
            provider = rng.choice(self.providers) if rng.random() < 0.3 else ""
            cs, ss = ts(dr.time), ts(dr.time + rng.randint(15 * MINUTE, 150 * MINUTE))
            for itemid, value in dr.values.items():
                if itemid == 50920:
                    cr = dr.values.get(CR, 1.0)
                    value = self._egfr_comment(p, cr, dr.time)
                rows.append(self._lab_row(rng, sid, hadm_s, spec_id, itemid, cs, ss, value, p.sex,
                                          priority, provider))
        if not rows:
            return
        # traps: exact duplicate rows, malformed rows (rare; always one in admission index 7)
        if rng.random() < 0.12:
            k = rng.randrange(len(rows))
            rows.insert(k + 1, list(rows[k]))
        if i == 7 or rng.random() < 0.05:
            k = rng.randrange(len(rows))
            bad = list(rows[k])
            kind = rng.randrange(3) if i != 7 else 0
            if kind == 0:
                bad[4] = rng.choice(MALFORMED_ITEMIDS[:4])
            elif kind == 1:
                bad = bad[:-2]  # truncated row: too few fields
            else:
                bad = bad + ["EXTRA", ""]  # too many fields
            rows.insert(k, bad)
        self.w["mimic-iv/hosp/labevents.csv.gz"].write_many(rows)

    def _egfr_comment(self, p: Patient, cr: float, t: int) -> str:
        age = max(18, p.age_at(t))
        egfr = 175 * max(cr, 0.2) ** -1.154 * age ** -0.203 * (0.742 if p.sex == "F" else 1.0)
        lo, hi = int(egfr * 0.92), int(egfr * 1.08) + 1
        return (f"Using this patient's age, gender, and serum creatinine value of {cr:.1f}, .  estimated GFR "
                f"(eGFR) is likely between {lo} and {hi} mL/min/1.73 m2, .  provided the serum creatinine value is "
                f"stable. .  (Patients with more muscle mass and better nutritional status are more .  likely to "
                f"be at the higher end of this range.) .  An eGFR < 60 suggests kidney disease in those below the "
                f"age of 65 .  and there may be kidney disease in those over 65..")

    def _outpatient_labs(self, rng, p: Patient, base: dict, admittime: int, dischtime: int) -> None:
        n = weighted(rng, ((0, 0.35), (1, 0.4), (2, 0.25)))
        times = [admittime - rng.randint(20, 400) * DAY for _ in range(n)]
        if rng.random() < 0.25:
            times.append(dischtime + rng.randint(7, 21) * DAY)
        if not times:
            return
        rows = []
        for t0 in sorted(times):
            t = t0 - t0 % DAY + rng.randint(8 * HOUR, 16 * HOUR)
            panels = ["cbc", "chem"]
            for extra in ("lft", "a1c", "thyroid", "mg_phos"):
                if rng.random() < 0.25:
                    panels.append(extra)
            vals_all = {}
            for name in panels:
                for it in PANELS[name]:
                    spec = base[it]
                    vals_all[it] = _draw(rng, spec) if spec[1] else spec[0]
            self._derive(vals_all, rng, None)
            provider = rng.choice(self.providers)
            cs, ss = ts(t), ts(t + rng.randint(2 * HOUR, 30 * HOUR))
            for name in panels:
                spec_id = self._specimen()
                for it in PANELS[name]:
                    value = vals_all[it]
                    if it == 50920:
                        value = self._egfr_comment(p, vals_all[CR], t)
                    rows.append(self._lab_row(rng, p.subject_id, "", spec_id, it, cs, ss, value, p.sex,
                                              "ROUTINE", provider))
        self.w["mimic-iv/hosp/labevents.csv.gz"].write_many(rows)


def ua_values(d: Disease, sex: str, rng: random.Random) -> dict:
    """Urinalysis text results for an admission (disease-specific or normal)."""
    vals = {U_LEUK: "NEG", U_NITRITE: "NEG", U_KETONE: "NEG", U_GLUCOSE: "NEG",
            U_PROTEIN: rng.choice(("NEG", "NEG", "TR"))}
    vals.update(d.ua)
    if sex == "F":
        vals[U_HCG] = d.ua.get(U_HCG, "NEG")
    return vals
