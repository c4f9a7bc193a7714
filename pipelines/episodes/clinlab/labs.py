"""The numeric laboratory values ClinLab learns from and serves, each lab in one unit.

A case's value of a lab is its first recorded numeric result, the one the laboratory physician
reports (:attr:`ExamView.by_name`). Each lab keeps the unit most common on the training split; a
value recorded in another unit is not comparable, so it counts as missing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl

from pipelines.episodes.views import ExamResult


@lru_cache(maxsize=1024)  # a few units, compared for every value of a cohort
def unit_key(unit: str | None) -> str:
    """A unit as compared: "mg/dL" and "mg/dl" are one unit."""
    return (unit or "").strip().casefold()


def numeric_labs(first: Mapping[str, ExamResult]) -> dict[str, ExamResult]:
    """Of a case's first result of each exam (``ExamView.by_name``), the labs' that are a number."""
    return {name: r for name, r in first.items() if r.kind == "lab" and r.value_num is not None}


# :func:`numeric_labs`' test on the rows of first results (CaseStore.lab_rows), so that a
# cohort's other results never become Python objects: at 32,000 generated admissions the train
# split's every first result took 940 MB as ExamResults. tests/episodes/test_clinlab.py holds the two alike.
NUMERIC_LAB_ROWS = (pl.col("kind") == "lab") & pl.col("value_num").is_not_null()


@dataclass(frozen=True)
class LabStats:
    """What the training split says about one lab, in its most common unit."""

    exam_name: str
    unit: str | None
    ref_low: float | None
    ref_high: float | None
    median: float
    decimals: int
    n: int  # training cases with a value in this unit

    @property
    def reported_median(self) -> float:
        """The median at the lab's recorded precision, as a laboratory reports a value: what ClinLab
        serves for a lab whose model is its median, and what the population-median baseline predicts."""
        return float(np.round(self.median, self.decimals))

    def in_unit(self, result: ExamResult) -> bool:
        return unit_key(result.unit) == unit_key(self.unit)

    def abnormal(self, value: float) -> bool | None:
        if self.ref_low is None and self.ref_high is None:
            return None
        below = self.ref_low is not None and value < self.ref_low
        return below or (self.ref_high is not None and value > self.ref_high)

    def result(self, value: float) -> ExamResult:
        """A predicted value as the laboratory physician reports it."""
        value = round(float(value), self.decimals)
        return ExamResult(self.exam_name, "lab", value, None, self.unit, self.ref_low, self.ref_high,
                          self.abnormal(value), origin="predicted")


@dataclass(frozen=True)
class CaseLabs:
    """What ClinLab conditions on for one case: age, sex and its lab values (never the diagnosis)."""

    age: int | None
    sex: str | None
    values: dict[str, float]

    @classmethod
    def of(cls, age: int | None, sex: str | None, labs: Mapping[str, ExamResult], stats: dict[str, LabStats]) -> CaseLabs:
        """From a case's :func:`numeric_labs`: the values of the labs in ``stats``, in their units."""
        return cls(age, sex, {name: r.value_num for name, r in labs.items() if name in stats and stats[name].in_unit(r)})


def lab_stats(results: pl.DataFrame, max_decimals: int) -> dict[str, LabStats]:
    """Each lab's unit, reference range, median and precision from its training results (rows of
    first results: ``exam_name`` and the columns of :class:`ExamResult`), counted as columns."""
    keyed = _keyed(results)
    counts: dict[str, dict[str, int]] = {}
    for name, key, n in keyed.group_by("exam_name", "_key").len().iter_rows():
        counts.setdefault(name, {})[key] = n
    kept = keyed.join(pl.DataFrame({"exam_name": list(counts), "_key": [_most_common(c) for c in counts.values()]},
                                   schema={"exam_name": pl.Utf8, "_key": pl.Utf8}), on=["exam_name", "_key"])
    ranges: dict[str, dict[tuple, int]] = {}
    bounded = kept.filter(pl.col("ref_low").is_not_null() | pl.col("ref_high").is_not_null())
    for name, low, high, n in bounded.group_by("exam_name", "ref_low", "ref_high").len().iter_rows():
        ranges.setdefault(name, {})[low, high] = n
    units: dict[str, dict[str | None, int]] = {}
    for name, unit, n in kept.group_by("exam_name", "unit").len().iter_rows():
        units.setdefault(name, {})[unit] = n
    stats = {}
    for name, values in kept.group_by("exam_name").agg("value_num").sort("exam_name").iter_rows():
        low, high = _most_common(ranges[name]) if name in ranges else (None, None)
        stats[name] = LabStats(name, _most_common(units[name]), low, high, float(np.median(values)),
                               min(max_decimals, max(map(_decimals, set(values)))), len(values))
    return stats


def case_labs(people: pl.DataFrame, recorded: pl.DataFrame) -> list[CaseLabs]:
    """:meth:`CaseLabs.of` for every admission of ``people`` (case_id, age, sex), in its order, from
    ``recorded``: their numeric labs' rows in their labs' units (:func:`in_unit`)."""
    values: dict[str, dict[str, float]] = {}
    for case_id, name, value in recorded.select("case_id", "exam_name", "value_num").iter_rows():
        values.setdefault(case_id, {})[name] = value
    return [CaseLabs(age, sex, values.get(case_id, {})) for case_id, age, sex in people.iter_rows()]


def in_unit(results: pl.DataFrame, stats: dict[str, LabStats]) -> pl.DataFrame:
    """The rows of ``results`` of a lab in ``stats``, recorded in its unit (:meth:`LabStats.in_unit`)."""
    units = pl.DataFrame({"exam_name": list(stats), "_key": [unit_key(s.unit) for s in stats.values()]},
                         schema={"exam_name": pl.Utf8, "_key": pl.Utf8})
    return _keyed(results).join(units, on=["exam_name", "_key"], maintain_order="left").drop("_key")


def _keyed(results: pl.DataFrame) -> pl.DataFrame:
    """``results`` with each unit's :func:`unit_key` (``_key``), computed once per distinct unit."""
    units = results["unit"].unique().to_list()
    return results.with_columns(_key=pl.col("unit").replace_strict(
        [u for u in units if u is not None], [unit_key(u) for u in units if u is not None], default=unit_key(None),
        return_dtype=pl.Utf8))


def _most_common[T](counts: Mapping[T, int]) -> T:
    """The most frequent key; ties go to the smallest spelling, so the choice never depends on row order."""
    return min(counts.items(), key=lambda kv: (-kv[1], repr(kv[0])))[0]


def _decimals(value: float) -> int:
    """Digits after the point as recorded (float noise is capped by ``max_decimals``)."""
    return len(f"{value:.12f}".rstrip("0").partition(".")[2]) if math.isfinite(value) else 0
