"""Hand-made ``episode_scores`` / ``episodes`` frames for the statistics tests."""

from __future__ import annotations

from typing import Any

import polars as pl


def tables(conditions: dict[str, dict[str, list[Any]]], label: str = "condition") -> tuple[pl.DataFrame, pl.DataFrame]:
    """Scores and episodes of ``conditions``: label -> column -> values, one episode per value, over
    cases ``c0``, ``c1``, ... unless a ``case_id`` list says which; a ``stage`` list goes to episodes."""
    scores, episodes = [], []
    for name, columns in conditions.items():
        n = len(next(iter(columns.values())))
        cases = columns.get("case_id", [f"c{i}" for i in range(n)])
        for i, case in enumerate(cases):
            episode_id = f"{name}-{case}-{i}"
            scores.append({"episode_id": episode_id, "case_id": case,
                           **{k: v[i] for k, v in columns.items() if k not in ("case_id", "stage")}})
            episodes.append({"episode_id": episode_id, "case_id": case, label: name,
                             **({"stage": columns["stage"][i]} if "stage" in columns else {})})
    return pl.DataFrame(scores), pl.DataFrame(episodes)
