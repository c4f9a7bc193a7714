"""MIMIC-IV-ED rows (``mimic-iv-ed/ed/*.csv.gz``) for the demo's admissions, in the publisher's layout.

An admission that came through the emergency department gets the ED stay it came from: linked by
``hadm_id``, registered at the admission's ``edregtime`` and left at its ``edouttime``, with a triage
complaint from its disease's chief complaints (written the way triage writes it: capitals, ",
Transfer"), triage and ED vital signs starting from the admission's, the home medications reconciled
on arrival (the chronic conditions' drugs, diabetic supplies beside them), the ED diagnosis (the
admission's own: diagnosis-revealing, as in the real module) and Pyxis dispensations. Some
admissions were preceded by a visit sent home (no ``hadm_id``; rarely one that carries it).

Traps of the real files: Celsius temperatures, pain written as words ("unable"), an impossible
value keyed now and then, triage rows without vital signs, free-text drugs marked ``*``.

Each admission draws from its own RNG ``(seed, "ed", admission index)``, so the other tables of the
demo are the same with or without this module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from pipelines.datafiles import yaml_record

from .diseases import COMORBIDITIES
from .records import Disease
from .reference import DRUGS
from .writer import DAY, HOUR, MINUTE, SafeDict, SegmentCsv, make_rng, ts, weighted

ED = "mimic-iv-ed/ed/"
ED_HEADERS: dict[str, tuple[str, ...]] = {
    ED + "edstays.csv.gz": ("subject_id", "hadm_id", "stay_id", "intime", "outtime", "gender", "race",
                            "arrival_transport", "disposition"),
    ED + "triage.csv.gz": ("subject_id", "stay_id", "temperature", "heartrate", "resprate", "o2sat", "sbp", "dbp",
                           "pain", "acuity", "chiefcomplaint"),
    ED + "vitalsign.csv.gz": ("subject_id", "stay_id", "charttime", "temperature", "heartrate", "resprate", "o2sat",
                              "sbp", "dbp", "rhythm", "pain"),
    ED + "medrecon.csv.gz": ("subject_id", "stay_id", "charttime", "name", "gsn", "ndc", "etc_rn", "etccode",
                             "etcdescription"),
    ED + "diagnosis.csv.gz": ("subject_id", "stay_id", "seq_num", "icd_code", "icd_version", "icd_title"),
    ED + "pyxis.csv.gz": ("subject_id", "stay_id", "charttime", "med_rn", "name", "gsn_rn", "gsn"),
}
_FIELDS = ("arrival_transport", "acuity", "capitals", "transfer", "no_triage_vitals", "celsius", "keying_error",
           "pain_words", "pain_words_share", "vitalsign_rows", "rhythms", "rhythm_share", "medrecon_share",
           "free_text_marker", "supplies", "visits_sent_home", "earlier_visit_linked", "visit_complaints")
_NORMAL = {"hr": 80.0, "sbp": 125.0, "dbp": 72.0, "rr": 16.0, "temp": 98.3, "spo2": 97.0}


@dataclass(frozen=True)
class EdSettings:
    arrival: tuple[tuple[str, float], ...]
    acuity_icu: tuple[tuple[int, float], ...]
    acuity_ward: tuple[tuple[int, float], ...]
    capitals: float
    transfer: float
    no_triage_vitals: float
    celsius: float
    keying_error: float
    pain_words: tuple[tuple[str, float], ...]
    pain_words_share: float
    vitalsign_rows: tuple[int, int]
    rhythms: tuple[tuple[str, float], ...]
    rhythm_share: float
    medrecon_share: float
    free_text_marker: float
    supplies: tuple[tuple[str, str], ...]
    visits_sent_home: float
    earlier_visit_linked: float
    visit_complaints: tuple[str, ...]


@cache
def settings() -> EdSettings:
    """data/ed.yaml, checked."""
    r = yaml_record(files(__package__) / "data", "ed.yaml", _FIELDS, "ED settings")
    acuity = r.sub("acuity")
    acuity.only(("icu", "ward"))
    supplies = r.get("supplies")
    if not (isinstance(supplies, list) and all(isinstance(s, list) and len(s) == 2 for s in supplies)):
        raise r.error("supplies", "expected a list of [name, FDB class] pairs")
    low, high = r.pair("vitalsign_rows")
    return EdSettings(
        arrival=tuple(r.weights("arrival_transport").items()),
        acuity_icu=tuple(acuity.weights("icu").items()), acuity_ward=tuple(acuity.weights("ward").items()),
        capitals=r.probability("capitals"), transfer=r.probability("transfer"),
        no_triage_vitals=r.probability("no_triage_vitals"), celsius=r.probability("celsius"),
        keying_error=r.probability("keying_error"), pain_words=tuple(r.weights("pain_words").items()),
        pain_words_share=r.probability("pain_words_share"), vitalsign_rows=(int(low), int(high)),
        rhythms=tuple(r.weights("rhythms").items()), rhythm_share=r.probability("rhythm_share"),
        medrecon_share=r.probability("medrecon_share"), free_text_marker=r.probability("free_text_marker"),
        supplies=tuple((str(a), str(b)) for a, b in supplies), visits_sent_home=r.probability("visits_sent_home"),
        earlier_visit_linked=r.probability("earlier_visit_linked"), visit_complaints=r.texts("visit_complaints"),
    )


@dataclass(frozen=True)
class Visit:
    """What the ED writer needs to know of one admission (from pipelines.demo.mimic)."""

    index: int  # global admission index
    subject_id: int
    sex: str
    race: str
    hadm_id: int
    disease: Disease
    icd_version: int
    has_ed: bool
    ed_registration: int  # edregtime (seconds) of an admission through the ED, else its admittime
    ed_out: int
    icu: bool
    vitals: dict  # the admission's vital signs (pipelines/demo/mimic.py v_adm)
    home_meds: tuple[str, ...]  # drug keys (data/drugs.csv)
    chronic: tuple[str, ...]  # comorbidity keys
    fmt: SafeDict  # placeholders of the disease's texts ({Deficit}, ...)
    last_discharge: int  # the patient's previous discharge (0: none)


class EdWriter:
    """Writes the ED rows of each admission into the MIMIC writer's segment files (``w``)."""

    def __init__(self, w: dict[str, SegmentCsv], seed: int):
        self.w = w
        self.seed = seed
        self.s = settings()

    def admission(self, v: Visit) -> None:
        rng = make_rng(self.seed, "ed", v.index)
        base = 80_000_000 + v.index * 4  # stay ids: this admission's, an earlier linked visit's, one sent home
        if v.has_ed:
            if rng.random() < self.s.earlier_visit_linked:
                intime = v.ed_registration - rng.randint(8 * HOUR, 20 * HOUR)
                self._visit(rng, v, base + 1, intime, intime + rng.randint(2 * HOUR, 6 * HOUR), v.hadm_id, "HOME",
                            rng.choice(v.disease.chief_complaints).format_map(v.fmt))
            self._stay(rng, v, base)
        earliest = max(v.last_discharge + DAY, v.ed_registration - 60 * DAY)
        if rng.random() < self.s.visits_sent_home and earliest < v.ed_registration - 2 * DAY:
            intime = rng.randint(earliest, v.ed_registration - 2 * DAY)
            self._visit(rng, v, base + 2, intime, intime + rng.randint(2 * HOUR, 8 * HOUR), "", "HOME",
                        rng.choice(self.s.visit_complaints))

    # -- one stay ------------------------------------------------------------------------------
    def _stay(self, rng: random.Random, v: Visit, stay_id: int) -> None:
        complaint = rng.choice(v.disease.chief_complaints).format_map(v.fmt)
        if rng.random() < self.s.transfer:
            complaint += ", Transfer"
        self._edstay(rng, v, stay_id, v.ed_registration, v.ed_out, v.hadm_id, "ADMITTED")
        self._triage(rng, v, stay_id, complaint, v.vitals)
        self._vitalsigns(rng, v, stay_id, v.ed_registration, v.ed_out)
        if rng.random() < self.s.medrecon_share:
            self._medrecon(rng, v, stay_id, v.ed_registration)
        code, title = v.disease.code.for_version(v.icd_version)
        rows = [(v.subject_id, stay_id, 1, code, v.icd_version, title.upper())]
        if v.chronic and rng.random() < 0.5:
            c_code, c_title = COMORBIDITIES[rng.choice(v.chronic)].code.for_version(v.icd_version)
            rows.append((v.subject_id, stay_id, 2, c_code, v.icd_version, c_title.upper()))
        self.w[ED + "diagnosis.csv.gz"].write_many(rows)
        t = v.ed_registration + rng.randint(20, 90) * MINUTE
        for k, key in enumerate(v.disease.admission_meds[:4], 1):
            drug = DRUGS[key]
            self.w[ED + "pyxis.csv.gz"].write((v.subject_id, stay_id, ts(t + k * 10 * MINUTE), k, drug.drug, 1,
                                               drug.gsn))

    def _visit(self, rng: random.Random, v: Visit, stay_id: int, intime: int, outtime: int, hadm_id, disposition: str,
               complaint: str) -> None:
        """An ED visit that did not lead to this admission: stay and triage with normal vital signs."""
        self._edstay(rng, v, stay_id, intime, outtime, hadm_id, disposition)
        self._triage(rng, v, stay_id, complaint, _NORMAL)

    def _edstay(self, rng, v: Visit, stay_id: int, intime: int, outtime: int, hadm_id, disposition: str) -> None:
        self.w[ED + "edstays.csv.gz"].write((v.subject_id, hadm_id, stay_id, ts(intime), ts(outtime), v.sex, v.race,
                                             weighted(rng, self.s.arrival), disposition))

    def _triage(self, rng, v: Visit, stay_id: int, complaint: str, vitals: dict) -> None:
        if rng.random() < self.s.capitals:
            complaint = complaint.upper()
        acuity = weighted(rng, self.s.acuity_icu if v.icu else self.s.acuity_ward)
        if rng.random() < self.s.no_triage_vitals:
            signs = ("",) * 7
        else:
            signs = (self._temperature(rng, vitals["temp"]), *self._numbers(rng, vitals), self._pain(rng))
        self.w[ED + "triage.csv.gz"].write((v.subject_id, stay_id, *signs, acuity, complaint))

    def _vitalsigns(self, rng, v: Visit, stay_id: int, intime: int, outtime: int) -> None:
        low, high = self.s.vitalsign_rows
        n = rng.randint(low, high)
        rows = []
        for k in range(n):
            t = intime + int((outtime - intime) * (k + 0.5) / n) + rng.randint(-10, 10) * MINUTE
            frac = 0.75 ** (k + 1)  # towards normal as the ED treats the patient
            now = {key: _NORMAL[key] + (v.vitals[key] - _NORMAL[key]) * frac for key in _NORMAL}
            temperature = self._temperature(rng, now["temp"]) if rng.random() < 0.6 else ""
            numbers = list(self._numbers(rng, now))
            if rng.random() < self.s.keying_error:
                numbers[rng.randrange(len(numbers))] = rng.choice((879, 1, 0, 999))
            rhythm = weighted(rng, self.s.rhythms) if rng.random() < self.s.rhythm_share else ""
            rows.append((v.subject_id, stay_id, ts(min(max(t, intime), outtime)), temperature, *numbers, rhythm,
                         self._pain(rng)))
        self.w[ED + "vitalsign.csv.gz"].write_many(rows)

    def _medrecon(self, rng, v: Visit, stay_id: int, intime: int) -> None:
        t = ts(intime + rng.randint(30, 150) * MINUTE)
        rows = []
        for key in v.home_meds:
            drug = DRUGS[key]
            name = drug.drug.lower()
            if rng.random() < self.s.free_text_marker:
                rows.append((v.subject_id, stay_id, t, f"*{name}", "", "0", 1, "", ""))
            else:
                rows.append((v.subject_id, stay_id, t, name, drug.gsn, drug.ndc, 1, "", ""))
        if {"dm1", "dm2"} & set(v.chronic):
            for name, etc in self.s.supplies[: rng.randint(1, len(self.s.supplies))]:
                rows.append((v.subject_id, stay_id, t, name, "", "0", 1, "", etc))
        self.w[ED + "medrecon.csv.gz"].write_many(rows)

    # -- values --------------------------------------------------------------------------------
    def _temperature(self, rng, fahrenheit: float) -> str:
        value = fahrenheit + rng.gauss(0, 0.3)
        if rng.random() < self.s.celsius:
            return f"{(value - 32) / 1.8:.1f}"
        return f"{value:.1f}"

    @staticmethod
    def _numbers(rng, vitals: dict) -> tuple[int, ...]:
        """heartrate, resprate, o2sat, sbp, dbp."""
        hr = max(35, round(vitals["hr"] + rng.gauss(0, 3)))
        rr = max(8, round(vitals["rr"] + rng.gauss(0, 1)))
        spo2 = min(100, round(vitals["spo2"] + rng.gauss(0, 1)))
        sbp = round(vitals["sbp"] + rng.gauss(0, 5))
        dbp = min(round(vitals["dbp"] + rng.gauss(0, 4)), sbp - 15)
        return hr, rr, spo2, sbp, dbp

    def _pain(self, rng) -> str:
        if rng.random() < self.s.pain_words_share:
            return weighted(rng, self.s.pain_words)
        return str(rng.choice((0, 0, 0, 2, 3, 5, 6, 7, 8, 10)))
