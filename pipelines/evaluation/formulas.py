"""S and U from their components: one definition, used by scores.py on one episode's numbers and by
weights.py on the logged columns of ``episode_scores`` (polars expressions), so the weight sensitivity
recomputes exactly what scoring computed (data-contract.md, "Definitions"; MedEvoEval Appendix C.2).

Every function works on plain numbers and on polars expressions alike (``Value``); flags may be
``bool`` or Boolean expressions (arithmetic treats them as 0 / 1).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl


def redistribute[Value: (float, pl.Expr)](weights: Mapping[str, float], has_evidence: Value,
                                           has_plan: Value) -> dict[str, Value]:
    """The outcome weights of one episode: a kind without key points gives its weight to the others in
    proportion to theirs. Where no kind that was graded carries weight (a sensitivity setting with
    w_diag = 0 on a case without the weighted kinds), the diagnosis takes it all."""
    evidence = weights["evidence"] * has_evidence
    plan = weights["plan"] * has_plan
    total = weights["diagnosis"] + evidence + plan
    orphaned = total == 0
    total = total + orphaned
    return {"diagnosis": (weights["diagnosis"] + orphaned) / total, "evidence": evidence / total, "plan": plan / total}


def outcome_score[Value: (float, pl.Expr)](weights: Mapping[str, Value], s_diag: Value, s_evi: Value,
                                            s_plan: Value) -> Value:
    """S = w_diag S_diag + w_evi S_evi + w_plan S_plan (an ungraded kind's S_x passed as 0)."""
    return weights["diagnosis"] * s_diag + weights["evidence"] * s_evi + weights["plan"] * s_plan


def utility[Value: (float, pl.Expr)](weights: Mapping[str, float], score: Value, turns_t: Value, c_t: Value,
                                      tests_e: Value, e_max: Value, invalid_rate: Value) -> Value:
    """U = w_s S - w_t T / C_T - w_e E / E_max - w_r R."""
    return (weights["score"] * score - weights["turns"] * turns_t / c_t - weights["tests"] * tests_e / e_max
            - weights["invalid"] * invalid_rate)
