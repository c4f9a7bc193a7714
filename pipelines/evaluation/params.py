"""The evaluation's parameters, read from the data files beside this package (checked on load).

* ``data/scoring.yaml``: weights and thresholds of ICR, S and U (:class:`ScoringParams`);
* ``data/rubrics.yaml``: how rubrics and the exams that matter are built (:class:`RubricParams`);
* ``data/judge.yaml``: the offline judge's matching shares and ignored words (:class:`MatchParams`).
* ``data/statistics.yaml``: bootstrap, cost-weight alternatives, age bands and the protocols' Holm
  families (:class:`StatisticsParams`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from pipelines.datafiles import DataFileError, yaml_mapping

PACKAGE = "pipelines.evaluation"
IMPORTANCE = ("key", "supporting", "background")
LEVELS = ("code", "category", "block", "chapter")
OUTCOMES = ("diagnosis", "evidence", "plan")
UTILITY = ("score", "turns", "tests", "invalid")
# The evaluation protocols, in data/protocols.yaml (pipelines/evaluation/protocols.py), and the stream's
# stages unless a study says otherwise: here, so that the definitions name them without loading a study.
PROTOCOL_NAMES = ("stream", "heldout", "update", "mdt", "static", "interface", "clinlab")
DEFAULT_STAGES = 10


def _weights(file: str, data: dict[str, Any], field: str, keys: tuple[str, ...]) -> dict[str, float]:
    values = data[field]
    if not isinstance(values, dict) or set(values) != set(keys):
        raise DataFileError(file, "", field, f"expected the keys {', '.join(keys)}")
    if not all(isinstance(v, (int, float)) and v >= 0 for v in values.values()):
        raise DataFileError(file, "", field, "weights must be numbers >= 0")
    return {k: float(values[k]) for k in keys}


@dataclass(frozen=True)
class ScoringParams:
    importance_weights: dict[str, float]
    diagnosis_levels: dict[str, float]
    outcome_weights: dict[str, float]
    evidence_penalty: float
    plan_penalty: float
    pass_threshold: float
    utility_weights: dict[str, float]


@cache
def scoring_params() -> ScoringParams:
    file = "data/scoring.yaml"
    data = yaml_mapping(PACKAGE, file, ("importance_weights", "diagnosis_levels", "outcome_weights",
                                        "evidence_penalty", "plan_penalty", "pass_threshold", "utility_weights"))
    params = ScoringParams(
        _weights(file, data, "importance_weights", IMPORTANCE), _weights(file, data, "diagnosis_levels", LEVELS),
        _weights(file, data, "outcome_weights", OUTCOMES), float(data["evidence_penalty"]),
        float(data["plan_penalty"]), float(data["pass_threshold"]), _weights(file, data, "utility_weights", UTILITY))
    if abs(sum(params.outcome_weights.values()) - 1.0) > 1e-9:
        raise DataFileError(file, "", "outcome_weights", "must sum to 1")
    return params


@dataclass(frozen=True)
class RubricParams:
    min_support: int
    max_units: int
    max_exams: int
    hours: float
    drug_types: tuple[str, ...]
    max_points: int
    routine: tuple[str, ...]
    prophylaxis: dict[str, tuple[str, ...]]  # drug -> routes by which it is prophylaxis


@cache
def rubric_params() -> RubricParams:
    data = yaml_mapping(PACKAGE, "data/rubrics.yaml", ("exams", "evidence", "management"))
    exams, evidence, management = data["exams"], data["evidence"], data["management"]
    return RubricParams(
        int(exams["min_support"]), int(evidence["max_units"]), int(evidence["max_exams"]), float(management["hours"]),
        tuple(management["drug_types"]), int(management["max_points"]), tuple(management["routine"]),
        {drug: tuple(routes) for drug, routes in management["prophylaxis"].items()})


@dataclass(frozen=True)
class MatchParams:
    match_share: float
    support_share: float
    ignored: frozenset[str]


@cache
def match_params() -> MatchParams:
    file = "data/judge.yaml"
    data = yaml_mapping(PACKAGE, file, ("match_share", "support_share", "ignored", "units"))
    for field in ("match_share", "support_share"):
        if not 0 < data[field] <= 1:
            raise DataFileError(file, "", field, "must be in (0, 1]")
    return MatchParams(float(data["match_share"]), float(data["support_share"]),
                       frozenset(str(w) for w in (*data["ignored"], *data["units"])))


@dataclass(frozen=True)
class StatisticsParams:
    resamples: int
    seed: int
    confidence: float
    cost_weights: dict[str, dict[str, float]]  # name -> utility weights, the default (scoring.yaml) excluded
    age_bands: tuple[int, ...]  # lower edges of the bands after the first
    families: dict[str, tuple[dict[str, Any], ...]]  # protocol -> its Holm family declarations


@cache
def statistics_params() -> StatisticsParams:
    file = "data/statistics.yaml"
    data = yaml_mapping(PACKAGE, file, ("bootstrap", "cost_weights", "age_bands", "families"))
    bootstrap = data["bootstrap"]
    if not isinstance(bootstrap, dict) or set(bootstrap) != {"resamples", "seed", "confidence"}:
        raise DataFileError(file, "", "bootstrap", "expected the keys resamples, seed, confidence")
    if not (int(bootstrap["resamples"]) >= 1 and 0 < float(bootstrap["confidence"]) < 1):
        raise DataFileError(file, "", "bootstrap", "resamples must be >= 1 and confidence in (0, 1)")
    costs = data["cost_weights"]
    if not isinstance(costs, dict) or "default" in costs:
        raise DataFileError(file, "", "cost_weights", "expected named alternatives; the default is scoring.yaml's")
    bands = data["age_bands"]
    if not (isinstance(bands, list) and all(isinstance(b, int) for b in bands) and bands == sorted(set(bands))):
        raise DataFileError(file, "", "age_bands", "expected increasing whole years")
    families = data["families"]
    if not (isinstance(families, dict) and all(isinstance(v, list) for v in families.values())):
        raise DataFileError(file, "", "families", "expected protocol -> a list of family declarations")
    return StatisticsParams(
        int(bootstrap["resamples"]), int(bootstrap["seed"]), float(bootstrap["confidence"]),
        {name: _weights(file, costs, name, UTILITY) for name in costs}, tuple(bands),
        {protocol: tuple(declared) for protocol, declared in families.items()})
