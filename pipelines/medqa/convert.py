"""MedQA diagnosis questions -> role-specific views (patient units, exam results, presentation, rubric).

For every question that ``case_skeleton`` kept as a case, :func:`convert_questions` splits the
vignette (:func:`pipelines.medqa.vignette.split_vignette`) and builds:

* ``unit_candidates`` (partition ``medqa``): the age/sex phrase and the chief complaint
  (disclosed), and every history clause (hidden) with its category and negation;
* ``exam_candidates`` (partition ``medqa``): vitals, labs and text findings, one row per case and
  proposed exam name (text findings of the same name are joined, repeated measurements keep the
  first reading);
* ``presentations`` (partition ``medqa``): the opening sentence without embedded history or
  measurements;
* ``rubric``: the evidence key points - the chief complaint, the first positive illness-history
  units, and the abnormal findings (signs, studies and labs before vital signs);
* ``leakage_removals``: every clause cut because it named the answer, one of its acceptable names
  or ICD-10 title (``pipelines.leakage.diagnosis_terms``: with simplified forms and synonym
  groups) or **another answer option** as written (``equivalent_names``: the option text,
  without a trailing parenthesis, its abbreviation; not the option's synonym group, which would
  cut serologies such as "Anti-HAV IgM negative" next to option "Acute hepatitis A");
* ``conversion_failures``: cases that got no presentation or no content at all;
* ``quarantined`` (a ``rejects`` partition): history units that still hold a clinical measurement
  (:func:`holds_measurement`). Splitting a vignette into history and findings is heuristic, and a
  sentence such as "found undressing himself outside in 110°F weather" can defeat it; such a unit is
  left out with its reason, file and line instead of failing the whole build, and the blocking check
  ``medqa_history_holds_no_measurement`` verifies that none reached the units and each was recorded.

``source_ref`` is ``medqa:<question hash>:<start>-<end>`` (character span in the question).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

import schemas
from pipelines import icd
from pipelines.ids import unit_id
from pipelines.leakage import diagnosis_terms, has_content, mentions_any, scrub, snippet
from pipelines.medqa.answer_icd import equivalent_names, map_answer
from pipelines.medqa.findings import MEASUREMENT, ExamItem
from pipelines.medqa.text import ascii_fold
from pipelines.medqa.vignette import HistoryUnit, Vignette, split_vignette

RUBRIC_HISTORY = 3  # illness-history units (besides the chief complaint) in the rubric
RUBRIC_FINDINGS = 6  # abnormal findings in the rubric

FAILURE_SCHEMA = {"case_id": pl.Utf8, "reason": pl.Utf8}
QUARANTINE_PARTITION = "medqa_quarantine"  # the rejects partition of quarantined units
QUARANTINE_REASON = ("history unit holds a clinical measurement (the vignette split is heuristic): "
                     "quarantined, not published")
RUBRIC_SCHEMA = {"case_id": pl.Utf8, "ordinal": pl.Int32, "key_point": pl.Utf8, "kind": pl.Utf8, "source_ref": pl.Utf8}


@dataclass(frozen=True)
class MedqaViews:
    unit_candidates: pl.DataFrame
    exam_candidates: pl.DataFrame
    presentations: pl.DataFrame
    rubric: pl.DataFrame
    conversion_failures: pl.DataFrame
    leakage_removals: pl.DataFrame
    quarantined: pl.DataFrame  # rejects rows, one per unit left out


def holds_measurement(text: str | None) -> bool:
    """A value with a clinical unit, a blood pressure or a saturation: examination, not history."""
    return bool(text) and bool(MEASUREMENT.search(text) or MEASUREMENT.search(ascii_fold(text)))


@dataclass(frozen=True)
class _Terms:
    answer: list[str]
    options: list[str]

    @property
    def all(self) -> list[str]:
        return [*self.answer, *self.options]


def _terms(row: dict) -> _Terms:
    """Diagnosis terms of the case (skeleton columns when given, else the answer's mapping)
    and the terms of every other answer option."""
    if row.get("diagnosis_name") is not None:
        name, names, code = row["diagnosis_name"], list(row.get("acceptable_names") or []), row.get("primary_icd10")
    else:
        mapping = map_answer(row["answer"])
        name, names, code = mapping.diagnosis_name, mapping.acceptable_names, mapping.icd10
    title = icd.icd10cm_info(code).title if code else None
    answer_terms = diagnosis_terms(name, [row["answer"], *names], code, title)
    options = json.loads(row["options"]) if isinstance(row["options"], str) else dict(row["options"] or {})
    option_terms: list[str] = []
    for letter, text in sorted(options.items()):
        if letter != row.get("answer_idx") and text and text.strip() != row["answer"].strip():
            option_terms += equivalent_names(text)
    return _Terms(answer_terms, list(dict.fromkeys(option_terms)))


class _Guard:
    """Scrubs visible text of one case and records what it removed."""

    def __init__(self, case_id: str, terms: _Terms):
        self.case_id = case_id
        self.terms = terms
        self.removals: list[dict] = []

    def clean(self, text: str | None, ref: str, drop_action: str) -> str | None:
        """``text`` without clauses naming the answer or another option; None when nothing is left."""
        if not text:
            return text
        cleaned, mentions = scrub(text, self.terms.all)
        if not mentions:
            return text
        kept = has_content(cleaned) and not mentions_any(cleaned, self.terms.all)
        for m in mentions:
            self.removals.append({
                "case_id": self.case_id, "source_ref": ref, "term": m.term,
                "original_snippet": snippet(text, m.start, m.end),
                "action": "removed_clause" if kept else drop_action,
            })
        return cleaned if kept else None


def _ref(medqa_hash: str, start: int, end: int) -> str:
    return f"medqa:{medqa_hash}:{start}-{end}"


def _unit_rows(case_id: str, row: dict, v: Vignette, guard: _Guard, quarantined: list[dict]) -> list[dict]:
    units: list[HistoryUnit] = [u for u in (v.demographic, v.chief_complaint) if u is not None] + v.history
    rows: list[dict] = []
    medqa_hash = row["medqa_hash"]
    for unit in units:
        ref = _ref(medqa_hash, unit.start, unit.end)
        text = guard.clean(unit.text, ref, "dropped_unit")
        if not text or not text.strip():
            continue
        text = " ".join(text.split())
        if holds_measurement(text):
            quarantined.append({"source": "medqa", "table": "unit_candidates", "file": row.get("medqa_file") or "",
                                "row_number": row.get("medqa_line"), "row_key": ref, "reason": QUARANTINE_REASON,
                                "raw": text})
            continue
        rows.append({
            "case_id": case_id,
            "unit_id": unit_id(case_id, unit.category, ref, text),
            "ordinal": len(rows),
            "category": unit.category,
            "text": text,
            "negated": unit.negated,
            "disclosed": unit.disclosed,
            "source_ref": ref,
            "concept": "demographic:age_sex" if unit.category == "demographic" else None,
        })
    return rows


def _merge_items(items: list[ExamItem]) -> list[ExamItem]:
    """One item per proposed exam name: text findings are joined, measurements keep the first."""
    merged: dict[str, ExamItem] = {}
    for it in items:
        prev = merged.get(it.exam_name)
        if prev is None:
            merged[it.exam_name] = it
        elif prev.value_num is None and prev.unit is None and it.value_num is None and it.unit is None \
                and prev.value_text and it.value_text:
            flags = [f for f in (prev.abnormal, it.abnormal) if f is not None]
            merged[it.exam_name] = ExamItem(
                prev.exam_name, prev.kind, prev.raw_name, prev.start, it.end, None,
                f"{prev.value_text} {it.value_text}", None, None, None, (any(flags) if flags else None),
            )
    return list(merged.values())


def _exam_rows(case_id: str, medqa_hash: str, v: Vignette, guard: _Guard) -> list[dict]:
    rows: list[dict] = []
    for it in _merge_items(v.findings):
        ref = _ref(medqa_hash, it.start, it.end)
        if mentions_any(it.exam_name, guard.terms.all):
            guard.clean(it.exam_name, ref, "dropped_finding")
            continue
        value_text = it.value_text
        if value_text and it.value_num is None:
            value_text = guard.clean(value_text, ref, "dropped_finding")
            if value_text is None:
                continue
        raw = it.raw_name if not mentions_any(it.raw_name, guard.terms.all) else it.exam_name
        rows.append({
            "case_id": case_id, "exam_name": it.exam_name, "kind": it.kind, "value_num": it.value_num,
            "value_text": value_text, "unit": it.unit, "ref_low": it.ref_low, "ref_high": it.ref_high,
            "abnormal": it.abnormal, "offset_hours": None, "origin": "recorded", "source_ref": ref,
            "raw_name": raw, "loinc": None,
        })
    return rows


def _rubric_rows(case_id: str, units: list[dict], exams: list[dict]) -> list[dict]:
    points: list[tuple[str, str, str]] = []
    for u in units:
        if u["category"] == "chief_complaint":
            points.append((u["text"], "history", u["source_ref"]))
    illness = [u for u in units if u["category"] == "hpi" and not u["negated"]][:RUBRIC_HISTORY]
    points += [(u["text"], "history", u["source_ref"]) for u in illness]
    abnormal = [e for e in exams if e["abnormal"]]
    abnormal.sort(key=lambda e: (e["kind"] == "vital", e["value_num"] is not None))
    for e in abnormal[:RUBRIC_FINDINGS]:
        value = e["value_text"] if e["value_text"] else f"{e['value_num']:g} {e['unit'] or ''}".strip()
        points.append((f"{e['exam_name']}: {value}", "finding", e["source_ref"]))
    return [{"case_id": case_id, "ordinal": i, "key_point": p, "kind": k, "source_ref": r}
            for i, (p, k, r) in enumerate(points)]


def convert_questions(questions: pl.DataFrame, case_ids: pl.DataFrame) -> MedqaViews:
    """Views of the MedQA questions that are cases.

    ``questions``: staging ``medqa_questions`` rows (``medqa_file`` and ``medqa_line`` locate a
    quarantined unit in ``rejects``; optional). ``case_ids``: ``medqa_hash`` -> ``case_id``,
    optionally with the skeleton's ``diagnosis_name``, ``acceptable_names`` and ``primary_icd10``
    (used for the leakage terms; without them the answer is mapped again). Questions without a
    case id are skipped.
    """
    joined = questions.join(case_ids, on="medqa_hash", how="inner").unique("case_id", keep="first", maintain_order=True)
    units: list[dict] = []
    exams: list[dict] = []
    presentations: list[dict] = []
    rubric: list[dict] = []
    failures: list[dict] = []
    removals: list[dict] = []
    quarantined: list[dict] = []
    for row in joined.iter_rows(named=True):
        case_id, medqa_hash = row["case_id"], row["medqa_hash"]
        guard = _Guard(case_id, _terms(row))
        v = split_vignette(row["question"])
        case_units = _unit_rows(case_id, row, v, guard, quarantined)
        case_exams = _exam_rows(case_id, medqa_hash, v, guard)
        presentation = None
        if v.presentation and v.presentation_span:
            presentation = guard.clean(v.presentation, _ref(medqa_hash, *v.presentation_span), "removed_sentence")
        if presentation:
            presentations.append({"case_id": case_id, "presentation": presentation})
        else:
            failures.append({"case_id": case_id, "reason": "no opening presentation (no sentence naming the patient's "
                                                             "age, or it named the answer)"})
        if not any(not u["disclosed"] for u in case_units) and not case_exams:
            failures.append({"case_id": case_id, "reason": "vignette has neither hidden history nor findings"})
        units += case_units
        exams += case_exams
        rubric += _rubric_rows(case_id, case_units, case_exams)
        removals += guard.removals
    return MedqaViews(
        unit_candidates=_frame("unit_candidates", units),
        exam_candidates=_frame("exam_candidates", exams),
        presentations=_frame("presentations", presentations),
        rubric=pl.DataFrame(rubric, schema=RUBRIC_SCHEMA),
        conversion_failures=pl.DataFrame(failures, schema=FAILURE_SCHEMA),
        leakage_removals=_frame("leakage_removals", removals),
        quarantined=_frame("rejects", quarantined),
    )


def _frame(table: str, rows: list[dict]) -> pl.DataFrame:
    empty = schemas.empty(table)
    if not rows:
        return empty
    return pl.DataFrame(rows, schema=empty.schema)
