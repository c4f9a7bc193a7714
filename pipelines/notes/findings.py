"""Examination results written in notes: admission physical exam, vital signs, radiology FINDINGS.

* Physical exam: the admission exam (``physical_exam_admission``; the plain ``physical_exam`` section
  only when a note has no explicit admission exam) is read line by line as ``Label: finding``; the
  label picks the body system (:data:`pipelines.notes.lexicon.EXAM_SYSTEMS`), unlabelled lines continue
  the system above. ``abnormal`` is True when medspaCy's TargetMatcher finds an abnormal-finding
  word (rales, tender, murmur, ...) that ConText does not negate ("no murmurs", "non-tender" and
  "RRR" are normal).
* Vital signs: from the exam's ``VS:``/``Vitals:`` line, labelled (``T 101.2 HR 112 BP 90/60 RR 22
  O2 93% RA``) or in MIMIC's unlabelled order (``98.1 PO 118 / 70 72 16 97 RA`` = T, BP, HR, RR, SpO2);
  one result per sign, whose text and source span are that sign's value (``93% RA``); SpO2 is pulse
  oximetry (a vital, not a blood gas); abnormal outside adult reference ranges.
* Imaging: only the FINDINGS section of radiology reports (the impression names diagnoses). The exam
  name comes from radiology_detail's ``exam_name`` when given, else from the EXAMINATION line, and is
  normalised (:func:`imaging_exam_name`); abnormal unless every finding is negated or normal.
* ECG: MIMIC-IV-Note has no ECG reports, but a discharge summary tells the presenting ECG where it
  tells the presentation ("ECG in the ED showed ...", "EKG with lateral TWI, no STE"). Each clause
  of the HPI or ED course that mentions one (:func:`ecg_clauses`) is read, and a note's clauses
  together are its ``Electrocardiogram`` result; abnormal when ConText leaves an abnormal ECG
  finding unnegated ("no STE" is not one).

Every text is scrubbed of the case's diagnosis (:func:`pipelines.leakage.scrub`) before it is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import polars as pl
from spacy.language import Language

from pipelines.leakage import diagnosis_terms, has_content, scrub
from pipelines.notes.lexicon import ECG_MENTIONS, EXAM_SYSTEMS, IMAGING_BODY_PARTS, IMAGING_MODALITIES, VITAL_LABELS
from pipelines.notes.sections import CONTEXT, LINE_BREAKS, SENTENCES, TARGETS, any_beyond_negation, build_nlp
from pipelines.notes.tables import REMOVAL_COLUMNS

EXAM_COLUMNS = {
    "case_id": pl.Utf8,
    "exam_name": pl.Utf8,
    "kind": pl.Utf8,
    "value_num": pl.Float64,
    "value_text": pl.Utf8,
    "unit": pl.Utf8,
    "ref_low": pl.Float64,
    "ref_high": pl.Float64,
    "abnormal": pl.Boolean,
    "offset_hours": pl.Float64,
    "origin": pl.Utf8,
    "source_ref": pl.Utf8,
}

# ------------------------------------------------------------------------------------- vitals


@dataclass(frozen=True)
class Vital:
    exam_name: str
    unit: str
    ref_low: float
    ref_high: float
    plausible: tuple[float, float]


TEMP_F = Vital("Temperature", "°F", 96.8, 100.4, (85.0, 110.0))
TEMP_C = Vital("Temperature", "°C", 36.0, 38.0, (30.0, 43.5))
HEART_RATE = Vital("Heart rate", "bpm", 60.0, 100.0, (20.0, 250.0))
SBP = Vital("Systolic blood pressure", "mmHg", 90.0, 139.0, (40.0, 280.0))
DBP = Vital("Diastolic blood pressure", "mmHg", 60.0, 89.0, (20.0, 180.0))
RESP_RATE = Vital("Respiratory rate", "insp/min", 12.0, 20.0, (4.0, 70.0))
SPO2 = Vital("Oxygen saturation (pulse oximetry)", "%", 95.0, 100.0, (50.0, 100.0))

_NUM = r"(\d{1,3}(?:\.\d+)?)"
_O2_DEVICE = (
    r"(?:[ \t]*(?:on[ \t]+)?(RA|room air|\d+(?:\.\d+)?[ \t]*L(?:[ \t]*(?:NC|FM|NRB|HFNC))?"
    r"|NRB|BiPAP|CPAP|HFNC|FM|NC|face[ \t]?mask|vent))?"
)
_LABELLED = [
    ("temp", re.compile(rf"(?<![\w/])(?:T|Temp|Tmax|Tc|Tcurrent|temperature)[ \t]*[:=]?[ \t]*{_NUM}", re.I)),
    ("hr", re.compile(rf"(?<![\w/])(?:HR|P|pulse|heart rate)[ \t]*[:=]?[ \t]*{_NUM}(?![\d/])", re.I)),
    ("bp", re.compile(r"(?<![\w/])(?:BP|blood pressure)[ \t]*[:=]?[ \t]*(\d{2,3})[ \t]*/[ \t]*(\d{2,3})", re.I)),
    ("rr", re.compile(rf"(?<![\w/])(?:RR|R|resp(?:iratory)?(?:[ \t]+rate)?)[ \t]*[:=]?[ \t]*{_NUM}(?![\d/])", re.I)),
    ("spo2", re.compile(
        rf"(?<![\w/])(?:O2[ \t]?sat(?:uration)?s?|SpO2|SaO2|O2|sats?|saturation|POx|pulse[ \t]ox)[ \t]*[:=]?[ \t]*"
        rf"{_NUM}[ \t]*%?{_O2_DEVICE}", re.I)),
]
# Vitals without labels, as MIMIC's template writes them: T [route] SBP/DBP [position] HR RR SpO2 [device];
# heart rate is also accepted before the blood pressure, and commas may separate the values.
_S = r"[ \t]*,?[ \t]*"
_UNLABELLED = re.compile(
    rf"{_NUM}[ \t]*(?:PO|PR|Ax|Tm|TM|oral|rectal|axillary)?{_S}(?:(\d{{2,3}}){_S})?(\d{{2,3}})[ \t]*/[ \t]*(\d{{2,3}})"
    rf"(?:[ \t]*(?:[LR][ \t]+)?(?:lying|sitting|standing|supine))?(?:{_S}(\d{{2,3}}))?{_S}(\d{{1,2}}){_S}(\d{{2,3}})"
    r"[ \t]*%?" + _O2_DEVICE,
    re.I,
)


def _vital_row(vital: Vital, value: float, text: str, ref: str) -> dict[str, object] | None:
    low, high = vital.plausible
    if not low <= value <= high:
        return None
    return {"exam_name": vital.exam_name, "kind": "vital", "value_num": value, "value_text": text,
            "unit": vital.unit, "ref_low": vital.ref_low, "ref_high": vital.ref_high,
            "abnormal": not vital.ref_low <= value <= vital.ref_high, "source_ref": ref}


def parse_vitals(text: str, offset: int, note_id: str) -> list[dict[str, object]]:
    """Vital-sign rows from one vitals line (``offset``: where ``text`` starts in the note)."""
    rows: list[dict[str, object] | None] = []

    def sign(m: re.Match[str], group: int, to_end: bool = False) -> tuple[str, str]:
        """The text and source span of one sign's value (SpO2: with its device, to the match's end)."""
        start, end = m.start(group), m.end() if to_end else m.end(group)
        return " ".join(text[start:end].split()), f"{note_id}:{offset + start}-{offset + end}"

    found = {kind: pattern.search(text) for kind, pattern in _LABELLED}
    if sum(m is not None for m in found.values()) >= 2:
        if m := found["temp"]:
            t = float(m.group(1))
            rows.append(_vital_row(TEMP_F if t > 45 else TEMP_C, t, *sign(m, 1)))
        if m := found["hr"]:
            rows.append(_vital_row(HEART_RATE, float(m.group(1)), *sign(m, 1)))
        if m := found["bp"]:
            rows += [_vital_row(SBP, float(m.group(1)), *sign(m, 1)),
                     _vital_row(DBP, float(m.group(2)), *sign(m, 2))]
        if m := found["rr"]:
            rows.append(_vital_row(RESP_RATE, float(m.group(1)), *sign(m, 1)))
        if m := found["spo2"]:
            rows.append(_vital_row(SPO2, float(m.group(1)), *sign(m, 1, to_end=True)))
    elif (m := _UNLABELLED.search(text)) and (m.group(2) or m.group(5)):
        t, hr = float(m.group(1)), 2 if m.group(2) else 5
        rows += [
            _vital_row(TEMP_F if t > 45 else TEMP_C, t, *sign(m, 1)),
            _vital_row(HEART_RATE, float(m.group(hr)), *sign(m, hr)),
            _vital_row(SBP, float(m.group(3)), *sign(m, 3)),
            _vital_row(DBP, float(m.group(4)), *sign(m, 4)),
            _vital_row(RESP_RATE, float(m.group(6)), *sign(m, 6)),
            _vital_row(SPO2, float(m.group(7)), *sign(m, 7, to_end=True)),
        ]
    return [r for r in rows if r is not None]


# ---------------------------------------------------------------------------------- exam lines

_LABEL_LINE = re.compile(r"^[ \t]*(?:[-*\u2022][ \t]*)?(?P<label>[A-Za-z][A-Za-z /&.]{0,24}?)[ \t]*:[ \t]*(?P<value>.*)$")
_VITAL_START = re.compile(r"^[ \t]*(?:VS|V/S|vitals?|vital signs)\b[ \t]*:?", re.I)


def exam_lines(text: str) -> list[tuple[str, int, int]]:
    """(label, start, end) of every body-system entry in an exam section; label "vitals" for vital lines.

    start/end delimit the finding text (after the label) in ``text``; continuation lines extend it.
    """
    entries: list[list[object]] = []
    for line in re.finditer(r"[^\n\r]+", text):
        m = _LABEL_LINE.match(line.group())
        label = " ".join(m.group("label").lower().replace(".", "").split()) if m else None
        if label in VITAL_LABELS or (m is None and _VITAL_START.match(line.group())):
            head = _VITAL_START.match(line.group())
            start = line.start() + (m.start("value") if m else head.end())
            entries.append(["vitals", start, line.end()])
        elif label in EXAM_SYSTEMS:
            entries.append([EXAM_SYSTEMS[label], line.start() + m.start("value"), line.end()])
        elif m is None and entries and entries[-1][0] != "vitals" and line.group().strip():
            entries[-1][2] = line.end()  # continuation of the system above
        else:
            entries.append(["", line.start(), line.end()])  # unknown label: ends the system above
    return [(str(label), int(s), int(e)) for label, s, e in entries if label and int(s) < int(e)]


# ------------------------------------------------------------------------------------- imaging


@lru_cache(maxsize=4096)  # exam titles repeat across reports (one title per kind of exam)
def imaging_exam_name(raw: str | None) -> str:
    """A readable imaging exam name from MIMIC's exam title.

    "CHEST (PA AND LAT)" -> "Chest X-ray", "CT ABD & PELVIS WITH CONTRAST" -> "CT abdomen/pelvis".
    """
    text = " ".join((raw or "").upper().split())
    if not text:
        return "Imaging"
    modality = next((name for name, pattern in IMAGING_MODALITIES if re.search(pattern, text)), None)
    parts = [name for name, pattern in IMAGING_BODY_PARTS if re.search(pattern, text)]
    if "lower extremity veins" in parts or "upper extremity veins" in parts:
        parts = [p for p in parts if p.endswith("veins")][:1]
    organ = [p for p in parts if p in {"liver/gallbladder", "kidneys"}]
    trunk = [p for p in ("chest", "abdomen", "pelvis") if p in parts]
    body = "/".join(trunk) if len(trunk) > 1 else (organ or parts or [""])[0]
    if modality == "MRI" and body == "head":
        body = "brain"
    if modality is None:
        modality = "X-ray" if body else None
    if modality is None:
        return " ".join(raw.split()).title()
    if modality == "X-ray" and body == "chest":
        return "Chest X-ray"
    return f"{modality} {body}".strip()


def _exam_name_by_note(sections: pl.DataFrame, radiology_detail: pl.DataFrame | None) -> dict[str, str]:
    names: dict[str, str] = {}
    for note_id, text in sections.filter(pl.col("section") == "examination").select("note_id", "text").iter_rows():
        names.setdefault(note_id, text.splitlines()[0])
    if radiology_detail is not None and radiology_detail.height:
        detail = (
            radiology_detail.filter(pl.col("field_name") == "exam_name")
            .sort("note_id", "field_ordinal")
            .unique("note_id", keep="first", maintain_order=True)
        )
        names.update(dict(detail.select("note_id", "field_value").iter_rows()))
    return names


# ----------------------------------------------------------------------------------------- ECG

ECG = "Electrocardiogram"
ECG_SECTIONS = ("hpi", "ed_course")  # where a discharge summary tells the presentation
RADIOLOGY_FINDINGS = "findings"  # a radiology report's section read for its imaging result
_ECG_MENTION = re.compile(r"\b(?:" + "|".join(re.escape(m) for m in ECG_MENTIONS) + r")(?![\w-])", re.I)
_CLAUSE_END = re.compile(r"[.;](?=\s|$)|\n\s*\n")


def ecg_clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause that tells an ECG: from its mention to the end of the clause (a
    full stop or a semicolon), when it says more than the mention ("EKG NSR", not a bare "ECG")."""
    spans = []
    for m in _ECG_MENTION.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue  # a second mention in the same clause
        end = _CLAUSE_END.search(text, m.end())
        stop = end.start() if end else len(text)
        if re.search(r"\w", text[m.end():stop]):
            spans.append((m.start(), stop))
    return spans


# ------------------------------------------------------------------------------------ assembly


def _abnormal(nlp: Language, texts: list[str], batch_size: int = 64) -> list[bool]:
    """True when a text holds an abnormal-finding word that ConText does not negate. ConText runs only
    when every such word could be negated (``any_beyond_negation``): it decides nothing about a word
    that no negation rule can reach, and it takes most of the time."""
    context = nlp.get_pipe(CONTEXT)
    disable = [p for p in nlp.pipe_names if p not in {SENTENCES, LINE_BREAKS, TARGETS}]
    judged = []
    for doc in nlp.pipe((t.replace("\r", "\n") for t in texts), batch_size=batch_size, disable=disable):
        found = [e for e in doc.ents if e.label_ == "ABNORMAL"]
        judged.append(bool(found) and (any_beyond_negation(nlp, doc, found)
                                       or any(not e._.is_negated for e in context(doc).ents if e.label_ == "ABNORMAL")))
    return judged


def _clean(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def exam_findings_and_removals(
    sections: pl.DataFrame,
    note_cases: pl.DataFrame,
    radiology_detail: pl.DataFrame | None = None,
    nlp: Language | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(exam_results rows, leakage_removals rows) from the exam sections of the cases' notes."""
    nlp = nlp or build_nlp()
    exam_sections = ["physical_exam_admission", "physical_exam", RADIOLOGY_FINDINGS, *ECG_SECTIONS]
    rows = (
        sections.filter(pl.col("section").is_in(exam_sections))
        .with_columns(pl.col("section").eq("physical_exam_admission").any().over("note_id").alias("_has_adm"))
        .filter(~((pl.col("section") == "physical_exam") & pl.col("_has_adm")))
        .with_row_index("_order")
        .join(note_cases, on="note_id", how="inner")
        .sort("case_id", "_order")
    )
    exam_names = _exam_name_by_note(sections, radiology_detail)
    results: list[dict[str, object]] = []
    judged: list[int] = []  # indices of text rows whose abnormal flag ConText decides
    removals: list[dict[str, object]] = []
    ecgs: dict[tuple[str, str], tuple[list[str], list[tuple[str, int, int]]]] = {}  # (case, note) -> terms, clauses

    def finding(case_id: str, name: str, kind: str, original: str, ref: str, terms: list[str]) -> None:
        """One text result, scrubbed of the diagnosis; dropped when nothing is left of it."""
        value, mentions = scrub(original, terms)
        kept = has_content(value)
        removals.extend(
            {"case_id": case_id, "source_ref": ref, "term": m.term, "original_snippet": original,
             "action": "removed_clause" if kept else "dropped_finding"}
            for m in mentions
        )
        if kept:
            judged.append(len(results))
            results.append({"case_id": case_id, "exam_name": name, "kind": kind, "value_num": None,
                            "value_text": value, "unit": None, "ref_low": None, "ref_high": None,
                            "abnormal": None, "source_ref": ref})

    for rec in rows.iter_rows(named=True):
        case_id, note_id, base, text = rec["case_id"], rec["note_id"], rec["start"], rec["text"]
        terms = diagnosis_terms(rec["diagnosis_name"], rec.get("acceptable_names"), rec.get("primary_icd10"),
                                rec.get("icd10_title"))
        if rec["section"] in ECG_SECTIONS:
            ecgs.setdefault((case_id, note_id), (terms, []))[1].extend(
                (" ".join(text[s:e].split()), base + s, base + e) for s, e in ecg_clauses(text))  # one line
            continue
        if rec["section"] == RADIOLOGY_FINDINGS:
            pieces = [(imaging_exam_name(exam_names.get(note_id)), "imaging", 0, len(text))]
        else:
            pieces = [(label, "physical_exam", s, e) for label, s, e in exam_lines(text)]
        for name, kind, s, e in pieces:
            ref = f"{note_id}:{base + s}-{base + e}"
            if name == "vitals":
                for row in parse_vitals(text[s:e], base + s, note_id):
                    results.append({"case_id": case_id, **row})
                continue
            finding(case_id, name, kind, _clean(text[s:e]), ref, terms)
    for (case_id, note_id), (terms, clauses) in ecgs.items():  # a note's presenting ECG, in one result
        if clauses:
            finding(case_id, ECG, "ecg", "; ".join(c for c, _, _ in clauses),
                    f"{note_id}:{clauses[0][1]}-{clauses[-1][2]}", terms)
    for i, abnormal in zip(judged, _abnormal(nlp, [str(results[i]["value_text"]) for i in judged])):
        results[i]["abnormal"] = abnormal
    exams = pl.DataFrame([{**r, "offset_hours": None, "origin": "recorded"} for r in results], schema=EXAM_COLUMNS)
    return exams, pl.DataFrame(removals, schema=REMOVAL_COLUMNS)


def note_exam_findings(
    sections: pl.DataFrame, note_cases: pl.DataFrame, radiology_detail: pl.DataFrame | None
) -> pl.DataFrame:
    """exam_results rows (schemas/exam_results.py) from the cases' admission exams and radiology FINDINGS."""
    return exam_findings_and_removals(sections, note_cases, radiology_detail)[0]
