"""Free-text builders: MIMIC-IV-Note style discharge summaries and radiology reports.

The layout follows MIMIC-IV-Note v2.2: de-identified spans are ``___`` (also inside headers),
headers stand on their own line, sections vary in presence, order and spelling so that nothing can
be tuned to a single template.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from .catalog import catalog
from .records import Disease, Imaging
from .writer import SafeDict, wrap

PHRASES = catalog().notes  # data/notes.yaml


@dataclass
class NoteContext:
    """Everything the discharge-summary builder needs about one admission."""

    disease: Disease
    sex: str
    service: str
    cc: str
    vitals: dict  # admission vitals (hr, sbp, dbp, rr, temp, spo2)
    vitals_dc: dict
    pmh: list[str]
    prior_dx: list[Disease]  # primary diagnoses of earlier admissions
    home_meds: list[str]  # discharge-summary medication lines
    discharge_meds: list[str]
    secondary_dx: list[str]
    procedures: list[str]
    admission_labs: list[str]  # formatted "Pertinent Results" lines
    discharge_labs: list[str]
    imaging_impressions: list[tuple[str, str]]  # (exam name, impression)
    fmt: SafeDict
    discharge_location: str
    smoker: bool
    etoh: bool
    micro_summary: str = ""
    chronic_course: list[str] = field(default_factory=list)


_TO_MALE = ((re.compile(r"\bShe\b"), "He"), (re.compile(r"\bshe\b"), "he"), (re.compile(r"\bHer\b"), "His"),
            (re.compile(r"\bher\b"), "his"), (re.compile(r"\bherself\b"), "himself"),
            (re.compile(r"\bwoman\b"), "man"))
_TO_FEMALE = ((re.compile(r"\bHe\b"), "She"), (re.compile(r"\bhe\b"), "she"), (re.compile(r"\bHis\b"), "Her"),
              (re.compile(r"\bhis\b"), "her"), (re.compile(r"\bhim\b"), "her"),
              (re.compile(r"\bhimself\b"), "herself"), (re.compile(r"\bman\b"), "woman"))


FEMALE_ONLY = re.compile(r"vagin|menstru|menorrhag|contracepti|pregnan|gestation|G\dP\d|gyneco", re.I)
MALE_ONLY = re.compile(r"prostat|testic|scrot", re.I)


def sex_ok(text: str, sex: str) -> bool:
    """False for phrasings that only fit the other sex (menses, pregnancy, prostate...)."""
    return not (FEMALE_ONLY.search(text) if sex == "M" else MALE_ONLY.search(text))


def sex_filter(options, sex: str) -> list[str]:
    return [o for o in options if sex_ok(o, sex)]


def gender_text(text: str, sex: str) -> str:
    """Make the pronouns of catalog phrasings agree with the patient's sex."""
    for pattern, repl in (_TO_MALE if sex == "M" else _TO_FEMALE):
        text = pattern.sub(repl, text)
    return text


def _pick(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


def _header(rng: random.Random, standard: str, variants: tuple[str, ...], p: float) -> str:
    return _pick(rng, variants) if rng.random() < p else standard


def vitals_line(v: dict, rng: random.Random) -> str:
    t, hr, sbp, dbp, rr, sat = (f"{v['temp']:.1f}", int(v["hr"]), int(v["sbp"]), int(v["dbp"]), int(v["rr"]),
                                int(v["spo2"]))
    o2 = _pick(rng, ("RA", "RA", "on RA", "2L NC", "Ra"))
    sep = "" if o2 in ("RA", "Ra") else " "
    style = rng.randrange(4)
    if style == 0:
        return f"VS: {t} {hr} {sbp}/{dbp} {rr} {sat}% {o2}"
    if style == 1:
        return f"VS: T {t} HR {hr} BP {sbp}/{dbp} RR {rr} O2 {sat}% {o2}"
    if style == 2:
        return f"Vitals: {t}, {sbp}/{dbp}, {hr}, {rr}, {sat}% {o2}"
    return f"VITALS: T {t} BP {sbp}/{dbp} HR {hr} RR {rr} SpO2 {sat}%{sep}{o2}"


def exam_block(rng: random.Random, disease: Disease, vitals: dict, admission: bool, label_style: int,
               fmt: SafeDict | None = None) -> str:
    abnormal = dict(disease.exam)
    lines = [vitals_line(vitals, rng)]
    for system in PHRASES.exam_order:
        label = PHRASES.exam_labels[system][label_style]
        if system in abnormal:
            finding = _pick(rng, abnormal[system])
            if not admission:
                r = rng.random()
                if system == "Neuro" and disease.key == "stroke":
                    finding = "improved; " + finding
                elif r < 0.35:
                    finding = "improved, " + finding[0].lower() + finding[1:]
                elif system in PHRASES.normal_exam:
                    finding = _pick(rng, PHRASES.normal_exam[system])
                else:
                    continue
            lines.append(f"{label} {finding.format_map(fmt if fmt is not None else SafeDict())}")
        elif system in PHRASES.normal_exam:
            if not admission and rng.random() < 0.25:
                continue
            lines.append(f"{label} {_pick(rng, PHRASES.normal_exam[system])}")
    return "\n".join(lines)


def _pmh_text(rng: random.Random, items: list[str]) -> str:
    if not items:
        return _pick(rng, ("None", "Denies", "No significant past medical history.", "___"))
    style = rng.randrange(4)
    if style == 0:
        return "\n".join(f"- {x}" for x in items)
    if style == 1:
        return "\n".join(f"{i}. {x}" for i, x in enumerate(items, 1))
    if style == 2:
        return ", ".join(items)
    return "PAST MEDICAL HISTORY:\n" + "\n".join(f"- {x}" for x in items)


def _social(rng: random.Random, ctx: NoteContext) -> str:
    if rng.random() < 0.45:
        return "___"
    partner = "wife" if ctx.sex == "M" else "husband"
    parts = [_pick(rng, ("Lives with ___.", "Lives alone in an apartment.", f"Lives with {partner}.",
                         f"Lives with {partner} and son.", "Retired ___, lives with family.",
                         "Lives in ___ facility.", f"Married, lives with {partner}. Works as ___."))]
    if ctx.smoker:
        parts.append(_pick(rng, ("Tobacco: 1 ppd x ___ years.", "Current smoker, ~40 pack-years.",
                                 "Smokes 1/2 ppd.")))
    else:
        parts.append(_pick(rng, ("Tobacco: never.", "Former smoker, quit ___ years ago.", "Denies tobacco.")))
    if ctx.etoh:
        parts.append(_pick(rng, ("EtOH: ___ drinks daily.", "Drinks 1 pint vodka daily.",
                                 "Heavy EtOH use, 6-8 beers/day.")))
    else:
        parts.append(_pick(rng, ("EtOH: occasional.", "Denies EtOH.", "Rare social alcohol use.")))
    parts.append(_pick(rng, ("Illicits: denies.", "Denies illicit drug use.", "No IVDU.")))
    return "\n".join(parts)


def _opening(rng: random.Random, ctx: NoteContext, pmh_short: str) -> str:
    d = ctx.disease
    man = ctx.sex == "M"
    sx = "M" if man else "F"
    noun = "man" if man else "woman"
    title = "Mr." if man else "Ms."
    cc = ctx.cc[0].lower() + ctx.cc[1:] if ctx.cc and not ctx.cc[:3].isupper() else ctx.cc
    # leakage: the HPI sometimes names the diagnosis or its abbreviation
    leak = rng.random()
    if leak < 0.18:
        label = _pick(rng, d.synonyms)
        cc = _pick(rng, (f"{label}", f"concern for {label}", f"{label} diagnosed at OSH"))
    elif leak < 0.26:
        cc = f"{cc}, found to have {d.name.lower()}"
    with_pmh = f" with PMH of {pmh_short}" if pmh_short else ""
    with_hx = f" with a history of {pmh_short}" if pmh_short else ""
    with_w = f" w/ hx of {pmh_short}" if pmh_short else ""
    prior = ""
    if ctx.prior_dx and rng.random() < 0.7:
        p = _pick(rng, ctx.prior_dx)
        prior = _pick(rng, (f", known hx of {_pick(rng, p.synonyms)},", f" (recent admission for "
                                                                         f"{p.name.lower()})", ""))
    return _pick(rng, (
        f"{title} ___ is a ___ year old {noun}{with_pmh}{prior} who presents with {cc}.",
        f"___ y/o {sx}{with_w}{prior} p/w {cc}.",
        f"___ yo {noun}{with_hx}{prior} presenting with {cc}.",
        f"Pt is a ___ y/o {sx}{with_pmh}{prior} who presented to the ED with {cc}.",
        f"___ year-old {'male' if man else 'female'}{with_pmh}{prior}, transferred from ___ with {cc}.",
    ))


def hpi_text(rng: random.Random, ctx: NoteContext) -> str:
    d = ctx.disease
    short = [p for p in ctx.pmh[:4]]
    pmh_short = ", ".join(short)
    sentences = [_opening(rng, ctx, pmh_short)]
    for fact in d.hpi:
        options = sex_filter(fact, ctx.sex)
        if options and rng.random() < 0.88:
            sentences.append(_pick(rng, options))
    negs = sex_filter(d.negatives, ctx.sex)
    rng.shuffle(negs)
    sentences.extend(negs[: rng.randint(1, 3)])
    v = ctx.vitals
    if rng.random() < 0.75:
        sentences.append(_pick(rng, (
            f"In the ED, initial VS were: {v['temp']:.1f} {int(v['hr'])} {int(v['sbp'])}/{int(v['dbp'])} "
            f"{int(v['rr'])} {int(v['spo2'])}% RA.",
            f"In the ED initial vitals: T {v['temp']:.1f} HR {int(v['hr'])} BP {int(v['sbp'])}/{int(v['dbp'])} "
            f"RR {int(v['rr'])} O2 sat {int(v['spo2'])}% on RA.",
            f"ED vitals: {v['temp']:.1f}, {int(v['hr'])}, {int(v['sbp'])}/{int(v['dbp'])}, {int(v['rr'])}, "
            f"{int(v['spo2'])}%RA.",
        )))
    text = gender_text(" ".join(sentences).format_map(ctx.fmt), ctx.sex)
    paragraphs = [wrap(text, 76)]
    if rng.random() < 0.5:
        paragraphs.append(_pick(rng, (
            "ROS: 10 point review of systems otherwise negative except as noted in HPI.",
            "REVIEW OF SYSTEMS: All other systems reviewed and negative.",
            "ROS: +as per HPI, otherwise negative.",
        )))
    return "\n\n".join(paragraphs)


def course_text(rng: random.Random, ctx: NoteContext) -> str:
    d = ctx.disease
    man = ctx.sex == "M"
    intro = _pick(rng, (
        f"___ y/o {'M' if man else 'F'} with {', '.join(ctx.pmh[:3]) or 'no significant PMH'} who presented "
        f"with {ctx.cc.lower()}, found to have {d.name.lower()}.",
        f"{'Mr.' if man else 'Ms.'} ___ is a ___ year old {'man' if man else 'woman'} admitted with "
        f"{_pick(rng, d.synonyms)}.",
        f"Patient admitted for {d.name.lower()}.",
    ))
    parts = [wrap(intro, 76), _pick(rng, ("ACUTE ISSUES:", "ACTIVE ISSUES:", "# ACUTE/ACTIVE ISSUES:", ""))]
    parts.append(wrap(gender_text(_pick(rng, sex_filter(d.course, ctx.sex) or d.course).format_map(ctx.fmt),
                                  ctx.sex), 76))
    if ctx.micro_summary:
        parts.append(ctx.micro_summary)
    if ctx.chronic_course:
        parts.append(_pick(rng, ("CHRONIC ISSUES:", "# CHRONIC ISSUES:", "CHRONIC/STABLE ISSUES:")))
        parts.extend(ctx.chronic_course)
    if rng.random() < 0.6:
        parts.append("TRANSITIONAL ISSUES:\n" + "\n".join(_pick(rng, (
            ["- Please check CBC and chem-7 at follow-up.", "- Follow up pending studies."],
            ["- Medication changes as above.", "- PCP follow-up within 1 week."],
            ["[ ] f/u final culture data", "[ ] repeat labs in 1 week", "# CODE: Full (confirmed)"],
        ))))
    return "\n".join(p for p in parts if p)


def _numbered(lines: list[str]) -> str:
    return "\n".join(f"{i}. {x} " for i, x in enumerate(lines, 1))


def discharge_summary(rng: random.Random, ctx: NoteContext) -> str:
    d = ctx.disease
    label_style = rng.randrange(4)
    out: list[str] = []
    add = out.append
    if rng.random() < 0.8:
        add(" ")
    add("Name:  ___                     Unit No:   ___")
    add(" ")
    add("Admission Date:  ___              Discharge Date:   ___")
    add(" ")
    add(f"Date of Birth:  ___             Sex:   {ctx.sex}")
    add(" ")
    add(f"Service: {ctx.service}")
    add(" ")
    add("Allergies: ")
    add(_pick(rng, PHRASES.allergies))
    add(" ")
    add("Attending: ___.")
    add(" ")

    sections: list[tuple[str, str]] = []
    sections.append((_header(rng, "Chief Complaint:", ("___ Complaint:", "CHIEF COMPLAINT:", "Chief complaint:"),
                             0.1), ctx.cc))
    if rng.random() < 0.96:
        proc = "\n".join(ctx.procedures) if ctx.procedures else _pick(rng, ("None", "None.", "none", "___"))
        sections.append(("Major Surgical or Invasive Procedure:", proc))
    sections.append((_header(rng, "History of Present Illness:", ("History of Present ___:",
                                                                     "HISTORY OF PRESENT ILLNESS:",
                                                                     "HPI:"), 0.09), hpi_text(rng, ctx)))
    sections.append((_header(rng, "Past Medical History:", ("PAST MEDICAL HISTORY:", "Past ___ History:",
                                                              "PMH:"), 0.08), _pmh_text(rng, ctx.pmh)))
    if rng.random() < 0.95:
        sections.append(("Social History:", _social(rng, ctx)))
    if rng.random() < 0.9:
        sections.append(("Family History:", _pick(rng, PHRASES.family_history)))

    adm_label = _pick(rng, ("ADMISSION PHYSICAL EXAM:", "ADMISSION PHYSICAL EXAM:", "ADMISSION EXAM:",
                            "Admission exam:", "ON ADMISSION:", "PHYSICAL EXAM ON ADMISSION:"))
    exam = [adm_label, exam_block(rng, d, ctx.vitals, True, label_style, ctx.fmt)]
    if rng.random() < 0.85:
        exam += ["", _pick(rng, ("DISCHARGE PHYSICAL EXAM:", "DISCHARGE PHYSICAL EXAM:", "DISCHARGE EXAM:",
                                 "Discharge exam:", "ON DISCHARGE:")),
                 exam_block(rng, d, ctx.vitals_dc, False, label_style, ctx.fmt)]
    sections.append(("Physical Exam:", "\n".join(exam)))

    results: list[str] = []
    if ctx.admission_labs:
        results.append(_pick(rng, ("ADMISSION LABS:", "ADMISSION LABS", "LABS ON ADMISSION:", "Admission labs:")))
        results.extend(ctx.admission_labs)
    if ctx.imaging_impressions:
        results.append("")
        results.append(_pick(rng, ("IMAGING:", "IMAGING/STUDIES:", "STUDIES:", "Imaging:")))
        for exam_name, imp in ctx.imaging_impressions:
            results.append(f"{exam_name} ___: {imp}")
    if ctx.discharge_labs:
        results.append("")
        results.append(_pick(rng, ("DISCHARGE LABS:", "DISCHARGE LABS", "LABS ON DISCHARGE:", "Discharge labs:")))
        results.extend(ctx.discharge_labs)
    pertinent = ("Pertinent Results:", "\n".join(results) if results else "___")
    course = (_header(rng, "Brief Hospital Course:", ("BRIEF HOSPITAL COURSE:", "Hospital Course:",
                                                      "Brief ___ Course:"), 0.1), course_text(rng, ctx))
    if rng.random() < 0.1:
        sections += [course, pertinent]
    else:
        sections += [pertinent, course]

    if ctx.home_meds:
        adm_meds = _pick(rng, ("The Preadmission Medication list is accurate and complete.\n",
                               "The Preadmission Medication list may be inaccurate and requires futher "
                               "investigation.\n", "")) + _numbered(ctx.home_meds)
    else:
        adm_meds = _pick(rng, ("None", "None.", "The Preadmission Medication list is accurate and complete.\n"
                                                "No medications."))
    sections.append(("Medications on Admission:", adm_meds))
    if ctx.discharge_location != "DIED":
        sections.append(("Discharge Medications:", _numbered(ctx.discharge_meds) if ctx.discharge_meds else
                         "None"))
    disp = PHRASES.disposition.get(ctx.discharge_location, "Home")
    sections.append(("Discharge Disposition:", disp + ("\n \nFacility:\n___" if disp == "Extended Care" else "")))
    primary = _pick(rng, (d.name, d.name, _pick(rng, d.synonyms), d.name.upper()))
    style = rng.randrange(3)
    if style == 0:
        dx = f"Primary diagnosis:\n{primary}"
        if ctx.secondary_dx:
            dx += "\n\nSecondary diagnoses:\n" + "\n".join(ctx.secondary_dx)
    elif style == 1:
        dx = f"PRIMARY:\n{primary}"
        if ctx.secondary_dx:
            dx += "\n\nSECONDARY:\n" + "\n".join(ctx.secondary_dx)
    else:
        dx = primary
    sections.append(("Discharge Diagnosis:", dx))
    if ctx.discharge_location == "DIED":
        sections.append(("Discharge Condition:", "Expired"))
        sections.append(("Discharge Instructions:", "N/A"))
    else:
        sections.append(("Discharge Condition:", _pick(rng, PHRASES.discharge_condition)))
        title = "Mr." if ctx.sex == "M" else "Ms."
        instr = (f"Dear {title} ___,\n\nIt was a pleasure taking care of you at ___.\n\n"
                 f"WHY WERE YOU ADMITTED?\n- {d.discharge_instructions or 'You were admitted to the hospital.'}"
                 "\n\nWHAT SHOULD YOU DO WHEN YOU GET HOME?\n- Please take your medications as prescribed.\n"
                 "- Please keep your follow-up appointments.\n\nWe wish you the best,\nYour ___ Care Team")
        sections.append(("Discharge Instructions:", "\n".join(wrap(p, 76) for p in instr.split("\n"))))
    sections.append(("Followup Instructions:", "___"))

    upper = rng.random() < 0.04
    for head, body in sections:
        add((head.upper() if upper else head))
        add(body)
        add(" ")
    return "\n".join(out) + "\n"


def radiology_report(rng: random.Random, img: Imaging, sex: str, indication_text: str, side: str,
                     comparison: bool) -> tuple[str, str, str]:
    """(text, exam_name, impression) of one radiology report."""
    fmt = SafeDict(side=side, Side=side.capitalize(), SIDE=side.upper())
    exam_name = img.exam_name.format_map(fmt)
    findings = _pick(rng, img.findings).format_map(fmt)
    impression = _pick(rng, img.impression).format_map(fmt)
    who = _pick(rng, (f"___ year old {'man' if sex == 'M' else 'woman'} with {indication_text}",
                      f"History: ___{sex} with {indication_text}",
                      f"___ y/o {sex} with {indication_text}"))
    lines = [f"EXAMINATION:  {exam_name}", "", f"INDICATION:  {who}  // {img.indication}", "",
             f"TECHNIQUE:  {img.technique.format_map(fmt)}", "",
             f"COMPARISON:  {'___' if comparison else _pick(rng, ('None.', 'None', 'No prior studies.'))}", "",
             "FINDINGS: ", "", wrap(findings, 78), "", "IMPRESSION: ", ""]
    if rng.random() < 0.25:
        lines.append(f"1. {impression}\n2. {_pick(rng, ('No other acute findings.', 'Otherwise unremarkable.'))}")
    else:
        lines.append(wrap(impression, 78))
    if rng.random() < 0.12:
        lines += ["", "NOTIFICATION:  The findings were discussed with ___, M.D. by ___, M.D. on the telephone on "
                      "___ at ___, 2 minutes after discovery of the findings."]
    return "\n".join(lines) + "\n", exam_name, impression


def addendum(rng: random.Random, original: str) -> str:
    note = _pick(rng, (
        "ADDENDUM:  Findings were discussed with Dr. ___ by telephone at ___ on ___.",
        "ADDENDUM:  On further review, there is also mild degenerative change of the visualized spine.  This "
        "does not change the impression.",
        "ADDENDUM:  Comparison was made to the outside study from ___, which was subsequently made available.  "
        "The findings are new.",
    ))
    return wrap(note, 78) + "\n\n" + "_" * 78 + "\n\n" + original
