"""A leakage detector independent of the scrubber, for the blocking audit of patient-visible text.

The scrubber (:mod:`pipelines.leakage`) removes the terms it builds from a case's names, ICD-10 title
and ``leakage_synonyms.csv``; a check that reused those terms could never catch what they miss. This
detector builds its own names, straight from ICD-10-CM (``simple-icd-10-cm``), and matches them its
own way:

* **Index names** of the primary code: the description and inclusion terms (and "includes" notes)
  of every code from the code's 3-character category down to the code, and of every code below it.
  Sibling codes are other conditions (N39.3 stress incontinence is no name of N39.0 urinary tract
  infection) and are not used.
* **Forms** of a name: as written less parentheses, brackets and "NOS"; its head before a comma,
  "with", "due to" ...; both without leading qualifiers ("Acute", "Other specified"); a bracketed
  abbreviation ("[HFrEF]"). A form must identify: one word of five letters or more, or several
  words, not all generic (``leakage_audit.yaml``); symptoms listed as ``reportable`` are not forms.
* **Abbreviations** per code prefix from ``leakage_audit.yaml`` (CHF, NSTEMI, T2DM ...).

Forms match whole words of the text lower-cased with every non-alphanumeric run folded to one space
(an ``s``/``es`` plural allowed); abbreviations match case-sensitively on word boundaries of the raw
text. Results are cached per primary code, so a check over millions of units compiles each code once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import polars as pl

from pipelines.accents import strip_accents
from pipelines.datafiles import yaml_record
from pipelines.icd import icd10cm

_DATA = yaml_record(__package__, "leakage_audit.yaml", (
    "abbreviations", "reportable", "generic_words", "stop_words", "qualifiers", "cut_before"), text=True)
_ABBREVIATIONS = _DATA.text_groups("abbreviations")
_REPORTABLE = _DATA.text_groups("reportable")
_GENERIC = frozenset(_DATA.texts("generic_words", distinct=True))
_STOP = frozenset(_DATA.texts("stop_words", distinct=True))
_QUALIFIERS = re.compile(r"^(?:(?:" + "|".join(
    re.escape(q) for q in sorted(_DATA.texts("qualifiers", distinct=True), key=len, reverse=True)) + r")\s+)+")
_CUT = re.compile("|".join(re.escape(c) for c in _DATA.texts("cut_before", distinct=True)), re.IGNORECASE)
_BRACKETED = re.compile(r"\[([A-Za-z0-9-]{3,8})\]")  # not "[Na]": a symbol, no name
_ASIDES = re.compile(r"\s*(?:\([^)]*\)|\[[^\]]*\])")
_NOS = re.compile(r"\bNOS\b")
_OTHER = re.compile(r"[^a-z0-9]+")

HITS_SCHEMA = {"case_id": pl.Utf8, "column": pl.Utf8, "name": pl.Utf8, "snippet": pl.Utf8}


def fold(text: str | None) -> str:
    """Lower case, accents stripped, every run of other characters one space, padded by spaces."""
    return " " + " ".join(_OTHER.sub(" ", strip_accents(text or "").lower()).split()) + " "


@dataclass(frozen=True)
class Detector:
    """What reveals one primary code: index-name forms (folded) and abbreviations (as written)."""

    code: str
    forms: tuple[str, ...]
    abbreviations: tuple[str, ...]

    def find(self, text: str | None) -> list[str]:
        """The names (forms or abbreviations) that ``text`` mentions, in the order found."""
        if not text:
            return []
        found = []
        if self.forms and (m := _forms_regex(self.forms).search(fold(text))):
            found.append(m.group(1))
        if self.abbreviations and (m := _abbreviations_regex(self.abbreviations).search(text)):
            found.append(m.group(1))
        return found


@lru_cache(maxsize=4096)
def _forms_regex(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r" (" + "|".join(re.escape(f) for f in forms) + r")(?:e?s)? ")


@lru_cache(maxsize=4096)
def _abbreviations_regex(abbreviations: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(re.escape(a) for a in abbreviations) + r")(?![A-Za-z0-9])")


def _known(code: str) -> str | None:
    """``code`` (dotted or not) or its nearest ancestor in the ICD-10-CM release, else None."""
    code, cm = code.strip().upper().replace(".", ""), icd10cm()
    while len(code) >= 3:
        if cm.is_valid_item(code):
            return code
        code = code[:-1]
    return None


def index_names(code: str) -> tuple[str, ...]:
    """Descriptions, inclusion terms and "includes" notes from the code's category down to it and
    below it (see the module docstring); empty for a code ICD-10-CM does not know."""
    known, cm = _known(code), icd10cm()
    if known is None:
        return ()
    path = [a for a in cm.get_ancestors(known) if cm.is_category_or_subcategory(a)]  # not block or chapter
    names: list[str] = []
    for item in [*path, known, *cm.get_descendants(known)]:
        names += [cm.get_description(item), *cm.get_inclusion_term(item), *cm.get_includes(item)]
    return tuple(dict.fromkeys(names))


def _identifying(form: str) -> bool:
    words = [w for w in form.split() if w not in _STOP]
    if not words or all(w in _GENERIC or w.isdigit() for w in words):
        return False
    return len(words) > 1 or len(words[0]) >= 5


def name_forms(name: str) -> tuple[list[str], list[str]]:
    """(folded forms, bracketed abbreviations) of one index name."""
    abbreviations = _BRACKETED.findall(name)
    plain = " ".join(_NOS.sub(" ", _ASIDES.sub(" ", name)).split())
    cut = _CUT.search(plain)
    forms = []
    for base in (plain, plain[: cut.start()] if cut else plain):
        folded = fold(base).strip()
        forms += [folded, _QUALIFIERS.sub("", folded)]
    return [f for f in dict.fromkeys(forms) if _identifying(f)], abbreviations


@lru_cache(maxsize=65536)
def detector(code: str) -> Detector:
    """The detector of a primary ICD-10-CM code (dotted or not)."""
    undotted = code.strip().upper().replace(".", "")
    reportable = {fold(r).strip() for prefix, words in _REPORTABLE.items() if undotted.startswith(prefix)
                  for r in words}
    forms: list[str] = []
    abbreviations = [a for prefix, words in _ABBREVIATIONS.items() if undotted.startswith(prefix) for a in words]
    for name in index_names(undotted):
        more, bracketed = name_forms(name)
        forms += more
        abbreviations += bracketed
    forms = sorted({f for f in forms if f not in reportable}, key=lambda f: (-len(f), f))
    return Detector(undotted, tuple(forms), tuple(dict.fromkeys(abbreviations)))


def snippet(text: str, name: str, width: int = 40) -> str:
    at = fold(text).find(f" {name}")
    at = text.find(name) if at < 0 else at
    return " ".join(text[max(0, at - width): at + len(name) + width].split())


def audit(texts: pl.DataFrame, columns: list[str], codes: pl.DataFrame) -> pl.DataFrame:
    """One row per (case, column, text) whose text names the case's primary code (case_id, column,
    name, snippet). ``texts``: case_id and the text columns; ``codes``: case_id, primary_icd10.
    Each distinct (code, text) pair is checked once."""
    keyed = texts.join(codes.select("case_id", "primary_icd10").drop_nulls(), on="case_id", how="inner")
    hits = []
    for column in columns:
        pairs = keyed.select("primary_icd10", pl.col(column).alias("text")).drop_nulls().unique()
        found = []
        for code, text in pairs.iter_rows():
            names = detector(code).find(text)
            if names:
                found.append((code, text, names[0], snippet(text, names[0])))
        if found:
            frame = pl.DataFrame(found, schema={"primary_icd10": pl.Utf8, "text": pl.Utf8, "name": pl.Utf8,
                                                "snippet": pl.Utf8}, orient="row")
            hits.append(keyed.select("case_id", "primary_icd10", pl.col(column).alias("text"))
                        .join(frame, on=["primary_icd10", "text"])
                        .select("case_id", pl.lit(column).alias("column"), "name", "snippet"))
    return pl.concat(hits) if hits else pl.DataFrame(schema=HITS_SCHEMA)
