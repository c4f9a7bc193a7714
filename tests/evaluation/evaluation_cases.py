"""The episodes' small hand-made store (tests/episodes/episode_cases.py) with hand-written exams
that matter and rubrics, and builders of hand-made traces."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "episodes"))  # episode_cases, shared with the episodes

from episode_cases import case_id, frames  # noqa: E402

import schemas  # noqa: E402
from pipelines.episodes.actions import Finalize, to_json  # noqa: E402
from pipelines.evaluation.scores import Conditions  # noqa: E402
from pipelines.evaluation.trace import trace_of  # noqa: E402

HF, PNEUMONIA = case_id("01"), case_id("05")

# The exams that matter, ranked, and the rubric key points, written by hand for the two test cases.
TARGETS = [(HF, 1, "NT-proBNP", True), (HF, 2, "Chest X-ray", True), (HF, 3, "Sodium", True),
           (HF, 4, "Hemoglobin", False), (PNEUMONIA, 1, "Chest X-ray", True)]
RUBRICS = [(HF, "evidence", "swelling of both legs for a week", "key_unit", "unit:u_0100000000000001"),
           (HF, "evidence", "NT-proBNP: 5400 pg/mL", "abnormal_exam", "exam:NT-proBNP"),
           (HF, "evidence", "Chest X-ray: Bilateral pleural effusions with interstitial edema and cardiomegaly.",
            "abnormal_exam", "exam:Chest X-ray"),
           (HF, "management", "Furosemide (diuretic)", "prescription", "mimic_prescriptions:first_24h:furosemide"),
           (PNEUMONIA, "evidence", "cough with green sputum and chills", "key_unit", "unit:u_0500000000000001"),
           (PNEUMONIA, "evidence", "Chest X-ray: Left lower lobe consolidation.", "abnormal_exam", "exam:Chest X-ray")]


def targets_frame() -> pl.DataFrame:
    return schemas.conform("case_exam_targets", pl.DataFrame(
        [{"case_id": c, "rank": r, "exam_name": n, "abnormal": a, "weight": 0.1} for c, r, n, a in TARGETS],
        schema=schemas.empty("case_exam_targets").schema))


def rubrics_frame() -> pl.DataFrame:
    rows, ordinals = [], {}
    for c, kind, text, basis, ref in RUBRICS:
        ordinals[(c, kind)] = ordinals.get((c, kind), -1) + 1
        rows.append({"case_id": c, "kind": kind, "ordinal": ordinals[(c, kind)], "key_point": text, "basis": basis,
                     "source_ref": ref})
    return schemas.conform("case_rubrics", pl.DataFrame(rows, schema=schemas.empty("case_rubrics").schema))


def scoring_frames() -> dict[str, pl.DataFrame]:
    """The hand-made store's tables, pneumonia accepting J15.9 too, with the rubric tables."""
    tables = frames()
    tables["cases"] = tables["cases"].with_columns(
        pl.when(pl.col("case_id") == PNEUMONIA).then(pl.lit(["J18.9", "J15.9"]))
        .otherwise(pl.concat_list("primary_icd10")).alias("acceptable_icd10"))
    return tables | {"case_rubrics": rubrics_frame(), "case_exam_targets": targets_frame()}


MEDEVOEVAL = Conditions(action_budget=10, test_limit=3)
UNIT = "u_{}{:0>14}".format


def event(turn, actor, action, content="", **fields):
    return {"turn": turn, "actor": actor, "action": action, "content": content, "test_name": None,
            "match_type": None, "unit_ids": [], "memory_card_ids": [], "returned": None, "self_check": None,
            "error": None, **fields}


def result(turn, name, match, returned, content=""):
    return event(turn, "lab", "RESULT", content or f"{name}: {match}", test_name=name, match_type=match,
                 returned=returned)


def finalize(turn, diagnosis, code, evidence=(), plan=(), follow_up=()):
    return event(turn, "doctor", "FINALIZE", to_json(Finalize(diagnosis, code, tuple(evidence), tuple(plan),
                                                              tuple(follow_up))))


def episode(case, events, doctor="retrieval", n_tests=0, n_invalid=0, suffix="1"):
    row = {"episode_id": f"e_{suffix:0>16}", "run_id": "run", "case_id": case, "doctor": doctor, "n_tests": n_tests,
           "n_invalid_tests": n_invalid}
    return trace_of(row, events)


HF_TRACE = [
    event(0, "controller", "START", "opening"),
    event(1, "doctor", "ASK", '{"action": "ASK", "question": "Any swelling?"}'),
    event(1, "patient", "REPLY", "My legs have been swelling for a week.", unit_ids=[UNIT("01", 1)],
          self_check="passed"),
    event(2, "doctor", "REQUEST_TEST", "{}", test_name="NT-proBNP"),
    result(2, "NT-proBNP", "exact", True, "NT-proBNP: 5400 pg/mL | reference range: 0-125 pg/mL | flag: abnormal"),
    event(3, "doctor", "REQUEST_TEST", "{}", test_name="NT-proBNP"),  # a repeat adds nothing
    result(3, "NT-proBNP", "exact", True, "NT-proBNP: 5400 pg/mL | reference range: 0-125 pg/mL | flag: abnormal"),
    event(4, "doctor", "REQUEST_TEST", "{}", test_name="Troponin"),  # not orderable
    result(4, "Troponin", "not_allowed", False, "Troponin: not an orderable examination (not_allowed)."),
    event(5, "doctor", "REQUEST_TEST", "{}", test_name="Lipase"),  # not recorded for the case
    result(5, "Lipase", "not_in_case", False),
    event(6, "doctor", "ERROR", "not json", error="output is not one JSON object"),
    event(7, "doctor", "CALL_MDT", "{}"), event(7, "consultant", "REPLY", "Consider heart failure."),
    finalize(8, "Heart failure, unspecified", "I50.9",
             evidence=["legs swelling for a week", "elevated NT-proBNP", "troponin elevated"],
             plan=["start IV furosemide"], follow_up=["clinic review in two weeks"]),
    event(8, "controller", "END", "finalized"),
]
