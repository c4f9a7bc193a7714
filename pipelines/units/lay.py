"""History units phrased as a patient says them, not as the ICD title reads.

``lay_terms.csv`` maps ICD-10-CM codes (categories, blocks, Z-code subcategories) to the patient's
sentence ("I have type 2 diabetes" for E11, not "Diabetes mellitus without mention of
complication, type II or unspecified type, not stated as uncontrolled"). A code in no row gets
the generic rendering of ``lay_phrasing.yaml`` from its ICD-10-CM title: qualifiers stripped
("unspecified", "without complications", "(primary)", bracketed synonyms), then a rewrite of
formulaic titles ("Personal history of X" -> "I had X before"), else "I was told I have X" for a
condition known on arrival or "I was treated for X before" for an episode of an earlier stay.

The text still passes the leakage guard like every unit (pipelines/units/publish.py); the
primary diagnosis's category never reaches here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from pipelines.datafiles import csv_records, yaml_record
from pipelines.units.code_ranges import CodeRanges


@dataclass(frozen=True)
class Phrasing:
    strip: tuple[re.Pattern[str], ...]
    rewrite: tuple[tuple[re.Pattern[str], str], ...]
    known: str
    episodic: str


def _phrasing() -> Phrasing:
    record = yaml_record(__package__, "lay_phrasing.yaml", ("strip", "rewrite", "known", "episodic"), text=True)
    strip = tuple(record.regex("strip", re.IGNORECASE, source=s) for s in record.texts("strip"))
    rewrite = tuple((record.regex("rewrite", re.IGNORECASE, source=p), t)
                    for p, t in record.text_mapping("rewrite").items())
    for pattern, text in rewrite:
        if text.count("{}") != pattern.groups:
            raise record.error("rewrite", f"{text!r} has {text.count('{}')} {{}} for the {pattern.groups} "
                                          f"group(s) of {pattern.pattern!r}")
    known, episodic = record.text("known"), record.text("episodic")
    for field, text in (("known", known), ("episodic", episodic)):
        if text.count("{}") != 1:
            raise record.error(field, f"{text!r} needs exactly one {{}} for the condition")
    return Phrasing(strip, rewrite, known, episodic)


LAY: CodeRanges[str] = CodeRanges.of(csv_records(__package__, "lay_terms.csv", ("first", "last", "text")),
                                     lambda r: r.text("text"))
PHRASING = _phrasing()


def _lower_first(text: str) -> str:
    # Abbreviations ("COVID-19", "HIV") and eponyms ("Barrett's") keep their capital.
    first = text.split(" ", 1)[0]
    keep = first.isupper() or any(c.isdigit() for c in first) or first.endswith("'s")
    return text if keep else text[:1].lower() + text[1:]


def simplify(title: str) -> str:
    """The CM title without its qualifiers (lay_phrasing.yaml ``strip``), in lower case."""
    text = title
    for pattern in PHRASING.strip:
        text = pattern.sub("", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;")
    return _lower_first(re.sub(r"\s+,", ",", text)) if text else _lower_first(title.strip())


def generic(title: str, *, known: bool) -> str:
    """The generic rendering of a CM title (see the module docstring)."""
    text = simplify(title)
    for pattern, template in PHRASING.rewrite:
        if m := pattern.fullmatch(text):
            return template.format(*(g.strip() for g in m.groups()))
    return (PHRASING.known if known else PHRASING.episodic).format(text)


def render(code: str, title: str | None, *, known: bool) -> str | None:
    """The patient's sentence for a dotted ICD-10-CM code with its CM title; None when neither helps."""
    if (text := LAY.find(code)) is not None:
        return text
    return generic(title, known=known) if title and title.strip() else None


def with_lay_text(df: pl.DataFrame) -> pl.DataFrame:
    """Add ``lay_text`` to a frame with ``icd10_code``, ``icd10_title`` and ``known`` (bool), once per
    distinct triple."""
    keys = df.select("icd10_code", "icd10_title", "known").unique()
    texts = [render(c, t, known=bool(k)) if c else None for c, t, k in keys.iter_rows()]
    lookup = keys.with_columns(pl.Series("lay_text", texts, dtype=pl.Utf8))
    return df.join(lookup, on=["icd10_code", "icd10_title", "known"], how="left", nulls_equal=True,
                   maintain_order="left")
