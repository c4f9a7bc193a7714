"""Keep the diagnosis out of everything the doctor can see, and prove it (pipelines.leakage).

Producers already scrub what they know is risky (note sections, radiology impressions), but a
structured title can name the diagnosis too: an earlier stay's "Hypertensive heart disease with
heart failure" gives away a heart-failure admission. So every unit, presentation and exam
result passes through :func:`scrub_column` before it is published, and the blocking audit checks
run :func:`audit` over the published tables.

Terms per case are ``pipelines.leakage.diagnosis_terms`` of the skeleton's diagnosis name,
acceptable names, primary ICD-10 code and that code's ICD-10-CM title, and the titles of its other
acceptable codes. Cases sharing a diagnosis
share a term list (``dx_key``), and each distinct (term list, text) pair is scrubbed once, so the
work grows with the distinct texts, not with the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines import icd
from pipelines.leakage import audit_frame, diagnosis_terms, has_content, scrub

HITS_SCHEMA = {"case_id": pl.Utf8, "column": pl.Utf8, "term": pl.Utf8, "snippet": pl.Utf8}


@dataclass(frozen=True)
class CaseTerms:
    cases: pl.DataFrame  # case_id, dx_key
    terms: dict[int, list[str]]  # dx_key -> diagnosis terms


def _titles(primary: str | None, acceptable: list[str] | None) -> list[str]:
    """The ICD-10-CM titles of the acceptable codes other than the primary (a GEM target set names
    the same condition several ways, and any of them gives it away)."""
    return [t for c in acceptable or [] if c and c != primary and (t := icd.icd10cm_info(c).title)]


def case_terms(skeleton: pl.DataFrame) -> CaseTerms:
    """Diagnosis terms of every case of ``case_skeleton`` (or ``cases``)."""
    dx = ["diagnosis_name", "acceptable_names", "primary_icd10", "acceptable_icd10"]
    distinct = skeleton.select(dx).unique(maintain_order=True).with_row_index("dx_key")
    terms = {
        key: diagnosis_terms(name, [*(names or []), *_titles(code, codes)], code,
                             icd.icd10cm_info(code).title if code else None)
        for key, name, names, code, codes in distinct.iter_rows()
    }
    cases = skeleton.select("case_id", *dx).join(distinct, on=dx, how="left", nulls_equal=True)
    return CaseTerms(cases.select("case_id", pl.col("dx_key").cast(pl.Int64)), {int(k): v for k, v in terms.items()})


def scrub_pairs(pairs: pl.DataFrame, column: str, terms: CaseTerms) -> pl.DataFrame:
    """Scrub distinct (``dx_key``, ``column``) pairs; returns only those that mentioned the diagnosis,
    with ``scrubbed`` text, ``leak_terms`` and ``leak_left`` (false when nothing with content is left)."""
    hits = []
    for key, text in pairs.select("dx_key", column).drop_nulls().unique().iter_rows():
        cleaned, mentions = scrub(text, terms.terms.get(key, []))
        if mentions:
            hits.append((key, text, cleaned, [m.term for m in mentions], has_content(cleaned)))
    return pl.DataFrame(hits, schema={"dx_key": pl.Int64, column: pl.Utf8, "scrubbed": pl.Utf8,
                                      "leak_terms": pl.List(pl.Utf8), "leak_left": pl.Boolean}, orient="row")


def scrub_column(df: pl.DataFrame, column: str, terms: CaseTerms) -> pl.DataFrame:
    """``df`` with ``column`` scrubbed of each row's diagnosis terms, plus ``leak_terms`` (terms
    found, null when clean) and ``leak_left`` (false when nothing with content is left)."""
    keyed = df.join(terms.cases, on="case_id", how="left")
    lookup = scrub_pairs(keyed, column, terms)
    out = keyed.join(lookup, on=["dx_key", column], how="left", maintain_order="left")
    return out.with_columns(
        pl.when(pl.col("leak_terms").is_not_null()).then(pl.col("scrubbed")).otherwise(pl.col(column)).alias(column),
        pl.col("leak_left").fill_null(True),
    ).drop("dx_key", "scrubbed")


def audit(df: pl.DataFrame, columns: list[str], terms: CaseTerms) -> pl.DataFrame:
    """One row per mention of a case's diagnosis terms in ``columns`` (case_id, column, term, snippet).

    ``pipelines.leakage.audit_frame`` runs once per distinct (term list, text) pair; hits are then
    spread back to every case with that pair.
    """
    keyed = df.select("case_id", *columns).join(terms.cases, on="case_id", how="left")
    found = []
    for column in columns:
        distinct = keyed.select("dx_key", pl.col(column).alias("text")).drop_nulls().unique().with_row_index("pair")
        pairs = distinct.select(pl.col("pair").cast(pl.Utf8).alias("case_id"), pl.col("text").alias(column))
        by_pair = {str(i): terms.terms.get(k, []) for i, k in distinct.select("pair", "dx_key").iter_rows()}
        hits = audit_frame(pairs, [column], by_pair)
        if hits.height:
            hits = hits.join(distinct.select(pl.col("pair").cast(pl.Utf8).alias("case_id"), "dx_key", "text"),
                             on="case_id").drop("case_id")
            found.append(keyed.select("case_id", "dx_key", pl.col(column).alias("text"))
                         .join(hits, on=["dx_key", "text"]).select("case_id", "column", "term", "snippet"))
    return pl.concat(found) if found else pl.DataFrame(schema=HITS_SCHEMA)


def hits_per_source(hits: pl.DataFrame, sources: pl.DataFrame) -> dict[str, int]:
    """Number of hits per source, every source of ``sources`` (case_id, source) listed."""
    counts = {s: 0 for s in sorted(sources["source"].unique().to_list())}
    for source, n in hits.join(sources, on="case_id", how="left").group_by("source").len().iter_rows():
        counts[source or "unknown"] = n
    return counts
