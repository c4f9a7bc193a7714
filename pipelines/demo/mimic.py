"""MIMIC-IV (hosp/icu), MIMIC-IV-Note and MIMIC-IV-ED (:mod:`.mimic_ed`) rows for one synthetic patient at a time.

Patients and admissions are generated sequentially; every admission has its own RNG derived from
``(seed, admission index)`` and every patient its own RNG derived from ``(seed, patient index)``,
so the first N admissions of a demo are identical whatever the total size.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from . import notes
from .catalog import catalog
from .diseases import COMORBIDITIES, CXR_NORMAL, DISEASES, DNR, HX_TOBACCO
from .mimic_ed import ED_HEADERS, EdWriter, Visit
from .records import Disease
from .reference import (
    CHART_ITEMS,
    DAILY_PANELS,
    DRUGS,
    GCS_ITEMS,
    LAB_IDS,
    LAB_ITEMS,
    ORGANISMS,
    PANELS,
    PROCEDURE_NOTES,
    PROCEDURES,
    SPECIMENS,
    SUSCEPTIBILITY,
)
from .tables import D_ITEMS_COLUMNS
from .writer import DAY, HOUR, MINUTE, SafeDict, SegmentCsv, clock_12h, day_str, fmt_num, make_rng, scramble, \
    ts, ts_midnight, weighted, year_start

# lab items the generator treats specially, by their key in data/lab_items.csv
AG, CL, CR, GLU, HCO3, HCT, HGB, LYMPH, NA, NEUT, TROP = (LAB_IDS[k] for k in (
    "ag", "cl", "cr", "glu", "hco3", "hct", "hgb", "lymph", "na", "neut", "trop"))
U_GLUCOSE, U_HCG, U_KETONE, U_LEUK, U_NITRITE, U_PROTEIN = (LAB_IDS[k] for k in (
    "u_glucose", "u_hcg", "u_ketone", "u_leuk", "u_nitrite", "u_protein"))

# ------------------------------------------------------------------------------------------
# headers (identical to the real MIMIC-IV v2.2 / MIMIC-IV-Note v2.2 files)
# ------------------------------------------------------------------------------------------

HEADERS: dict[str, tuple[str, ...]] = {
    "mimic-iv/hosp/patients.csv.gz": ("subject_id", "gender", "anchor_age", "anchor_year", "anchor_year_group",
                                      "dod"),
    "mimic-iv/hosp/admissions.csv.gz": ("subject_id", "hadm_id", "admittime", "dischtime", "deathtime",
                                        "admission_type", "admit_provider_id", "admission_location",
                                        "discharge_location", "insurance", "language", "marital_status", "race",
                                        "edregtime", "edouttime", "hospital_expire_flag"),
    "mimic-iv/hosp/diagnoses_icd.csv.gz": ("subject_id", "hadm_id", "seq_num", "icd_code", "icd_version"),
    "mimic-iv/hosp/d_icd_diagnoses.csv.gz": ("icd_code", "icd_version", "long_title"),
    "mimic-iv/hosp/labevents.csv.gz": ("labevent_id", "subject_id", "hadm_id", "specimen_id", "itemid",
                                       "order_provider_id", "charttime", "storetime", "value", "valuenum",
                                       "valueuom", "ref_range_lower", "ref_range_upper", "flag", "priority",
                                       "comments"),
    "mimic-iv/hosp/d_labitems.csv.gz": ("itemid", "label", "fluid", "category"),
    "mimic-iv/hosp/microbiologyevents.csv.gz": (
        "microevent_id", "subject_id", "hadm_id", "micro_specimen_id", "order_provider_id", "chartdate",
        "charttime", "spec_itemid", "spec_type_desc", "test_seq", "storedate", "storetime", "test_itemid",
        "test_name", "org_itemid", "org_name", "isolate_num", "quantity", "ab_itemid", "ab_name", "dilution_text",
        "dilution_comparison", "dilution_value", "interpretation", "comments"),
    "mimic-iv/hosp/prescriptions.csv.gz": (
        "subject_id", "hadm_id", "pharmacy_id", "poe_id", "poe_seq", "order_provider_id", "starttime", "stoptime",
        "drug_type", "drug", "formulary_drug_cd", "gsn", "ndc", "prod_strength", "form_rx", "dose_val_rx",
        "dose_unit_rx", "form_val_disp", "form_unit_disp", "doses_per_24_hrs", "route"),
    "mimic-iv/hosp/omr.csv.gz": ("subject_id", "chartdate", "seq_num", "result_name", "result_value"),
    "mimic-iv/hosp/procedures_icd.csv.gz": ("subject_id", "hadm_id", "seq_num", "chartdate", "icd_code",
                                            "icd_version"),
    "mimic-iv/hosp/d_icd_procedures.csv.gz": ("icd_code", "icd_version", "long_title"),
    "mimic-iv/hosp/transfers.csv.gz": ("subject_id", "hadm_id", "transfer_id", "eventtype", "careunit", "intime",
                                       "outtime"),
    "mimic-iv/icu/icustays.csv.gz": ("subject_id", "hadm_id", "stay_id", "first_careunit", "last_careunit",
                                     "intime", "outtime", "los"),
    "mimic-iv/icu/chartevents.csv.gz": ("subject_id", "hadm_id", "stay_id", "caregiver_id", "charttime",
                                        "storetime", "itemid", "value", "valuenum", "valueuom", "warning"),
    "mimic-iv/icu/d_items.csv.gz": D_ITEMS_COLUMNS,  # also the columns of data/chart_items.csv
    "mimic-iv-note/note/discharge.csv.gz": ("note_id", "subject_id", "hadm_id", "note_type", "note_seq",
                                            "charttime", "storetime", "text"),
    "mimic-iv-note/note/discharge_detail.csv.gz": ("note_id", "subject_id", "field_name", "field_value",
                                                   "field_ordinal"),
    "mimic-iv-note/note/radiology.csv.gz": ("note_id", "subject_id", "hadm_id", "note_type", "note_seq",
                                            "charttime", "storetime", "text"),
    "mimic-iv-note/note/radiology_detail.csv.gz": ("note_id", "subject_id", "field_name", "field_value",
                                                   "field_ordinal"),
    **ED_HEADERS,
}
STREAMED = [k for k in HEADERS if "/d_" not in k]

# ------------------------------------------------------------------------------------------
# population tables
# ------------------------------------------------------------------------------------------

POPULATION = catalog().population  # data/population.yaml
ED_LOCATIONS = {"EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"}
MALFORMED_ITEMIDS = ("___", "5O912", "NaN", "51222.0.1", "")

# diseases whose ICD code (and procedure) is right-sided
RIGHT_SIDED = frozenset({"cellulitis", "dvt", "hip_fx", "gout", "lung_cancer"})
ACTIVITIES = ("walking his dog", "shoveling snow", "at rest watching TV", "climbing stairs", "at work", "asleep")


def _draw(rng: random.Random, spec) -> float:
    if len(spec) == 3:
        return spec[0] * math.exp(rng.gauss(0.0, spec[1]))
    return rng.gauss(spec[0], spec[1])


# ------------------------------------------------------------------------------------------
# patient
# ------------------------------------------------------------------------------------------


@dataclass
class Patient:
    index: int
    subject_id: int
    sex: str
    birth_year_age: int  # age at the start of the patient's timeline
    anchor_year: int
    anchor_group: str
    icd_version_p9: float  # probability an admission of this patient is coded in ICD-9
    planned: int
    t0: int  # timeline start (seconds)
    height_in: float
    bmi: float
    race: str
    language: str
    marital: str
    chronic: list[str]
    smoker: bool
    etoh: bool
    sbp_base: float
    prior: list[Disease] = field(default_factory=list)
    prior_history_codes: list = field(default_factory=list)
    last_discharge: int = 0
    ds_seq: int = 0
    rr_seq: int = 0
    poe_seq: int = 0
    dod: int | None = None

    def age_at(self, sec: int) -> int:
        return self.birth_year_age + int((sec - self.t0) / (365.25 * DAY))


def make_patient(rng: random.Random, index: int) -> Patient:
    sex = "F" if rng.random() < 0.5 else "M"
    age = int(min(95, max(18, rng.gauss(62, 17))))
    group, p9 = weighted(rng, POPULATION.anchor_year_groups)
    anchor_year = rng.randint(2110, 2190)
    t0 = year_start(anchor_year) + rng.randrange(300) * DAY
    planned = weighted(rng, ((1, 0.72), (2, 0.19), (3, 0.09)))
    height = rng.gauss(69.5 if sex == "M" else 64.0, 2.8)
    bmi = min(55.0, max(16.0, rng.gauss(28.5, 5.5)))
    chronic: list[str] = []
    for key, c in COMORBIDITIES.items():
        if c.prevalence is None or (c.sex and c.sex != sex) or age < c.min_age:
            continue
        base, per_decade = c.prevalence
        p = base + per_decade * max(0.0, (age - 40) / 10.0)
        if rng.random() < min(0.75, max(0.0, p)):
            chronic.append(key)
    if bmi >= 40 and "obesity" in chronic:
        chronic[chronic.index("obesity")] = "morbid_obesity"
    marital = weighted(rng, (("MARRIED", 0.42), ("SINGLE", 0.3), ("WIDOWED", 0.13 if age > 60 else 0.02),
                              ("DIVORCED", 0.1), ("", 0.05)))
    return Patient(
        index=index, subject_id=10_000_000 + index * 97 + rng.randrange(97), sex=sex, birth_year_age=age,
        anchor_year=anchor_year, anchor_group=group, icd_version_p9=p9, planned=planned, t0=t0,
        height_in=height, bmi=bmi, race=weighted(rng, POPULATION.races),
        language="ENGLISH" if rng.random() < 0.92 else "?",
        marital=marital, chronic=chronic, smoker="tobacco" in chronic, etoh="etoh" in chronic,
        sbp_base=rng.gauss(128, 12),
    )


def choose_disease(rng: random.Random, sex: str, age: int) -> Disease:
    items = []
    for d in DISEASES:
        if d.sex and d.sex != sex:
            continue
        lo, hi = d.age_range
        if not lo <= age <= hi:
            continue
        w = d.weight
        z = (age - d.age[0]) / max(d.age[1], 1.0)
        w *= math.exp(-0.5 * z * z) + 0.05
        w *= 2 * (d.female_share if sex == "F" else 1 - d.female_share) + 0.05
        items.append((d, w))
    return weighted(rng, items)


# ------------------------------------------------------------------------------------------
# the generator
# ------------------------------------------------------------------------------------------


@dataclass
class LabDraw:
    time: int
    panel: str
    values: dict  # itemid -> value (float) or text


class MimicWriter:
    """Streams all MIMIC-IV / MIMIC-IV-Note tables of one chunk of patients into segment files.

    Row ids (labevent_id, specimen_id, microevent_id, pharmacy_id, transfer_id, ...) are derived from
    the global admission index, so they do not depend on chunking or on later admissions.
    """

    def __init__(self, segdir: Path, seed: int):
        self.seed = seed
        self.w = {name: SegmentCsv(segdir / name.replace("/", "__")) for name in STREAMED}
        self.ed = EdWriter(self.w, seed)
        self.labevent_id = 0
        self.microevent_id = 0
        self.specimen_n = 0
        self.pharmacy_n = 0
        self.transfer_n = 0
        prov = random.Random(f"clinverse-demo/providers/{seed}")
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        self.providers = ["P" + "".join(prov.choice(alphabet) for _ in range(5)) for _ in range(400)]
        self.caregivers = [prov.randrange(1000, 99999) for _ in range(300)]

    # -- ids ---------------------------------------------------------------------------------
    def _specimen(self) -> int:
        self.specimen_n += 1
        return scramble(self.specimen_n, 1_000_000, 98_000_000)  # < 98M / 200 = 490k admissions

    def _pharmacy(self) -> int:
        self.pharmacy_n += 1
        return scramble(self.pharmacy_n, 1_000_000, 98_000_000, 7_777_771)

    def close(self) -> dict[str, tuple[str, int, int, int]]:
        return {name: w.close() for name, w in self.w.items()}

    def _start_admission(self, i: int) -> None:
        self.labevent_id = i * 1000
        self.microevent_id = i * 100
        self.specimen_n = i * 200
        self.pharmacy_n = i * 64
        self.transfer_n = i * 16

    # -- patient -----------------------------------------------------------------------------
    def patient(self, prng: random.Random, patient: Patient, first_index: int, n_adm: int,
                on_admission=None) -> int:
        """Generate ``n_adm`` admissions of ``patient`` (global indices from ``first_index``)."""
        t = patient.t0
        for j in range(n_adm):
            i = first_index + j
            arng = make_rng(self.seed, "adm", i)
            gap = prng.randint(30, 700) * DAY if j else prng.randrange(0, 200) * DAY
            t = max(t, patient.last_discharge) + gap + prng.randrange(DAY)
            planned_last = j == patient.planned - 1
            self.admission(arng, patient, i, j, t, planned_last)
            if on_admission:
                on_admission()
        # patients row (after all admissions, so an in-hospital death is known)
        age0 = patient.birth_year_age
        anchor_age = age0 + (patient.anchor_year - int(day_str(patient.t0)[:4]))
        anchor_age = max(18, anchor_age)
        if anchor_age >= 89:
            anchor_age = 91
        dod = day_str(patient.dod) if patient.dod is not None else ""
        self.w["mimic-iv/hosp/patients.csv.gz"].write(
            (patient.subject_id, patient.sex, anchor_age, patient.anchor_year, patient.anchor_group, dod))
        return n_adm

    # -- one admission -----------------------------------------------------------------------
    def admission(self, rng: random.Random, p: Patient, i: int, j: int, admit_guess: int, planned_last: bool):
        self._start_admission(i)
        sid = p.subject_id
        hadm = 20_000_000 + i * 79 + rng.randrange(79)
        hadm_s = str(hadm)
        age = p.age_at(admit_guess)
        d = choose_disease(rng, p.sex, age)
        version = 9 if rng.random() < p.icd_version_p9 else 10

        # --- timeline -------------------------------------------------------------------------
        adm_type = d.admission_type if rng.random() < 0.7 else weighted(
            rng, (("EW EMER.", 0.5), ("URGENT", 0.15), ("OBSERVATION ADMIT", 0.15), ("EU OBSERVATION", 0.1),
                  ("DIRECT EMER.", 0.1)))
        adm_loc = weighted(rng, POPULATION.admission_locations[adm_type])
        has_ed = adm_loc in ED_LOCATIONS
        day0 = admit_guess - admit_guess % DAY
        ed_reg = day0 + rng.randrange(DAY)
        if has_ed:
            admittime = ed_reg + rng.randint(2 * HOUR, 7 * HOUR)
            ed_out = admittime + rng.randint(20 * MINUTE, 5 * HOUR)
        else:
            admittime = ed_reg
            ed_out = admittime
        los_days = max(0.6, rng.gauss(*d.los))
        disch_day = (admittime + int(los_days * DAY)) // DAY * DAY
        dischtime = disch_day + rng.randint(10 * HOUR, 18 * HOUR)
        if dischtime < ed_out + 4 * HOUR:
            dischtime = ed_out + rng.randint(6 * HOUR, 20 * HOUR)
        died = planned_last and rng.random() < d.death_prob * (1.6 if age > 80 else 1.0)
        first_lab = ed_reg + rng.randint(15 * MINUTE, 90 * MINUTE) if has_ed else admittime + rng.randint(
            30 * MINUTE, 2 * HOUR)

        # --- ICU ------------------------------------------------------------------------------
        icu = rng.random() < min(0.95, 0.22 + 0.9 * d.icu_prob)
        icu_in = icu_out = 0
        if icu:
            icu_in = (ed_out if has_ed else admittime) + rng.randint(10 * MINUTE, 3 * HOUR)
            icu_len = int(max(0.4, min(rng.gauss(2.0, 1.0), (dischtime - icu_in) / DAY - 0.3)) * DAY)
            icu_out = icu_in + max(6 * HOUR, icu_len)
            if icu_out > dischtime - 2 * HOUR:
                dischtime = icu_out + rng.randint(4 * HOUR, 30 * HOUR)

        # --- vitals -----------------------------------------------------------------------------
        v_adm = {k: _draw(rng, spec) for k, spec in d.vitals.items()}
        v_adm["spo2"] = min(100.0, v_adm["spo2"])
        v_adm["hr"] = max(40.0, v_adm["hr"])
        v_adm["dbp"] = min(v_adm["dbp"], v_adm["sbp"] - 20)
        v_dc = {"hr": rng.gauss(78, 8), "sbp": rng.gauss(p.sbp_base, 10), "dbp": rng.gauss(74, 7),
                "rr": rng.gauss(16, 1.5), "temp": rng.gauss(98.2, 0.35), "spo2": min(100.0, rng.gauss(96.5, 1.3))}

        # --- comorbidities and past history -----------------------------------------------------
        chronic = list(p.chronic)
        pmh_only: list[str] = []
        for key, prob in d.comorbidities:
            c = COMORBIDITIES[key]
            if (c.sex and c.sex != p.sex) or age < c.min_age:
                continue
            if prob == 0.0:
                pmh_only.append(key)
            elif key not in chronic and rng.random() < prob * 0.6:
                chronic.append(key)
        if "dm1" in chronic and "dm2" in chronic:
            chronic.remove("dm2")
        if "morbid_obesity" in chronic and "obesity" in chronic:
            chronic.remove("obesity")

        # --- labs -------------------------------------------------------------------------------
        base = self._baseline(p, chronic)
        draws = self._lab_draws(rng, p, d, base, first_lab, admittime, dischtime, has_ed)
        labs_first: dict = {}
        for dr in draws:
            if dr.time - draws[0].time < 2 * HOUR:
                labs_first.update(dr.values)

        # --- write: admissions / transfers / diagnoses / procedures -----------------------------
        if died:
            disch_loc = "DIED"
        else:
            disch_loc = weighted(rng, POPULATION.discharge_locations)
            if d.key in ("hip_fx", "stroke") and rng.random() < 0.5:
                disch_loc = weighted(rng, (("SKILLED NURSING FACILITY", 0.5), ("REHAB", 0.5)))
        if died:
            p.dod = dischtime
        elif planned_last and age > 70 and rng.random() < 0.08:
            p.dod = dischtime + rng.randint(20, 330) * DAY
        insurance = "Medicare" if age >= 65 and rng.random() < 0.85 else weighted(
            rng, (("Other", 0.7), ("Medicaid", 0.3)))
        self.w["mimic-iv/hosp/admissions.csv.gz"].write((
            sid, hadm, ts(admittime), ts(dischtime), ts(dischtime) if died else "", adm_type,
            rng.choice(self.providers) if rng.random() < 0.97 else "", adm_loc, disch_loc, insurance, p.language,
            p.marital, p.race, ts(ed_reg) if has_ed else "", ts(ed_out) if has_ed else "", 1 if died else 0))
        self._transfers(rng, sid, hadm, d, has_ed, ed_reg, ed_out, admittime, dischtime, icu, icu_in, icu_out)

        secondary = self._diagnoses(rng, p, d, sid, hadm, version, chronic, labs_first, died)
        proc_lines, proc_keys = self._procedures(rng, sid, hadm, d, version, admittime, dischtime, icu)

        # --- labs, micro, meds, omr ------------------------------------------------------------
        self._write_labs(rng, p, hadm_s, draws, i)
        self._outpatient_labs(rng, p, base, admittime, dischtime)
        micro_summary = self._micro(rng, sid, hadm_s, d, first_lab, died)
        home_meds = self._home_meds(chronic)
        self._prescriptions(rng, p, hadm, d, admittime, dischtime, home_meds, icu)
        self._omr(rng, p, admittime)

        # --- ICU stay --------------------------------------------------------------------------
        if icu:
            stay_id = 30_000_000 + i * 97 + rng.randrange(97)
            unit = d.icu_unit
            los = (icu_out - icu_in) / DAY
            self.w["mimic-iv/icu/icustays.csv.gz"].write(
                (sid, hadm, stay_id, unit, unit, ts(icu_in), ts(icu_out), f"{los:.17g}"))
            self._chartevents(rng, sid, hadm, stay_id, d, v_adm, icu_in, icu_out, chronic)

        # --- notes -----------------------------------------------------------------------------
        side = "right" if (d.key in RIGHT_SIDED or rng.random() < 0.55) else "left"
        fmt = self._fmt(rng, d, draws, labs_first, age, side, p, los_days)
        self.ed.admission(Visit(i, sid, p.sex, p.race, hadm, d, version, has_ed, ed_reg, ed_out, icu, v_adm,
                                tuple(home_meds), tuple(chronic), fmt, p.last_discharge))
        tpa = "tpa" in proc_keys
        fmt["tpa_hpi"] = "Received IV tPA at ___." if tpa else rng.choice(
            ("Outside the tPA window; not a thrombectomy candidate.", "Not a tPA candidate given time course."))
        fmt["tpa_course"] = "Received IV tPA without hemorrhagic conversion." if tpa else \
            "Not a tPA candidate (outside window)."
        fmt["cath_course"] = ("Cardiac cath showed 90% mid-LCx stenosis, s/p DES x1.  Started on clopidogrel."
                              if "pci" in proc_keys else
                              "Cardiac cath showed diffuse disease not amenable to PCI; medical management."
                              if "cath" in proc_keys else "Managed medically; cath deferred.")
        impressions = self._radiology(rng, p, hadm_s, d, side, first_lab, admittime, fmt)
        if rng.random() < 0.85:
            self._discharge_note(rng, p, hadm, d, chronic, pmh_only, v_adm, v_dc, home_meds, secondary,
                                 proc_lines, draws, impressions, fmt, disch_loc, dischtime, micro_summary)

        p.prior.append(d)
        if d.history_code is not None:
            p.prior_history_codes.append(d.history_code)
        for key in chronic:
            if key not in p.chronic and rng.random() < 0.8:
                p.chronic.append(key)
        p.last_discharge = dischtime

    # ------------------------------------------------------------------------------------------
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

    # ------------------------------------------------------------------------------------------
    def _transfers(self, rng, sid, hadm, d: Disease, has_ed, ed_reg, ed_out, admittime, dischtime, icu, icu_in,
                   icu_out) -> None:
        rows = []

        def tid() -> int:
            self.transfer_n += 1
            return scramble(self.transfer_n, 30_000_000, 9_999_991, 3_141_593)  # < 625k admissions

        t = admittime
        if has_ed:
            rows.append((sid, hadm, tid(), "ED", "Emergency Department", ts(ed_reg), ts(ed_out)))
            t = ed_out
        segments = []
        if icu:
            if icu_in > t + 30 * MINUTE:
                segments.append((d.careunit, t, icu_in))
            segments.append((d.icu_unit, icu_in, icu_out))
            if dischtime > icu_out + 30 * MINUTE:
                segments.append((d.careunit, icu_out, dischtime))
        else:
            segments.append((d.careunit, t, dischtime))
        for k, (unit, a, b) in enumerate(segments):
            rows.append((sid, hadm, tid(), "admit" if k == 0 else "transfer", unit, ts(a), ts(b)))
        rows.append((sid, hadm, tid(), "discharge", "", ts(dischtime), ""))
        self.w["mimic-iv/hosp/transfers.csv.gz"].write_many(rows)

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

    # ------------------------------------------------------------------------------------------
    def _micro(self, rng, sid, hadm_s, d: Disease, t: int, died: bool) -> str:
        if not d.micro:
            return ""
        rows = []
        summary = []
        provider = rng.choice(self.providers) if rng.random() < 0.4 else ""
        for spec, org, p_pos in d.micro:
            spec_itemid, spec_desc, test_itemid, test_name = SPECIMENS[spec]
            n_sets = 2 if spec == "blood" else 1
            positive = rng.random() < p_pos
            for s in range(n_sets):
                self.specimen_n += 1
                mspec = scramble(self.specimen_n, 1_000_000, 98_000_000, 4_242_421)
                ct = t + rng.randint(0, 90) * MINUTE + s * 5 * MINUTE
                store = ct + (rng.randint(2, 5) if spec == "blood" else rng.randint(1, 3)) * DAY
                store = store - store % DAY + rng.randint(7 * HOUR, 15 * HOUR)
                common = [sid, hadm_s, mspec, provider, ts_midnight(ct), ts(ct), spec_itemid, spec_desc, 1,
                          ts_midnight(store), ts(store), test_itemid, test_name]
                if positive and org and org in SUSCEPTIBILITY:
                    org_id, org_name = ORGANISMS[org]
                    self.microevent_id += 1
                    rows.append([self.microevent_id, *common, org_id, org_name, 1, "", "", "", "", "", "", "", ""])
                    for ab_id, ab_name, dil, interp in SUSCEPTIBILITY[org]:
                        self.microevent_id += 1
                        comp = dil[:2] if dil[:2] in ("<=", "=>") else "="
                        dval = dil.lstrip("<=>")
                        rows.append([self.microevent_id, *common, org_id, org_name, 1, "", ab_id, ab_name, dil,
                                     comp.ljust(10), dval, interp, ""])
                    if s == 0:
                        what = {"blood": "blood cultures (2/2)", "urine": "urine culture"}.get(spec, spec_desc.lower())
                        summary.append(f"{what} grew {org_name.lower()}")
                else:
                    if spec == "stool":
                        comment = ("Positive for toxigenic C. difficile by the Illumigene DNA amplification.  "
                                   if positive else "Negative for toxigenic C. difficile by the Illumigene DNA "
                                                    "amplification assay.            (Reference Range-Negative).  ")
                        if positive and s == 0:
                            summary.append("stool C. diff PCR positive")
                    elif spec == "mrsa":
                        comment = "No MRSA isolated.  "
                    elif spec == "sputum":
                        comment = rng.choice(("SPARSE GROWTH Commensal Respiratory Flora.  ",
                                              "MODERATE GROWTH Commensal Respiratory Flora.  "))
                    elif spec == "wound" and positive:
                        comment = "STAPH AUREUS COAG +.  MODERATE GROWTH.  "
                    else:
                        comment = "NO GROWTH.  "
                    self.microevent_id += 1
                    rows.append([self.microevent_id, *common, "", "", "", "", "", "", "", "", "", "", comment])
        if rows:
            self.w["mimic-iv/hosp/microbiologyevents.csv.gz"].write_many(rows)
        if not summary:
            return rng.choice(("", "Blood cultures no growth to date at discharge.", ""))
        return "Micro: " + "; ".join(summary) + "."

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

    # ------------------------------------------------------------------------------------------
    def _radiology(self, rng, p: Patient, hadm_s, d: Disease, side: str, t_first: int, admittime: int,
                   fmt: SafeDict) -> list:
        impressions = []
        w = self.w["mimic-iv-note/note/radiology.csv.gz"]
        wd = self.w["mimic-iv-note/note/radiology_detail.csv.gz"]
        studies = [img for img in d.imaging if rng.random() < 0.92]
        outpatient = rng.random() < 0.06
        if outpatient:
            studies.insert(0, CXR_NORMAL)
        indication = d.chief_complaints[0].format_map(fmt).lower()
        for n, img in enumerate(studies):
            p.rr_seq += rng.randint(1, 4)
            note_id = f"{p.subject_id}-RR-{p.rr_seq}"
            is_out = outpatient and n == 0
            t = (admittime - rng.randint(30, 300) * DAY) if is_out else t_first + rng.randint(20, 240) * MINUTE
            store = t + rng.randint(25, 300) * MINUTE
            text, exam_name, impression = notes.radiology_report(
                rng, img, p.sex, "routine screening" if is_out else indication, side, comparison=bool(p.prior))
            hid = "" if is_out else hadm_s
            w.write((note_id, p.subject_id, hid, "RR", p.rr_seq, ts(t), ts(store), text))
            wd.write((note_id, p.subject_id, "exam_name", exam_name, 1))
            wd.write((note_id, p.subject_id, "exam_code", img.exam_code, 1))
            wd.write((note_id, p.subject_id, "cpt_code", img.cpt, 1))
            if not is_out:
                impressions.append((exam_name, impression))
            if rng.random() < 0.04:  # addendum
                p.rr_seq += 1
                ar_id = f"{p.subject_id}-AR-{p.rr_seq}"
                w.write((ar_id, p.subject_id, hid, "AR", p.rr_seq, ts(t), ts(store + rng.randint(1, 48) * HOUR),
                         notes.addendum(rng, text)))
                wd.write((ar_id, p.subject_id, "exam_name", exam_name, 1))
                wd.write((ar_id, p.subject_id, "cpt_code", img.cpt, 1))
                wd.write((ar_id, p.subject_id, "parent_note_id", note_id, 1))
                wd.write((note_id, p.subject_id, "addendum_note_id", ar_id, 1))
        return impressions

    def _fmt(self, rng, d: Disease, draws: list[LabDraw], first: dict, age: int, side: str, p: Patient,
             los_days: float) -> SafeDict:
        def peak(itemid, fn=max):
            vals = [dr.values[itemid] for dr in draws if itemid in dr.values and not isinstance(dr.values[itemid],
                                                                                                 str)]
            return fn(vals) if vals else None

        def f(itemid, value):
            if value is None:
                return "___"
            return fmt_num(min(LAB_ITEMS[itemid].vmax, max(LAB_ITEMS[itemid].vmin, value)),
                           LAB_ITEMS[itemid].decimals)

        last = {}
        for dr in draws:
            last.update({k: v for k, v in dr.values.items() if not isinstance(v, str)})
        h_m = p.height_in * 0.0254
        deficit = "left" if side == "right" else "right"  # hemispheric lesion -> contralateral deficit
        fmt = SafeDict(
            dur=rng.choice(("2 days", "3 days", "1 day", "several hours", "1 week", "4 days", "12 hours", "2 hours")),
            activity=rng.choice(ACTIVITIES), side=side, Side=side.capitalize(), side_cap=side.capitalize(),
            deficit=deficit, Deficit=deficit.capitalize(),
            time="___", nihss=str(rng.randint(3, 18)), day=str(rng.randint(2, 3)), chads=str(rng.randint(1, 5)),
            pesi=str(rng.randint(0, 2)), curb=str(rng.randint(0, 3)), meld=str(rng.randint(14, 30)),
            hours=str(rng.randint(10, 24)), benzo=str(rng.choice((40, 60, 80, 120))),
            etiology=rng.choice(("alcohol", "gallstones", "alcohol", "unclear (TGs normal, no stones)")),
            weight=f"{p.bmi * h_m * h_m * 0.97:.1f}",
            trop_peak=f(TROP, peak(TROP)), lipase_peak=f(50956, peak(50956)), wbc_peak=f(51301, peak(51301)),
            cr_peak=f(CR, peak(CR)), cr_dc=f(CR, last.get(CR)), cr=f(CR, first.get(CR)),
            lactate=f(50813, first.get(50813)), glu=f(GLU, first.get(GLU)), ag=f(AG, first.get(AG)),
            hco3=f(HCO3, first.get(HCO3)), na=f(NA, first.get(NA)), na_dc=f(NA, last.get(NA)),
            una=f(51100, first.get(51100)), ft4=f(50995, first.get(50995)), ferritin=f(50924, first.get(50924)),
            hgb=f(HGB, first.get(HGB)), hgb_nadir=f(HGB, peak(HGB, min)), uric=f(51007, first.get(51007)),
            apap=f(50856, first.get(50856)), ast_peak=f(50878, peak(50878)), csf_prot=f(51802, first.get(51802)),
            csf_glu=f(51790, first.get(51790)),
        )
        return fmt

    def _pertinent(self, rng, draws: list[LabDraw], sex: str, which: str) -> list[str]:
        if not draws:
            return []
        if which == "admission":
            t0 = draws[0].time
            sel = [dr for dr in draws if dr.time - t0 < 2 * HOUR]
        else:
            t_last = draws[-1].time
            if t_last - draws[0].time < 12 * HOUR:
                return []
            sel = [dr for dr in draws if t_last - dr.time < 2 * HOUR and dr.panel in DAILY_PANELS]
        lines = []
        for dr in sel:
            parts = []
            fluid = "BLOOD"
            for itemid, value in dr.values.items():
                item = LAB_ITEMS[itemid]
                if itemid == 50920:
                    continue
                if item.fluid == "Urine":
                    fluid = "URINE"
                elif item.fluid == "Cerebrospinal Fluid":
                    fluid = "CEREBROSPINAL FLUID (CSF)"
                if isinstance(value, str):
                    parts.append(f"{item.short}-{value}")
                    continue
                v = min(item.vmax, max(item.vmin, value))
                sval = fmt_num(v, item.decimals)
                ref = item.ref_for(sex)
                star = "*" if ref and not (float(ref[0]) <= float(sval) <= float(ref[1])) else ""
                if itemid in (51274, 51237) and rng.random() < 0.5:
                    parts.append("___")
                elif itemid == TROP and v < 0.01:
                    parts.append(f"{item.short}-<0.01")
                else:
                    parts.append(f"{item.short}-{sval}{star}")
            if parts:
                lines.append(f"___ {clock_12h(dr.time)} {fluid} " + " ".join(parts))
        return lines

    def _discharge_note(self, rng, p: Patient, hadm, d: Disease, chronic, pmh_only, v_adm, v_dc, home_meds,
                        secondary, proc_lines, draws, impressions, fmt, disch_loc, dischtime, micro_summary):
        pmh = []
        for key in pmh_only + chronic:
            c = COMORBIDITIES[key]
            pmh.append(c.pmh[0] if rng.random() < 0.5 else rng.choice(c.pmh))
        for prev in p.prior:
            pmh.append(prev.history_phrase or prev.name)
        rng.shuffle(pmh)
        dc_meds = []
        for key in list(home_meds) + [m for m in d.discharge_meds if m not in home_meds]:
            dc_meds.append(DRUGS[key].sig)
        chronic_course = []
        for key in chronic:
            course = COMORBIDITIES[key].course
            if course and rng.random() < 0.7:
                chronic_course.append(rng.choice(course))
        ctx = notes.NoteContext(
            disease=d, sex=p.sex, service=d.service, cc=rng.choice(d.chief_complaints).format_map(fmt), vitals=v_adm,
            vitals_dc=v_dc,
            pmh=pmh, prior_dx=list(p.prior), home_meds=[DRUGS[k].sig for k in home_meds], discharge_meds=dc_meds,
            secondary_dx=[s for s in secondary if rng.random() < 0.7], procedures=proc_lines,
            admission_labs=self._pertinent(rng, draws, p.sex, "admission"),
            discharge_labs=self._pertinent(rng, draws, p.sex, "discharge"),
            imaging_impressions=impressions, fmt=fmt, discharge_location=disch_loc, smoker=p.smoker, etoh=p.etoh,
            micro_summary=micro_summary, chronic_course=chronic_course,
        )
        text = notes.discharge_summary(rng, ctx)
        p.ds_seq += rng.randint(1, 6)
        note_id = f"{p.subject_id}-DS-{p.ds_seq}"
        store = dischtime + rng.randint(1 * HOUR, 60 * HOUR)
        self.w["mimic-iv-note/note/discharge.csv.gz"].write(
            (note_id, p.subject_id, hadm, "DS", p.ds_seq, ts_midnight(dischtime), ts(store), text))
        self.w["mimic-iv-note/note/discharge_detail.csv.gz"].write((note_id, p.subject_id, "author", "___", 1))


def ua_values(d: Disease, sex: str, rng: random.Random) -> dict:
    """Urinalysis text results for an admission (disease-specific or normal)."""
    vals = {U_LEUK: "NEG", U_NITRITE: "NEG", U_KETONE: "NEG", U_GLUCOSE: "NEG",
            U_PROTEIN: rng.choice(("NEG", "NEG", "TR"))}
    vals.update(d.ua)
    if sex == "F":
        vals[U_HCG] = d.ua.get(U_HCG, "NEG")
    return vals
