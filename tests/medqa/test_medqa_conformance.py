"""The MedQA conversion measured on the real 128-question dev sample (skipped where it is absent).

``labels.csv`` (beside this file) holds hand labels per question hash: whether the question is a
diagnosis question and the ICD-10-CM category of its answer. The thresholds are the ones reached
on this sample and the issue's targets for unseen questions: >= 95% of diagnosis questions
converted, >= 85% ICD-10 category agreement, no answer or option leakage, and (almost) no
examination finding filed as patient history.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from pipelines import icd
from pipelines.leakage import audit_frame, diagnosis_terms, find_mentions
from pipelines.medqa.answer_icd import equivalent_names, map_answer
from pipelines.medqa.convert import convert_questions, holds_measurement
from pipelines.medqa.findings import MEASUREMENT
from pipelines.medqa.select import classify_question
from pipelines.medqa.vignette import _EXAM_CUE
from pipelines.sources.medqa import question_hash

SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "medqa-us-dev-sample" / "US_test_dev_sample.jsonl"
LABELS = Path(__file__).with_name("labels.csv")


@pytest.fixture(scope="module")
def sample() -> pl.DataFrame:
    if not SAMPLE.exists():
        pytest.skip(f"MedQA dev sample not found at {SAMPLE} (../shared is only present on the team's machines)")
    rows = []
    with SAMPLE.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            r = json.loads(line)
            rows.append({"medqa_file": SAMPLE.name, "medqa_line": line_no, "medqa_hash": question_hash(r),
                         "question": r["question"], "answer": r["answer"],
                         "options": json.dumps(r["options"], ensure_ascii=False, sort_keys=True),
                         "answer_idx": r["answer_idx"], "meta_info": str(r.get("meta_info") or "")})
    labels = {r["medqa_hash"]: r for r in csv.DictReader(line for line in LABELS.open() if not line.startswith("#"))}
    frame = pl.DataFrame(rows)
    return frame.with_columns(
        pl.col("medqa_hash").replace_strict({h: r["is_diagnosis"] == "1" for h, r in labels.items()}).alias("label_dx"),
        pl.col("medqa_hash").replace_strict({h: r["icd10_category"] or None for h, r in labels.items()},
                                            return_dtype=pl.Utf8).alias("label_category"),
        pl.struct("question", "options", "answer").map_elements(
            lambda r: classify_question(r["question"], json.loads(r["options"]), r["answer"])[0],
            return_dtype=pl.Boolean).alias("selected"),
    )


@pytest.fixture(scope="module")
def views(sample):
    cases = sample.filter(pl.col("selected"))
    ids = cases.select("medqa_hash", ("c_" + pl.col("medqa_hash")).alias("case_id"))
    return cases, convert_questions(sample, ids)


def test_every_question_is_labelled(sample):
    assert sample.height == 128 and sample["label_dx"].is_not_null().all()


def test_selection_matches_the_hand_labels(sample):
    labelled = sample.filter(pl.col("label_dx"))
    assert labelled.height == 20
    assert labelled["selected"].mean() >= 0.95  # recall
    assert sample.filter(pl.col("selected") & ~pl.col("label_dx")).height <= 1  # false positives


def test_icd10_category_agrees_with_the_hand_labels(sample):
    labelled = sample.filter(pl.col("label_dx"))
    got = [map_answer(a).category for a in labelled["answer"]]
    agree = sum(g == want for g, want in zip(got, labelled["label_category"]))
    assert agree / labelled.height >= 0.85


def test_diagnosis_questions_are_converted(views):
    cases, v = views
    presented = set(v.presentations["case_id"])
    hidden = set(v.unit_candidates.filter(~pl.col("disclosed"))["case_id"]) | set(v.exam_candidates["case_id"])
    converted = [c for c in ("c_" + cases["medqa_hash"]).to_list() if c in presented and c in hidden]
    assert len(converted) / cases.height >= 0.95
    assert v.conversion_failures.height <= 0.05 * cases.height


def test_no_answer_or_option_leaks(views):
    cases, v = views
    answer_terms, option_terms = {}, {}
    for h, answer, options in cases.select("medqa_hash", "answer", "options").iter_rows():
        m = map_answer(answer)
        title = icd.icd10cm_info(m.icd10).title if m.icd10 else None
        answer_terms[f"c_{h}"] = diagnosis_terms(m.diagnosis_name, [answer, *m.acceptable_names], m.icd10, title)
        option_terms[f"c_{h}"] = [n for o in json.loads(options).values() for n in equivalent_names(o)]
    for frame, columns in ((v.unit_candidates, ["text"]), (v.presentations, ["presentation"]),
                           (v.exam_candidates, ["value_text", "raw_name", "exam_name"])):
        assert audit_frame(frame.with_columns(pl.col(columns).fill_null("")), columns, answer_terms).is_empty()
        assert audit_frame(frame.with_columns(pl.col(columns).fill_null("")), columns, option_terms).is_empty()


def test_findings_are_not_filed_as_history(views):
    _, v = views
    history = v.unit_candidates.filter(~pl.col("disclosed"))["text"].to_list()
    assert not [t for t in history if MEASUREMENT.search(t)]
    exam_like = [t for t in history if _EXAM_CUE.search(t)]
    assert len(exam_like) <= 0.02 * v.exam_candidates.height, exam_like
    # what the split misses is quarantined, not published, and stays rare
    assert not [t for t in v.unit_candidates["text"] if holds_measurement(t)]
    assert v.quarantined.height <= 0.02 * v.unit_candidates.height, v.quarantined["raw"].to_list()


def test_findings_and_history_are_found(views):
    cases, v = views
    kinds = set(v.exam_candidates["kind"])
    assert {"vital", "lab", "physical_exam", "imaging"} <= kinds
    assert v.exam_candidates.height >= 5 * cases.height
    assert v.unit_candidates.filter(~pl.col("disclosed")).height >= 2 * cases.height
    assert v.rubric["case_id"].n_unique() == cases.height  # every case has key points
    assert not any(find_mentions(s, ["Which of the following"]) for s in v.presentations["presentation"])
