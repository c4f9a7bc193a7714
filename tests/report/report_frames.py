"""Hand-made summaries in the shapes report_summaries returns, one for every plot, with a hostile arm
name and case id (HTML and SVG must show them as text)."""

from __future__ import annotations

import polars as pl

HOSTILE = '<script>alert("x")</script> & $x$'
ARMS = ["E0", HOSTILE]
ENDPOINTS = ("score_s", "utility_u", "icr", "toc", "atc", "dca", "dsa", "strict", "pass")


def summaries() -> dict[str, pl.DataFrame]:
    conditions = pl.DataFrame([{"arm": arm, "condition": arm, "doctor": "retrieval", "runs": 1, "endpoint": e, "n": 4,
                                "mean": 0.5 + 0.1 * a, "ci_low": 0.4 + 0.1 * a, "ci_high": 0.6 + 0.1 * a}
                               for a, arm in enumerate(ARMS) for e in ENDPOINTS])
    stages = pl.DataFrame([{"arm": arm, "stage": s, "episodes": 2, "score_s": 0.4 + 0.05 * s, "utility_u": 0.1 * s}
                           for arm in ARMS for s in range(3)])
    turns = pl.DataFrame([{"arm": arm, "turn": t, "episodes": 4, "icr_share": min(1.0, 0.3 * t),
                           "dca_share": 0.0 if t < 3 else 0.5} for arm in ARMS for t in range(4)])
    actions = pl.DataFrame([{"arm": arm, "turn": t, "action": action, "count": count}
                            for arm in ARMS for t in (1, 2, 3)
                            for action, count in (("ASK", 4 - t), ("REQUEST_TEST", 1), ("CALL_MDT", 0),
                                                  ("FINALIZE", int(t == 3)), ("ERROR", 0))])
    costs = pl.DataFrame([{"setting": setting, "w_score": 0.6, "w_turns": 0.2, "w_tests": 0.1, "w_invalid": 0.1,
                           "group": arm, "n": 4, "mean_u": 0.1 * i - 0.05 * a}
                          for i, setting in enumerate(("default", "outcome_heavy")) for a, arm in enumerate(ARMS)])
    subgroups = pl.DataFrame([{"subgroup": sub, "level": level, "group": arm, "n": 2, "score_s": 0.3, "utility_u": 0.1,
                               "dca": 0.5, "strict": 0.5}
                              for sub, levels in (("age_band", ["18-44", None]), ("sex", ["F", "M"]))
                              for level in levels for arm in ARMS])
    clinlab = pl.DataFrame([{"predictor": p, "exam_name": exam, "n": 5, "mape": m}
                            for p, m in (("clinlab", 0.1), ("population_median", 0.2)) for exam in ("Sodium", "Urea")])
    stress = pl.DataFrame({"configuration": ["single_layer", "dual_layer+self_check"], "n": [3, 3],
                           "disclosure_rate": [0.5, 0.0], "refusal_rate": [0.0, 1.0]})
    cases = pl.DataFrame({"case_id": [HOSTILE, "c_0000000000000001"], "arm": ARMS, "score_s": [0.5, 0.6],
                          "strict": [True, False]})
    return {"conditions": conditions, "stages": stages, "turns": turns, "actions": actions, "weight_costs": costs,
            "subgroups": subgroups, "clinlab_exams": clinlab, "stress": stress, "cases": cases}
