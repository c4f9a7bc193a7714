"""Text normalisation for the MedQA stages: one canonical form for answer names and titles.

Exam questions mix typographic quotes and dashes, accents (Barré, Ménière), possessive
eponyms (Cushing's), British spellings and abbreviations in parentheses.  Answer-to-ICD
lookups compare :func:`norm` forms; finding a name inside visible text is
``pipelines.leakage.find_mentions``'s job.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from pipelines.accents import strip_accents
from pipelines.datafiles import csv_records, unique

_PUNCT_MAP = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
        "\u00a0": " ", "\u2009": " ", "\u202f": " ",
        "\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta", "\u03ba": "kappa",
    }
)

SPELLINGS_FILE = "british_spellings.csv"


@cache
def _spellings() -> tuple[re.Pattern[str], dict[str, str]]:
    """British -> American stems (ICD-10-CM and most USMLE items spell the American way)."""
    records = csv_records(__package__, SPELLINGS_FILE, ("british", "american"))
    unique(records, "british")
    stems = {r.text("british"): r.text("american") for r in records}
    return re.compile("|".join(re.escape(b) for b in stems)), stems


def ascii_fold(text: str) -> str:
    """Typographic quotes/dashes to ASCII, Greek letters spelled out, accents dropped."""
    if text.isascii():  # most titles and questions: nothing to map or decompose
        return text
    return strip_accents(text, _PUNCT_MAP)


_POSSESSIVE = re.compile(r"(\w)'s\b")
_PLURAL_POSSESSIVE = re.compile(r"(\w)s'(\s|$)")
_NOT_WORD = re.compile(r"[^a-z0-9+]+")


@lru_cache(maxsize=200_000)
def norm(text: str) -> str:
    """Lower-case, ASCII, possessives and punctuation removed, American spelling.

    ``"Guillain–Barré syndrome"`` -> ``"guillain barre syndrome"``,
    ``"Zenker's diverticulum"`` -> ``"zenker diverticulum"``.
    """
    t = ascii_fold(text).lower()
    if "'" in t:  # most names have no possessive
        t = _PLURAL_POSSESSIVE.sub(r"\1s\2", _POSSESSIVE.sub(r"\1", t))
    spelling, american = _spellings()
    t = spelling.sub(lambda m: american[m.group(0)], t)
    return " ".join(_NOT_WORD.sub(" ", t).split())


def is_abbreviation(term: str) -> bool:
    stripped = term.strip()
    letters = [c for c in stripped if c.isalpha()]
    return 2 <= len(stripped) <= 8 and bool(letters) and sum(c.isupper() for c in letters) >= max(2, len(letters) - 1)
