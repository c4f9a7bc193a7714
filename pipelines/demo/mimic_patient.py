"""Synthetic MIMIC-IV patients: demographics, chronic conditions and the disease of each admission.

A :class:`Patient` carries what later admissions of the same subject need (prior diagnoses,
note/order sequence numbers, last discharge, date of death).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .catalog import catalog
from .diseases import COMORBIDITIES, DISEASES
from .records import Disease
from .writer import DAY, weighted, year_start

POPULATION = catalog().population  # data/population.yaml


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
