"""Which Synthea conditions fit a case's sex and age (rules in ``condition_rules.csv``).

A pool patient is drawn for the case's sex and age band, but Synthea's history can still hold what
no patient of that sex or age has now: a "Neoplasm of prostate" coded D49.59 (no sex-specific code),
a "Normal pregnancy" for a woman of 70, "Childhood asthma" for an adult. Every rule of the file
whose pattern matches a condition (its ICD-10-CM code, the code's title, or its name) bounds the
sex and the case age it may be shown at; :func:`fitting` keeps the conditions within every bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipelines.datafiles import Record, csv_records
from pipelines.icd import icd10cm

RULES_FILE = "condition_rules.csv"
_CATEGORY_RANGE = re.compile(r"([A-Z][0-9][0-9A-Z])-([A-Z][0-9][0-9A-Z])")
_PREFIX = re.compile(r"[A-Z][0-9A-Z]{0,6}")


@dataclass(frozen=True)
class Rule:
    match: str  # codes | title | name
    codes: tuple[str, ...]  # prefixes and "A00-B99" category ranges (match == codes)
    pattern: re.Pattern[str] | None  # match == title | name
    sex: str | None
    min_age: int | None
    max_age: int | None

    def applies(self, code: str | None, title: str | None, name: str | None) -> bool:
        if self.match == "codes":
            undotted = (code or "").replace(".", "")
            return bool(undotted) and any(_in(undotted, c) for c in self.codes)
        text = title if self.match == "title" else name
        return bool(text) and bool(self.pattern.search(text))


def _in(code: str, spec: str) -> bool:
    if m := _CATEGORY_RANGE.fullmatch(spec):
        return m.group(1) <= code[:3] <= m.group(2)
    return code.startswith(spec)


def _rule(record: Record) -> Rule:
    match = record.choice("match", ("codes", "title", "name"))
    codes: tuple[str, ...] = ()
    pattern = None
    if match == "codes":
        codes = record.items("pattern", " ")
        for spec in codes:
            if not (_CATEGORY_RANGE.fullmatch(spec) or _PREFIX.fullmatch(spec)):
                raise record.error("pattern", f"{spec!r} is neither a code prefix nor a category range")
    else:
        pattern = record.regex("pattern", re.IGNORECASE)
    sex = record.choice("sex", ("F", "M"), None)
    low, high = record.integer("min_age", None, 0), record.integer("max_age", None, 0)
    if sex is None and low is None and high is None:
        raise record.error("", "a rule needs a sex or an age bound")
    return Rule(match, codes, pattern, sex, low, high)


@cache
def rules() -> tuple[Rule, ...]:
    return tuple(_rule(r) for r in csv_records(__package__, RULES_FILE,
                                               ("match", "pattern", "sex", "min_age", "max_age", "why")))


def _title(code: str | None) -> str | None:
    undotted, cm = (code or "").replace(".", ""), icd10cm()
    return cm.get_description(undotted) if undotted and cm.is_valid_item(undotted) else None


def bounds(code: str | None, name: str | None) -> tuple[str | None, int | None, int | None, bool]:
    """(sex, min_age, max_age, possible) a condition is bound to; not possible when rules disagree on sex."""
    title = _title(code)
    sexes = {r.sex for r in rules() if r.sex and r.applies(code, title, name)}
    lows = [r.min_age for r in rules() if r.min_age is not None and r.applies(code, title, name)]
    highs = [r.max_age for r in rules() if r.max_age is not None and r.applies(code, title, name)]
    return (next(iter(sexes)) if len(sexes) == 1 else None, max(lows, default=None), min(highs, default=None),
            len(sexes) <= 1)


BOUNDS_SCHEMA = {"name": pl.Utf8, "icd10cm": pl.Utf8, "fit_sex": pl.Utf8, "fit_min_age": pl.Int32,
                 "fit_max_age": pl.Int32, "fit_possible": pl.Boolean}


def condition_bounds(conditions: pl.DataFrame) -> pl.DataFrame:
    """The bounds of every distinct (name, icd10cm) of ``conditions`` (columns of BOUNDS_SCHEMA)."""
    distinct = conditions.select("name", "icd10cm").unique(maintain_order=True)
    rows = [(name, code, *bounds(code, name)) for name, code in distinct.iter_rows()]
    return pl.DataFrame(rows, schema=BOUNDS_SCHEMA, orient="row")


def fits(sex: pl.Expr, age: pl.Expr) -> pl.Expr:
    """True where a row with :func:`condition_bounds` columns fits a case of ``sex`` and ``age``
    (an unknown sex or age fits no bound on it)."""
    return (
        pl.col("fit_possible")
        & (pl.col("fit_sex").is_null() | sex.eq_missing(pl.col("fit_sex")))
        & (pl.col("fit_min_age").is_null() | (age >= pl.col("fit_min_age")).fill_null(False))
        & (pl.col("fit_max_age").is_null() | (age <= pl.col("fit_max_age")).fill_null(False))
    )
