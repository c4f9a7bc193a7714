"""Triage chief complaints (MIMIC-IV-ED ``triage.chiefcomplaint``) in the words a patient would use.

Triage writes clinician shorthand as a comma-separated list ("Abd pain, n/v/d", "S/P FALL",
"LETHARGY/SOB", "HEAD BLEED"). :func:`expand` splits it into items and says each one with
``ed_complaints.csv``: an item listed whole first; else the item is split at a "/" that is not part
of a listed word (N/V, S/P keep theirs) and said word by word (listed words expanded, the others
lower-cased). Each item keeps its ``clinical`` expansion, so the leakage guard can see that "HEAD
BLEED" is an intracranial hemorrhage, and the ICD-10 prefixes of the diagnoses it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pipelines.datafiles import csv_records

FILE = "ed_complaints.csv"
KINDS = ("complaint", "condition", "referral", "none")
_SPACES = re.compile(r"\s+")
_ICD10_PREFIX = r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?"


@dataclass(frozen=True)
class Entry:
    lay: str
    clinical: str
    kind: str
    icd10: tuple[str, ...]


@dataclass(frozen=True)
class Complaint:
    raw: str  # the item as triage wrote it
    lay: str  # how the patient says it ("" for kind none)
    clinical: str  # the expansion in clinical words
    kind: str  # complaint | condition | referral | none
    icd10: tuple[str, ...]  # ICD-10-CM prefixes (undotted) of the diagnoses it names


def _key(text: str) -> str:
    return _SPACES.sub(" ", text.strip()).upper()


@cache
def vocabulary() -> tuple[dict[str, Entry], dict[str, Entry]]:
    """(items, words) of ed_complaints.csv, keyed upper-case."""
    tables: dict[str, dict[str, Entry]] = {"item": {}, "word": {}}
    columns = ("shorthand", "match", "lay", "clinical", "kind", "icd10")
    for record in csv_records(__package__, FILE, columns, key="shorthand"):
        key, table = _key(record.text("shorthand")), tables[record.choice("match", ("item", "word"))]
        if key in table:
            raise record.error("shorthand", f"{key!r} is listed twice")
        kind = record.choice("kind", KINDS)
        lay = "" if kind == "none" else record.text("lay")
        codes = record.items("icd10")
        for code in codes:
            if not re.fullmatch(_ICD10_PREFIX, code):
                raise record.error("icd10", f"{code!r} is not a dotted ICD-10-CM code prefix (I61, E10.1)")
        table[key] = Entry(lay, record.get("clinical", lay), kind, tuple(c.replace(".", "") for c in codes))
    return tables["item"], tables["word"]


def _pieces(item: str, words: dict[str, Entry]) -> list[str]:
    """``item`` split at each "/" inside a token that is not a listed word ("LETHARGY/SOB")."""
    pieces, current = [], []
    for token in item.split(" "):
        if "/" in token and _key(token) not in words:
            first, *rest = token.split("/")
            current.append(first)
            pieces.append(" ".join(current))
            current = [rest[-1]]
            pieces += rest[:-1]
        else:
            current.append(token)
    pieces.append(" ".join(current))
    return [p.strip() for p in pieces if p.strip()]


def _said(item: str, items: dict[str, Entry], words: dict[str, Entry]) -> Complaint:
    """One item (no comma, no splitting "/") said by its entry or word by word."""
    if (entry := items.get(_key(item))) is not None:
        return Complaint(item, entry.lay, entry.clinical, entry.kind, entry.icd10)
    lay, clinical, kind, codes = [], [], "complaint", []
    for token in item.split(" "):
        entry = words.get(_key(token))
        lay.append(entry.lay if entry else token.lower())
        clinical.append(entry.clinical if entry else token.lower())
        if entry and entry.kind == "condition":
            kind = "condition"
        codes += entry.icd10 if entry else ()
    return Complaint(item, " ".join(lay), " ".join(clinical), kind, tuple(dict.fromkeys(codes)))


def expand(chiefcomplaint: str | None) -> list[Complaint]:
    """The items of one triage complaint, in order (see the module docstring)."""
    items, words = vocabulary()
    found = []
    for part in (chiefcomplaint or "").split(","):
        part = _SPACES.sub(" ", part.strip())
        if not part:
            continue
        pieces = [part] if _key(part) in items else _pieces(part, words)
        found += [_said(piece, items, words) for piece in pieces]
    return found

