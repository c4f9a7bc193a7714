"""MedQA (USMLE, 5 options) style questions built from the disease catalog.

About two thirds ask for the diagnosis (answer = a catalog disease name); the rest ask for the next
step, the pharmacotherapy, the mechanism of action or a diagnostic test.  Vignettes mix history
with vital signs (with units), examination, laboratory results (sometimes a multi-line table) and
imaging findings (never the impression, which names the diagnosis).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from .diseases import DISEASE_WEIGHTS, DISEASES, COMORBIDITIES, Disease
from .notes import gender_text, sex_filter
from .reference import LAB_ITEMS
from .writer import SafeDict, make_rng, weighted

PRESENTATIONS = {
    "stemi": "a 1-hour history of crushing substernal chest pain radiating to the left arm",
    "nstemi": "chest pressure that began 3 hours ago while she was at rest",
    "adhf": "a 1-week history of progressive shortness of breath and swelling of both legs",
    "afib_rvr": "palpitations and lightheadedness that began 6 hours ago",
    "pe": "sudden onset of shortness of breath and sharp right-sided chest pain that worsens with inspiration",
    "dvt": "a 3-day history of swelling and pain of the right leg",
    "stroke": "sudden weakness of the right arm and difficulty speaking that began 90 minutes ago",
    "cap": "a 3-day history of fever, chills, and cough productive of rusty sputum",
    "copd_exac": "a 4-day history of worsening shortness of breath and increased sputum production",
    "asthma_exac": "a 1-day history of wheezing and chest tightness",
    "sepsis": "fever and confusion for 1 day",
    "pyelo": "a 2-day history of fever, chills, and right flank pain",
    "cellulitis": "a 3-day history of a painful, red, swollen area on the right lower leg",
    "meningitis": "a 1-day history of severe headache, fever, and neck stiffness",
    "cdiff": "a 5-day history of watery diarrhea and crampy abdominal pain",
    "pancreatitis": "severe epigastric pain radiating to the back and vomiting for 8 hours",
    "appendicitis": "abdominal pain that began around the umbilicus 18 hours ago and moved to the right lower "
                    "quadrant",
    "cholecystitis": "a 1-day history of constant right upper quadrant pain and nausea",
    "pud_bleed": "black, tarry stools for 2 days and lightheadedness",
    "sbo": "a 2-day history of crampy abdominal pain, distension, and bilious vomiting",
    "cirrhosis": "increasing abdominal girth and confusion for 1 week",
    "dka": "a 2-day history of nausea, vomiting, abdominal pain, and excessive thirst",
    "hyponatremia": "a 5-day history of nausea, headache, and confusion",
    "thyrotoxicosis": "a 3-month history of palpitations, heat intolerance, and weight loss",
    "aki": "fatigue and decreased urine output for 4 days",
    "ida": "a 2-month history of fatigue and shortness of breath on exertion",
    "seizure": "an episode of generalized shaking witnessed by his wife 1 hour ago",
    "hip_fx": "right hip pain after a fall at home",
    "gout": "sudden onset of severe pain and swelling of the right great toe that woke him from sleep",
    "lupus_nephritis": "a 3-week history of swelling of both legs, joint pain, and foamy urine",
    "etoh_withdrawal": "tremors, sweating, and anxiety that began 1 day after his last drink",
    "apap_od": "nausea after intentionally ingesting a bottle of pills 6 hours ago",
    "preeclampsia": "a severe headache and blurry vision at 34 weeks' gestation",
    "lung_cancer": "a 2-month history of cough and blood-streaked sputum",
    "syncope": "a brief loss of consciousness while standing in line at a pharmacy",
}
SETTINGS = ("comes to the emergency department because of", "is brought to the emergency department because of",
            "comes to the physician because of", "presents to the emergency department with",
            "is evaluated in the emergency department for")

# MedQA-style lab names
LAB_NAMES = {
    51222: ("Hemoglobin", "g/dL", 1), 51221: ("Hematocrit", "%", 0), 51301: ("Leukocyte count", "/mm3", -2),
    51265: ("Platelet count", "/mm3", -3), 51250: ("Mean corpuscular volume", "μm3", 0),
    50983: ("Na+", "mEq/L", 0), 50971: ("K+", "mEq/L", 1), 50902: ("Cl−", "mEq/L", 0),
    50882: ("HCO3−", "mEq/L", 0), 51006: ("Urea nitrogen", "mg/dL", 0), 50912: ("Creatinine", "mg/dL", 1),
    50931: ("Glucose", "mg/dL", 0), 50893: ("Calcium", "mg/dL", 1), 50960: ("Mg2+", "mg/dL", 1),
    50970: ("Phosphorus", "mg/dL", 1), 50861: ("ALT", "U/L", 0), 50878: ("AST", "U/L", 0),
    50863: ("Alkaline phosphatase", "U/L", 0), 50885: ("Total bilirubin", "mg/dL", 1),
    50862: ("Albumin", "g/dL", 1), 50956: ("Lipase", "U/L", 0), 50867: ("Amylase", "U/L", 0),
    51003: ("Troponin T", "ng/mL", 2), 50963: ("NT-proBNP", "pg/mL", 0), 50910: ("Creatine kinase", "U/L", 0),
    51237: ("INR", "", 1), 51275: ("Partial thromboplastin time", "sec", 0), 50915: ("D-dimer", "ng/mL", 0),
    50889: ("C-reactive protein", "mg/L", 0), 50993: ("TSH", "μU/mL", 2), 50995: ("Free T4", "ng/dL", 1),
    50852: ("Hemoglobin A1c", "%", 1), 51007: ("Uric acid", "mg/dL", 1), 50924: ("Ferritin", "ng/mL", 0),
    50952: ("Iron", "μg/dL", 0), 50856: ("Acetaminophen", "μg/mL", 0), 50866: ("Ammonia", "μmol/L", 0),
    50964: ("Osmolality", "mOsmol/kg H2O", 0), 50813: ("Lactate", "mmol/L", 1), 50820: ("pH", "", 2),
    50818: ("Pco2", "mm Hg", 0), 50821: ("Po2", "mm Hg", 0), 51802: ("CSF protein", "mg/dL", 0),
    51790: ("CSF glucose", "mg/dL", 0), 50954: ("Lactate dehydrogenase", "U/L", 0),
    51100: ("Urine sodium", "mEq/L", 0), 51277: ("Red cell distribution width", "%", 0),
    51256: ("Segmented neutrophils", "%", 0), 51516: ("Urine WBC", "/hpf", 0), 51493: ("Urine RBC", "/hpf", 0),
}
SERUM = {50983, 50971, 50902, 50882, 51006, 50912, 50931, 50893, 50960, 50970, 50861, 50878, 50863, 50885, 50862,
         50956, 50867, 51003, 50963, 50910, 50889, 50993, 50995, 51007, 50924, 50952, 50856, 50866, 50964, 50954}
HEMATOLOGY_FIRST = (51222, 51221, 51301, 51265, 51250)
DIAGNOSIS_STEMS = (
    "Which of the following is the most likely diagnosis?",
    "Which of the following is the most likely diagnosis?",
    "What is the most likely diagnosis?",
    "Which of the following is the most likely cause of this patient's symptoms?",
    "Which of the following is the most likely cause of this patient's condition?",
    "Which of the following best explains this patient's findings?",
    "What is the most likely diagnosis in this patient?",
)
OTHER_STEMS = {
    "next_step": ("Which of the following is the most appropriate next step in management?",
                  "What is the most appropriate next step in the management of this patient?",
                  "Which of the following is the most appropriate initial step in management?"),
    "pharm": ("Which of the following is the most appropriate pharmacotherapy?",
              "Which of the following is the most appropriate treatment for this patient's condition?",
              "Which of the following drugs is most appropriate for this patient?"),
    "mechanism": ("The most appropriate pharmacotherapy for this patient's condition is begun. Which of the "
                  "following is the mechanism of action of this drug?",
                  "Which of the following is the mechanism of action of the most appropriate drug for this "
                  "patient?"),
    "test": ("Which of the following is the most appropriate next step in diagnosis?",
             "Which of the following is most likely to confirm the diagnosis?",
             "Which of the following tests is the most appropriate to establish the diagnosis?"),
}
LETTERS = ("A", "B", "C", "D", "E")


def _draw(rng: random.Random, spec) -> float:
    if len(spec) == 3:
        return spec[0] * math.exp(rng.gauss(0.0, spec[1]))
    return rng.gauss(spec[0], spec[1])


def _fmt_lab(itemid: int, value: float) -> str:
    name, unit, dec = LAB_NAMES[itemid]
    item = LAB_ITEMS[itemid]
    value = min(item.vmax, max(item.vmin, value))
    if unit == "/mm3":
        value = round(value * 1000, dec)  # K/uL -> /mm3, rounded like MedQA (15,800/mm3)
        s = f"{int(value):,}"
        return f"{name} {s}{unit}"
    elif dec <= 0:
        s = f"{int(round(value)):,}"
    else:
        s = f"{value:.{dec}f}"
    return f"{name} {s}{(' ' + unit) if unit and unit != '%' else unit}"


def _c_to_text(temp_f: float) -> str:
    c = (temp_f - 32) * 5 / 9
    return f"{c:.1f}°C ({temp_f:.1f}°F)"


def _vitals_sentence(rng: random.Random, d: Disease, pron: str) -> str:
    v = {k: _draw(rng, spec) for k, spec in d.vitals.items()}
    parts = (f"{pron} temperature is {_c_to_text(v['temp'])}, pulse is {int(v['hr'])}/min, respirations are "
             f"{int(v['rr'])}/min, and blood pressure is {int(v['sbp'])}/{int(min(v['dbp'], v['sbp'] - 20))} mm Hg.")
    if v["spo2"] < 95 or rng.random() < 0.3:
        parts += f" Pulse oximetry on room air shows an oxygen saturation of {int(min(100, v['spo2']))}%."
    return parts


_KEEP_CASE = ("Na+", "K+", "Cl", "HCO3", "Mg2+", "AST", "ALT", "INR", "TSH", "NT-proBNP", "Pco2", "Po2", "pH",
              "CSF", "Free T4", "C-reactive")


def _lc_first(s: str) -> str:
    if s.startswith(_KEEP_CASE) or not s[1:2].islower():
        return s
    return s[0].lower() + s[1:]


def _labs_text(rng: random.Random, d: Disease) -> tuple[str, bool]:
    """(text, is_table)."""
    abnormal = [it for it in d.labs if it in LAB_NAMES]
    rng.shuffle(abnormal)
    chosen = abnormal[: rng.randint(2, 6)]
    extra = [it for it in (51222, 51301, 50983, 50912, 50931) if it not in chosen]
    rng.shuffle(extra)
    chosen += extra[: rng.randint(0, 3)]
    if not chosen:
        return "", False
    values = {it: _draw(rng, d.labs[it]) if it in d.labs else _draw(rng, LAB_ITEMS[it].normal) for it in chosen}
    if rng.random() < 0.45:  # multi-line table, MedQA style
        hema = [it for it in HEMATOLOGY_FIRST if it in values]
        serum = [it for it in chosen if it in SERUM]
        abg = [it for it in chosen if it in (50820, 50818, 50821)]
        other = [it for it in chosen if it not in hema and it not in serum and it not in abg]
        lines = ["Laboratory studies show:"]
        lines += [_fmt_lab(it, values[it]) for it in hema]
        if serum:
            lines.append("Serum")
            lines += [_fmt_lab(it, values[it]) for it in serum]
        lines += [_fmt_lab(it, values[it]) for it in other]
        if abg:
            lines.append("Arterial blood gas analysis on room air:")
            lines += [_fmt_lab(it, values[it]) for it in abg]
        return "\n".join(lines), True
    items = [_lc_first(_fmt_lab(it, values[it])) for it in chosen]
    if len(items) > 2:
        joined = ", ".join(items[:-1]) + ", and " + items[-1]
    else:
        joined = " and ".join(items)
    return f"Laboratory studies show {joined}.", False


IMAGING_WORDS = {"C11": "An x-ray of the chest", "C12": "An x-ray of the chest", "CTA": "CT angiography of the chest",
                 "CCTW": "A CT scan of the chest", "CHDW": "A CT scan of the head", "MHD": "An MRI of the brain",
                 "CAPW": "A CT scan of the abdomen", "LGUS": "Ultrasonography of the right upper quadrant",
                 "RUS": "Renal ultrasonography", "LEVU": "Compression ultrasonography of the right leg",
                 "HIP2": "An x-ray of the pelvis", "FT3": "An x-ray of the foot"}


def _vignette(rng: random.Random, d: Disease, sex: str, age: int) -> tuple[str, bool]:
    """(vignette, ends_with_table)."""
    pron = "His" if sex == "M" else "Her"
    subj = "He" if sex == "M" else "She"
    noun = "man" if sex == "M" else "woman"
    article = "An" if str(age).startswith("8") or age in (11, 18) else "A"
    parts = [f"{article} {age}-year-old {noun} {rng.choice(SETTINGS)} {PRESENTATIONS[d.key]}."]
    clues = sex_filter(d.history_clues, sex)
    rng.shuffle(clues)
    parts += clues[: rng.randint(1, len(clues))] if clues else []
    comorb = [COMORBIDITIES[k] for k, prob in d.comorbidities if prob > 0.25 and COMORBIDITIES[k].sex in (None, sex)]
    if comorb and rng.random() < 0.5:
        c = rng.choice(comorb)
        if c.pmh[0].lower() not in " ".join(parts).lower():
            parts.append(f"{subj} has a history of {_lc_first(c.pmh[0])}.")
    negs = [n for n in d.negatives if n.startswith("Denies ")]
    if negs and rng.random() < 0.5:
        parts.append(f"{subj} denies {rng.choice(negs)[7:]}")
    parts.append(_vitals_sentence(rng, d, pron))
    ex = list(d.exam_clues)
    rng.shuffle(ex)
    if ex:
        parts.append(" ".join(ex[: rng.randint(1, len(ex))]))
    labs, table = _labs_text(rng, d)
    tail = []
    if d.imaging and rng.random() < 0.6:
        img = rng.choice(d.imaging)
        fmt = SafeDict(side="right", Side="Right", SIDE="RIGHT")
        finding = rng.choice(img.findings).format_map(fmt).split(".  ")[0].rstrip(".")
        for lead in ("There is ", "There are "):
            if finding.startswith(lead):
                finding = finding[len(lead):]
        that = "that " if finding.startswith(("The ", "Lungs ", "Hyperexpanded")) else ""
        tail.append(f"{IMAGING_WORDS.get(img.exam_code, 'Imaging')} shows {that}{_lc_first(finding)}.")
    text = " ".join(parts)
    if labs:
        text += ("\n" if table and rng.random() < 0.3 else " ") + labs
    if tail:
        text += ("\n" if table else " ") + " ".join(tail)
        table = False
    return gender_text(text.replace("  ", " "), sex), table


def _options(rng: random.Random, answer: str, distractors: list[str]) -> tuple[dict, str]:
    opts = [answer] + distractors[:4]
    rng.shuffle(opts)
    options = {LETTERS[k]: o for k, o in enumerate(opts)}
    return options, LETTERS[opts.index(answer)]


def make_question(rng: random.Random) -> dict:
    d = weighted(rng, [(x, DISEASE_WEIGHTS.get(x.key, 1.0)) for x in DISEASES])
    if d.sex:
        sex = d.sex
    else:
        sex = "F" if rng.random() < d.female_share else "M"
    age = int(min(d.age_range[1], max(d.age_range[0], rng.gauss(*d.age))))
    vignette, table = _vignette(rng, d, sex, age)
    if rng.random() < 0.67 or not d.medqa:
        same = [x for x in DISEASES if x is not d and x.system == d.system and (x.sex in (None, sex))]
        other = [x for x in DISEASES if x is not d and x.system != d.system and (x.sex in (None, sex))]
        rng.shuffle(same)
        rng.shuffle(other)
        distractors = [x.name for x in (same[:3] + other)][:4]
        stem = rng.choice(DIAGNOSIS_STEMS)
        answer = d.name
        meta = "step2&3" if rng.random() < 0.6 else "step1"
    else:
        qa = rng.choice(d.medqa)
        distractors = list(qa.distractors)
        rng.shuffle(distractors)
        stem = rng.choice(OTHER_STEMS[qa.kind])
        answer = qa.answer
        meta = "step1" if qa.kind == "mechanism" else "step2&3"
    options, idx = _options(rng, answer, distractors)
    return {"question": vignette + ("\n" if table else " ") + stem, "answer": answer, "options": options,
            "meta_info": meta, "answer_idx": idx}


def medqa_chunk(segdir: Path, seed: int, first: int, n: int) -> str:
    """Write questions ``first .. first+n-1`` as JSON lines into a segment file; return its path."""
    path = segdir / "medqa__US_demo.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for q in range(first, first + n):
            f.write(json.dumps(make_question(make_rng(seed, "medqa", q)), ensure_ascii=False) + "\n")
    return str(path)
