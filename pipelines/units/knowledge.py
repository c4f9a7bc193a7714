"""Knowledge-based associations between units and primary diagnoses (``key_associations.csv``).

The fallback of the importance rule (pipelines.units.importance): a unit matches a row when its
concept or text is on the row's unit side (a coded condition, a drug, a symptom phrase: see the
file's header) and the case's primary ICD-10-CM code is in the row's diagnoses. Unit sides are
matched with vectorised expressions (per row) or per distinct concept, diagnoses per distinct
primary code, and each row reads only the units of its diagnoses' cases, so the work grows with
the rows of the file and the units, not with the units times the rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from pipelines.datafiles import Record, csv_records
from pipelines.units.code_ranges import in_ranges, parse_ranges

TERM_CATEGORIES = ("chief_complaint", "hpi", "ros")
KINDS = ("condition", "drug", "term")


@dataclass(frozen=True)
class Association:
    row: int  # line of the file
    kind: str
    codes: tuple[tuple[str, str], ...]  # condition: ICD-10-CM ranges of the unit's concept code
    pattern: str  # drug / term: regular expression on the concept / lower-cased text
    diagnoses: tuple[tuple[str, str], ...]
    why: str

    def holds_diagnosis(self, code: str | None) -> bool:
        return bool(code) and in_ranges(code, self.diagnoses)


def _association(record: Record) -> Association:
    kind = record.choice("kind", KINDS)
    codes, pattern = (), ""
    if kind == "condition":
        codes = parse_ranges(record, "match")
    else:
        items = record.items("match")
        if not items or any(not re.fullmatch(r"[a-z0-9][a-z0-9 '\-]*", i) for i in items):
            raise record.error("match", "expected lower-case names or phrases separated by |")
        words = "|".join(re.escape(i) for i in items)
        pattern = rf"^drug:(?:{words})" if kind == "drug" else rf"\b(?:{words})\b"
    return Association(record.line or 0, kind, codes, pattern, parse_ranges(record, "diagnoses"), record.text("why"))


ASSOCIATIONS: tuple[Association, ...] = tuple(
    _association(r) for r in csv_records(__package__, "key_associations.csv", ("kind", "match", "diagnoses", "why"))
)


def _unit_side(units: pl.DataFrame, a: Association) -> pl.DataFrame:
    if a.kind == "condition":
        concepts = units.filter(pl.col("concept_key").str.starts_with("icd10:")).select("concept_key").unique()
        hit = [k for k in concepts["concept_key"] if in_ranges(k[6:], a.codes)]
        return units.filter(pl.col("concept_key").is_in(hit))
    if a.kind == "drug":
        return units.filter(pl.col("concept_key").str.contains(a.pattern))
    return units.filter(pl.col("category").is_in(TERM_CATEGORIES) & ~pl.col("negated")
                        & pl.col("lowered").str.contains(a.pattern))


def matches(units: pl.DataFrame, cases: pl.DataFrame) -> pl.DataFrame:
    """``unit_id, association`` (file line), ``why`` of every unit (``case_id, unit_id, category,
    concept_key, text, negated``) that a row associates with its case's ``primary_icd10``
    (``cases``: case_id, primary_icd10); the first row of the file per unit."""
    keyed = units.select("case_id", "unit_id", "category", "concept_key", "negated",
                         lowered=pl.col("text").str.to_lowercase())
    # The units of each primary code's cases: a row is tried on its diagnoses' units only (a few
    # codes of the cohort's many), not on every unit.
    by_code = keyed.join(cases.select("case_id", "primary_icd10").drop_nulls(), on="case_id").partition_by(
        "primary_icd10", as_dict=True, include_key=False)
    found = []
    for a in ASSOCIATIONS:
        dx = [code for (code,) in by_code if a.holds_diagnosis(code)]
        if not dx:
            continue
        side = _unit_side(pl.concat([by_code[(code,)] for code in dx]), a)
        found.append(side.select("unit_id", pl.lit(a.row).alias("association"), pl.lit(a.why).alias("why")))
    schema = {"unit_id": pl.Utf8, "association": pl.Int32, "why": pl.Utf8}
    if not found:
        return pl.DataFrame(schema=schema)
    return pl.concat(found).cast(schema).sort("unit_id", "association").unique("unit_id", keep="first",
                                                                             maintain_order=True)
