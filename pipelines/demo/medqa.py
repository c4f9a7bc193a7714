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

from .catalog import catalog
from .diseases import COMORBIDITIES, DISEASES
from .notes import gender_text, sex_filter
from .records import Disease
from .reference import LAB_IDS, LAB_ITEMS
from .writer import SafeDict, make_rng, weighted

PHRASES = catalog().medqa  # data/medqa.yaml, data/medqa_labs.csv
LABS = PHRASES.labs  # itemid -> how vignettes name the result
LETTERS = ("A", "B", "C", "D", "E")


def _draw(rng: random.Random, spec) -> float:
    if len(spec) == 3:
        return spec[0] * math.exp(rng.gauss(0.0, spec[1]))
    return rng.gauss(spec[0], spec[1])


def _fmt_lab(itemid: int, value: float) -> str:
    lab = LABS[itemid]
    name, unit, dec = lab.name, lab.unit, lab.decimals
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
    abnormal = [it for it in d.labs if it in LABS]
    rng.shuffle(abnormal)
    chosen = abnormal[: rng.randint(2, 6)]
    extra = [it for it in (LAB_IDS[k] for k in ("hgb", "wbc", "na", "cr", "glu")) if it not in chosen]
    rng.shuffle(extra)
    chosen += extra[: rng.randint(0, 3)]
    if not chosen:
        return "", False
    values = {it: _draw(rng, d.labs[it]) if it in d.labs else _draw(rng, LAB_ITEMS[it].normal) for it in chosen}
    if rng.random() < 0.45:  # multi-line table, MedQA style
        hema = [it for it, lab in LABS.items() if lab.section == "hematology" and it in values]
        serum = [it for it in chosen if LABS[it].section == "serum"]
        abg = [it for it in chosen if LABS[it].section == "blood_gas"]
        other = [it for it in chosen if LABS[it].section == "other"]
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


def _vignette(rng: random.Random, d: Disease, sex: str, age: int) -> tuple[str, bool]:
    """(vignette, ends_with_table)."""
    pron = "His" if sex == "M" else "Her"
    subj = "He" if sex == "M" else "She"
    noun = "man" if sex == "M" else "woman"
    article = "An" if str(age).startswith("8") or age in (11, 18) else "A"
    parts = [f"{article} {age}-year-old {noun} {rng.choice(PHRASES.settings)} {d.presentation}."]
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
        tail.append(f"{PHRASES.imaging_phrases.get(img.exam_code, 'Imaging')} shows {that}{_lc_first(finding)}.")
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
    d = weighted(rng, [(x, x.weight) for x in DISEASES])
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
        stem = rng.choice(PHRASES.diagnosis_stems)
        answer = d.name
        meta = "step2&3" if rng.random() < 0.6 else "step1"
    else:
        qa = rng.choice(d.medqa)
        distractors = list(qa.distractors)
        rng.shuffle(distractors)
        stem = rng.choice(PHRASES.question_stems[qa.kind])
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
