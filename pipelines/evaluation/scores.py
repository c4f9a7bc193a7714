"""Episode scores (``episode_scores``): a pure function of a recorded trace, its case's reference
and the run's conditions, graded by a judge (data-contract.md, "Definitions that the scores must
follow"; MedEvoEval Appendix C; ClinVerse section 2.4).

* ICR = sum of importance weights of the hidden units elicited / of all hidden units (weights in
  ``data/scoring.yaml``; 1 when nothing is hidden).
* TOC = exams that matter ordered / exams that matter, over the first ``test_limit`` exams that
  matter (pipelines/evaluation/exam_targets.py: informative on the train split, reachable within
  the preset's examination limit). "Ordered" means returned from the case's record, once per exam
  name: a repeat, a name outside the catalog, an exam the case did not record and a request beyond
  the limit add nothing. ATC = those of them abnormal and surfaced / those abnormal. An empty
  denominator scores 1.
* Exam precision / recall / F1 (scikit-learn): every distinct exam name ordered (whatever the lab
  answered, but not a request beyond the limit) against all the case's exams that matter.
  Precision of an episode that ordered nothing is 0 (recall 1 if nothing matters); nothing
  ordered where nothing matters scores 1. :func:`exam_choice_by_case` averages per case, cases
  that ordered nothing included.
* DCA / DSA and S_diag: pipelines/evaluation/diagnosis.py; m and h: the judge.
* S_evi = max(0, (m - 0.5 h) / K), S_plan = max(0, (m - 1.0 h) / K); S = 0.5 S_diag + 0.3 S_evi +
  0.2 S_plan, where a kind without key points (K = 0: a case without management, say) gives its
  weight to the others in proportion (``plan_redistributed``, ``evidence_redistributed``; its
  S_x is null). strict = (S_diag = 1); pass = (S >= 0.7).
* U = 0.6 S - 0.2 T / C_T - 0.1 E / E_max - 0.1 R with T = ASK + REQUEST_TEST + error turns,
  E the examinations, R = invalid examinations / E (0 without any), C_T = B the run's action
  budget and E_max its examination limit (10 and 3 in the medevoeval preset, as in the contract).
  S and U are computed by formulas.py, which the weight sensitivity (weights.py) shares.

Conditions: a privileged doctor (``full_info``, the full-information reference) was given the
whole case, and so was any doctor under the static full-vignette condition (an episode setting,
``vignette``: the whole case in the opening), so every hidden unit counts as elicited, every
recorded exam as returned, and its evidence is checked against the whole case
(``full_information``). Under ``oracle_block`` (an episode setting: the true
block is given in the opening) a code outside the true block scores S_diag = 0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy import sparse
from sklearn.metrics import precision_recall_fscore_support

import schemas
from pipelines.episodes.doctors import DOCTORS
from pipelines.evaluation.diagnosis import TrueAnswer
from pipelines.evaluation.formulas import outcome_score, redistribute, utility
from pipelines.evaluation.judges import Grades, Judge, Submission
from pipelines.evaluation.params import IMPORTANCE, ScoringParams, scoring_params
from pipelines.evaluation.reference import CaseReference, References
from pipelines.evaluation.trace import Trace, trace_of

# column -> its name in a summary (mean over episodes; strict and pass as rates)
SUMMARY = {"score_s": "mean_s", "utility_u": "mean_u", "icr": "mean_icr", "toc": "mean_toc", "atc": "mean_atc",
           "dca": "mean_dca", "dsa": "mean_dsa", "strict": "strict_rate", "pass": "pass_rate"}


@dataclass(frozen=True)
class Conditions:
    """What of a run's configuration the scores depend on."""

    action_budget: int  # C_T
    test_limit: int  # E_max, and how many exams that matter TOC and ATC take
    oracle_block: bool = False
    vignette: bool = False  # the whole case was in the opening (the static full-vignette condition)

    @classmethod
    def of_run(cls, config: str) -> Conditions:
        """From a ``runs.config`` JSON (its ``episode`` settings)."""
        episode = json.loads(config)["episode"]
        return cls(int(episode["action_budget"]), int(episode["test_limit"]), bool(episode.get("oracle_block", False)),
                   bool(episode.get("vignette", False)))


def full_information(doctor: str, conditions: Conditions | None = None) -> bool:
    """Whether the doctor was handed the whole case: a privileged offline doctor (``full_info``), or
    any doctor under the full-vignette condition."""
    return bool(getattr(DOCTORS.get(doctor), "privileged", False)) or bool(conditions and conditions.vignette)


def submission(trace: Trace, reference: CaseReference, conditions: Conditions) -> Submission:
    """What the judge grades of one episode: the final output and what the doctor was shown."""
    shown = (reference.full_case,) if full_information(trace.doctor, conditions) else trace.revealed
    return Submission(trace.episode_id, trace.final, reference, (reference.presentation, *shown),
                      conditions.oracle_block)


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 1.0


def exam_choice(episodes: Sequence[tuple[frozenset[str], frozenset[str]]]) -> list[tuple[float, float, float]]:
    """Precision, recall and F1 of each episode's (exams ordered, exams that matter), in one pass of
    scikit-learn: a multilabel matrix with one column per episode and one row per exam name."""
    names = sorted(set().union(*(o | t for o, t in episodes))) if episodes else []
    if not names:
        return [(1.0, 1.0, 1.0)] * len(episodes)
    index = {n: i for i, n in enumerate(names)}

    def matrix(which: int) -> sparse.csr_matrix:
        cells = [(index[n], j) for j, pair in enumerate(episodes) for n in pair[which]]
        rows, cols = zip(*cells) if cells else ((), ())
        # one empty column more: a single episode stays a multilabel problem, not a binary one
        return sparse.csr_matrix((np.ones(len(cells), dtype=np.int8), (rows, cols)),
                                 shape=(len(names), len(episodes) + 1))

    truth, chosen = matrix(1), matrix(0)
    precision, _, f1, _ = precision_recall_fscore_support(truth, chosen, average=None, zero_division=0.0)
    _, recall, _, _ = precision_recall_fscore_support(truth, chosen, average=None, zero_division=1.0)
    return [(1.0, 1.0, 1.0) if not (o or t) else (float(p), float(r), float(f))  # nothing asked, nothing done
            for (o, t), p, r, f in zip(episodes, precision[:-1], recall[:-1], f1[:-1], strict=True)]


def targets_of(reference: CaseReference) -> frozenset[str]:
    """All the case's exams that matter (exam precision and recall)."""
    return frozenset(t.exam_name for t in reference.targets)


def collected(trace: Trace, reference: CaseReference,
              conditions: Conditions) -> tuple[set[str], frozenset[str], frozenset[str]]:
    """The hidden units elicited, the exams returned from the record and every exam ordered; a doctor
    given the whole case (full information) collected all of them."""
    if full_information(trace.doctor, conditions):
        return set(reference.hidden), reference.recorded, reference.recorded
    return set(trace.elicited & reference.hidden.keys()), trace.returned, trace.ordered


def score_row(trace: Trace, reference: CaseReference, grades: Grades, conditions: Conditions, judge: str,
              params: ScoringParams, choice: tuple[float, float, float]) -> dict[str, Any]:
    """One ``episode_scores`` row (module docstring); ``choice``: its :func:`exam_choice`."""
    hidden = reference.hidden
    elicited, returned, ordered = collected(trace, reference, conditions)
    n_hidden = {i: sum(1 for v in hidden.values() if v == i) for i in IMPORTANCE}
    n_elicited = {i: sum(1 for u in elicited if hidden[u] == i) for i in IMPORTANCE}
    w = params.importance_weights
    icr = _ratio(sum(w[i] * n_elicited[i] for i in IMPORTANCE), sum(w[i] * n_hidden[i] for i in IMPORTANCE))

    matter = reference.targets[: conditions.test_limit]
    abnormal = [t for t in matter if t.abnormal]
    n_matter_ordered = sum(t.exam_name in returned for t in matter)
    n_surfaced = sum(t.exam_name in returned for t in abnormal)
    targets = targets_of(reference)
    precision, recall, f1 = choice

    agrees = TrueAnswer(reference.manager).agreement(trace.final.icd10 if trace.final else None)
    k_evi, k_plan = len(reference.evidence), len(reference.management)
    s_evi = max(0.0, (grades.m_evi - params.evidence_penalty * grades.h_evi) / k_evi) if k_evi else None
    s_plan = max(0.0, (grades.m_plan - params.plan_penalty * grades.h_plan) / k_plan) if k_plan else None
    weights = redistribute(params.outcome_weights, k_evi > 0, k_plan > 0)
    score = outcome_score(weights, grades.s_diag, s_evi or 0.0, s_plan or 0.0)

    invalid_rate = min(1.0, trace.invalid_tests / trace.tests_e) if trace.tests_e else 0.0
    u = utility(params.utility_weights, score, trace.turns_t, conditions.action_budget, trace.tests_e,
                max(1, conditions.test_limit), invalid_rate)
    return {
        "episode_id": trace.episode_id, "run_id": trace.run_id, "case_id": trace.case_id, "judge": judge,
        "judge_error": grades.error, "icr": icr, "toc": _ratio(n_matter_ordered, len(matter)),
        "atc": _ratio(n_surfaced, len(abnormal)), "dca": float(agrees["block"]), "dsa": float(agrees["category"]),
        "exam_precision": precision, "exam_recall": recall, "exam_f1": f1, "s_diag": grades.s_diag,
        "s_evi": s_evi, "s_plan": s_plan, "score_s": score, "utility_u": u,
        "strict": grades.s_diag == 1.0, "pass": score >= params.pass_threshold,
        **{f"n_hidden_{i}": n_hidden[i] for i in IMPORTANCE}, **{f"n_elicited_{i}": n_elicited[i] for i in IMPORTANCE},
        "n_exams_matter": len(matter), "n_matter_ordered": n_matter_ordered, "n_abnormal_matter": len(abnormal),
        "n_abnormal_surfaced": n_surfaced, "n_exams_ordered": len(ordered), "n_targets": len(targets),
        "n_targets_ordered": len(ordered & targets), "k_evi": k_evi, "m_evi": grades.m_evi, "h_evi": grades.h_evi,
        "k_plan": k_plan, "m_plan": grades.m_plan, "h_plan": grades.h_plan, "turns_t": trace.turns_t,
        "tests_e": trace.tests_e, "invalid_rate_r": invalid_rate, "c_t": conditions.action_budget,
        "e_max": max(1, conditions.test_limit), "plan_redistributed": k_plan == 0, "evidence_redistributed": k_evi == 0,
        "full_information": full_information(trace.doctor, conditions), "oracle_block": conditions.oracle_block,
    }


def score_rows(traces: Sequence[Trace], references: References, conditions: Mapping[str, Conditions], judge: Judge,
               params: ScoringParams | None = None) -> list[dict[str, Any]]:
    """The ``episode_scores`` rows of ``traces``, not yet framed; ``conditions`` by run id."""
    params = params or scoring_params()
    submissions = [submission(t, references[t.case_id], conditions[t.run_id]) for t in traces]
    grades = judge.grade(submissions)
    choices = exam_choice([(collected(t, references[t.case_id], conditions[t.run_id])[2],
                            targets_of(references[t.case_id])) for t in traces])
    return [score_row(t, references[t.case_id], g, conditions[t.run_id], judge.name, params, c)
            for t, g, c in zip(traces, grades, choices, strict=True)]


def score_traces(traces: Sequence[Trace], references: References, conditions: Mapping[str, Conditions], judge: Judge,
                 params: ScoringParams | None = None) -> pl.DataFrame:
    """``episode_scores`` of ``traces``; ``conditions`` by run id."""
    rows = score_rows(traces, references, conditions, judge, params)
    return schemas.conform("episode_scores", pl.DataFrame(rows, schema=schemas.empty("episode_scores").schema))


def traces(episodes: pl.DataFrame, events: pl.DataFrame) -> list[Trace]:
    """The traces of ``episodes`` (rows of ``episodes``) from their ``episode_events``."""
    by_episode: dict[str, list[dict]] = {}
    for row in events.iter_rows(named=True):
        by_episode.setdefault(row["episode_id"], []).append(row)
    return [trace_of(row, by_episode.get(row["episode_id"], [])) for row in episodes.sort("case_id").iter_rows(named=True)]


def exam_choice_by_case(scores: pl.DataFrame) -> pl.DataFrame:
    """Exam precision / recall / F1 averaged over each case's episodes, every case kept (those that
    ordered nothing score precision 0), and whether any of its episodes ordered anything."""
    return scores.group_by("case_id").agg(
        pl.col("exam_precision", "exam_recall", "exam_f1").mean(),
        (pl.col("n_exams_ordered").max() > 0).alias("ordered_any")).sort("case_id")


def summary(scores: pl.DataFrame) -> dict[str, float]:
    """Mean scores of a set of episodes (:data:`SUMMARY`), and exam choice averaged per case."""
    if scores.height == 0:
        return {}
    means = scores.select(pl.col(c).cast(pl.Float64).mean().alias(name) for c, name in SUMMARY.items())
    per_case = exam_choice_by_case(scores).select(
        pl.col(c).mean().alias(f"case_{c}") for c in ("exam_precision", "exam_recall", "exam_f1"))
    return {k: round(v, 4) for k, v in (means.row(0, named=True) | per_case.row(0, named=True)).items()}
