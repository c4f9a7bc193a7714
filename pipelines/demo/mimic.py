"""MIMIC-IV (hosp/icu), MIMIC-IV-Note and MIMIC-IV-ED (:mod:`.mimic_ed`) rows for one synthetic patient at a time.

Patients and admissions are generated sequentially; every admission has its own RNG derived from
``(seed, admission index)`` and every patient its own RNG derived from ``(seed, patient index)``,
so the first N admissions of a demo are identical whatever the total size.

This module holds the table headers and the admission timeline; the tables are written by the
mixins of :class:`MimicWriter`: :mod:`.mimic_labs`, :mod:`.mimic_transfers`, :mod:`.mimic_coding`,
:mod:`.mimic_micro`, :mod:`.mimic_meds`, :mod:`.mimic_vitals` and :mod:`.mimic_notes`; patients
come from :mod:`.mimic_patient`.
"""

from __future__ import annotations

import random
from pathlib import Path

from .diseases import COMORBIDITIES
from .mimic_coding import CodingMixin
from .mimic_ed import ED_HEADERS, EdWriter, Visit
from .mimic_labs import LabsMixin, _draw
from .mimic_meds import MedsMixin
from .mimic_micro import MicroMixin
from .mimic_notes import NotesMixin
from .mimic_patient import POPULATION, Patient, choose_disease
from .mimic_transfers import TransfersMixin
from .mimic_vitals import VitalsMixin
from .tables import D_ITEMS_COLUMNS
from .writer import DAY, HOUR, MINUTE, SegmentCsv, day_str, make_rng, scramble, ts, weighted

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

ED_LOCATIONS = {"EMERGENCY ROOM", "WALK-IN/SELF REFERRAL"}

# diseases whose ICD code (and procedure) is right-sided
RIGHT_SIDED = frozenset({"cellulitis", "dvt", "hip_fx", "gout", "lung_cancer"})


class MimicWriter(LabsMixin, TransfersMixin, CodingMixin, MicroMixin, MedsMixin, VitalsMixin, NotesMixin):
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
