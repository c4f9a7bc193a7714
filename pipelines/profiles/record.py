"""Profiles agree with the record: the source's demographics win, and conditions the case denies go.

* **Demographics.** MIMIC-IV ``hosp/admissions`` records each admission's ``language``,
  ``marital_status`` and ``race``; a profile shows those (mapped to the pool's vocabulary by
  ``source_demographics.yaml``) instead of the Synthea person's. Where the record does not say
  ("?", UNKNOWN, PATIENT DECLINED TO ANSWER, empty, or a value the file does not list) the Synthea
  value stays: it contradicts nothing. A record race that is an ethnicity ("HISPANIC/LATINO -
  CUBAN") sets the ethnicity only.
* **Denied conditions.** A profile condition is dropped when a negated information unit of the case
  names it ("no history of diabetes" against Synthea's "Diabetes mellitus type 2"): names are
  compared with :func:`pipelines.leakage.find_mentions` over the condition's name, its ICD-10-CM
  title and their synonym groups (:func:`pipelines.leakage.diagnosis_terms`).
"""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from pipelines import icd
from pipelines.datafiles import yaml_record
from pipelines.leakage import diagnosis_terms, mention_starts, mentions_any
from pipelines.warehouse import Warehouse

DEMOGRAPHICS = ("language", "marital_status", "race", "ethnicity")
_FILE = yaml_record(__package__, "source_demographics.yaml", ("unknown", "language", "marital_status", "race"),
                    text=True)
_UNKNOWN = frozenset(v.upper() for v in _FILE.texts("unknown", distinct=True))
_LANGUAGE = {k.upper(): v for k, v in _FILE.text_mapping("language").items()}
_MARITAL = {k.upper(): v for k, v in _FILE.text_mapping("marital_status").items()}
_RACE = {k.upper(): r for k, r in _FILE.records("race", ("race", "ethnicity")).items()}
_RACE_PART = {part: {k: r.text(part, None) for k, r in _RACE.items()} for part in ("race", "ethnicity")}

SOURCE_SCHEMA = {"case_id": pl.Utf8, **{c: pl.Utf8 for c in DEMOGRAPHICS}}


def _mapped(column: str, mapping: dict[str, str | None]) -> pl.Expr:
    value = pl.col(column).str.strip_chars().str.to_uppercase()
    return (pl.when(value.is_in(list(_UNKNOWN)).not_())
            .then(value.replace_strict(mapping, default=None, return_dtype=pl.Utf8)))


def source_demographics(admissions: pl.DataFrame) -> pl.DataFrame:
    """Per case, the record's demographics in profile vocabulary (null where it does not say).

    ``admissions``: case_id with the MIMIC-IV columns language, marital_status, race.
    """
    return admissions.select(
        "case_id",
        language=_mapped("language", _LANGUAGE),
        marital_status=_mapped("marital_status", _MARITAL),
        race=_mapped("race", _RACE_PART["race"]),
        ethnicity=_mapped("race", _RACE_PART["ethnicity"]),
    ).unique("case_id", keep="first", maintain_order=True)


def with_source_demographics(profiles: pl.DataFrame, source: pl.DataFrame | None) -> pl.DataFrame:
    """``profiles`` with every demographic the record gives replacing the generated one."""
    if source is None or source.is_empty():
        return profiles
    joined = profiles.join(source.select("case_id", *(pl.col(c).alias(f"_src_{c}") for c in DEMOGRAPHICS)),
                           on="case_id", how="left", maintain_order="left")
    return joined.with_columns(pl.coalesce(f"_src_{c}", c).alias(c) for c in DEMOGRAPHICS).drop(
        f"_src_{c}" for c in DEMOGRAPHICS)


@lru_cache(maxsize=65536)
def _condition_terms(name: str, code: str | None) -> tuple[str, ...]:
    title = icd.icd10cm_info(code).title if code else None
    return tuple(diagnosis_terms(name, [], code, title))


DENIED_SCHEMA = {"case_id": pl.Utf8, "condition": pl.Utf8, "unit": pl.Utf8}
PAIR_BATCH_PROFILES = 4_000  # profiles whose (condition, denied unit) pairs are made at once (denied_conditions)


def denied_conditions(profiles: pl.DataFrame, denied_units: pl.DataFrame | None) -> pl.DataFrame:
    """(case_id, condition, unit) for every profile condition a negated unit of its case names.

    ``profiles``: case_id, profile_conditions, profile_conditions_icd10; ``denied_units``: case_id,
    text of the case's negated information units. The pairs of a case's conditions and its units
    are made for :data:`PAIR_BATCH_PROFILES` profiles at a time (the profiles check's 35,313 at once
    held 1.4 GB at 32,000 generated admissions); every pair is a case's own, so batches change nothing.
    """
    if denied_units is None or denied_units.is_empty() or profiles.is_empty():
        return pl.DataFrame(schema=DENIED_SCHEMA)
    units = denied_units.select("case_id", unit=pl.col("text"))
    found = [row for start in range(0, profiles.height, PAIR_BATCH_PROFILES)
             for row in _denied_in(profiles.slice(start, PAIR_BATCH_PROFILES), units)]
    return pl.DataFrame(found, schema=DENIED_SCHEMA, orient="row").unique(maintain_order=True)


def _denied_in(profiles: pl.DataFrame, units: pl.DataFrame) -> list[tuple[str, str, str]]:
    aligned = pl.col("profile_conditions").list.len() == pl.col("profile_conditions_icd10").list.len()
    pairs = (
        profiles.filter(aligned)  # names and codes out of step are a violation of their own
        .select("case_id", condition=pl.col("profile_conditions"), code=pl.col("profile_conditions_icd10"))
        .explode("condition", "code").drop_nulls("condition")
        .join(units, on="case_id", maintain_order="left")
    )
    return [(case, condition, unit) for case, condition, code, unit in _may_name(pairs).iter_rows()
            if mentions_any(unit, list(_condition_terms(condition, code)))]


def _may_name(pairs: pl.DataFrame) -> pl.DataFrame:
    """The (case_id, condition, code, unit) pairs, in order, whose unit may name the condition: it
    holds a start of one of the condition's terms (:func:`pipelines.leakage.mention_starts`), or is
    not ASCII, or the terms have no such screen. A case holds a few conditions and denied units, so
    the cohort's pairs are many and most name nothing: which starts each distinct unit holds is found
    at once (Aho-Corasick over every condition's starts), not pair by pair."""
    screen = [(condition, code, start) for condition, code in pairs.select("condition", "code").unique().iter_rows()
              for start in (mention_starts(_condition_terms(condition, code)) or (None,))]
    starts = pl.DataFrame(screen, schema={"condition": pl.Utf8, "code": pl.Utf8, "start": pl.Utf8}, orient="row")
    patterns = starts["start"].drop_nulls().unique().sort().to_list()
    units = pairs.select("unit").unique()
    ascii_units = units.filter(~pl.col("unit").str.contains(r"[^\x00-\x7f]"))
    held = ascii_units.head(0).with_columns(start=pl.lit(None, pl.Utf8)) if not patterns else (
        ascii_units.with_columns(start=pl.col("unit").str.to_lowercase().str.extract_many(patterns, overlapping=True))
        .explode("start").drop_nulls("start").unique())
    indexed = pairs.with_row_index("_pair")
    named = indexed.join(held, on="unit").join(starts, on=["condition", "code", "start"], nulls_equal=True)["_pair"]
    unscreened = indexed.join(starts.filter(pl.col("start").is_null()), on=["condition", "code"],
                              nulls_equal=True)["_pair"]
    not_ascii = indexed.join(ascii_units, on="unit", how="anti")["_pair"]
    kept = pl.concat([named, unscreened, not_ascii]).unique().implode()
    return indexed.filter(pl.col("_pair").is_in(kept)).drop("_pair")


def without_denied_conditions(profiles: pl.DataFrame, denied_units: pl.DataFrame | None) -> pl.DataFrame:
    """``profiles`` without the conditions :func:`denied_conditions` finds (names and codes stay aligned)."""
    denied = denied_conditions(profiles, denied_units)
    if denied.is_empty():
        return profiles
    drop = denied.select("case_id", "condition").unique().with_columns(_denied=pl.lit(True))
    kept = (
        profiles.select("case_id", condition=pl.col("profile_conditions"), code=pl.col("profile_conditions_icd10"))
        .with_row_index("_at").explode("condition", "code")
        .join(drop, on=["case_id", "condition"], how="left", maintain_order="left")
        .filter(pl.col("_denied").is_null() & pl.col("condition").is_not_null())
        .group_by("case_id", maintain_order=True)
        .agg(pl.col("condition").alias("_conditions"), pl.col("code").alias("_codes"))
    )
    empty = pl.lit([], dtype=pl.List(pl.Utf8))
    return (profiles.join(kept, on="case_id", how="left", maintain_order="left")
            .with_columns(profile_conditions=pl.col("_conditions").fill_null(empty),
                          profile_conditions_icd10=pl.col("_codes").fill_null(empty))
            .drop("_conditions", "_codes"))


def case_record(warehouse: Warehouse) -> tuple[pl.DataFrame | None, pl.DataFrame | None]:
    """(source demographics, denied units) of the built cases: MIMIC-IV admissions through
    ``case_provenance`` (None without MIMIC-IV) and the negated ``information_units``."""
    source = None
    if warehouse.exists("mimic_admissions"):
        keys = warehouse.scan("case_provenance").filter(pl.col("source") == "mimic_iv").select("case_id", "hadm_id")
        admissions = warehouse.scan("mimic_admissions").select("hadm_id", "language", "marital_status", "race")
        source = source_demographics(keys.join(admissions, on="hadm_id").drop("hadm_id").collect())
    denied = (warehouse.scan("information_units").filter(pl.col("negated")).select("case_id", "text").collect()
              if warehouse.exists("information_units") else None)
    return source, denied
