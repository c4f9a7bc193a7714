"""The offline judge's words: text folded, synonyms replaced by their concept, filler left out.

:meth:`Words.of` turns a text into the set of words it asserts: lower case without accents, every
phrase of ``data/synonyms.yaml`` replaced by its concept (``shortness of breath`` -> ``dyspnea``,
``ceftriaxone`` -> ``antibiotic``), a plural ``s`` dropped, scikit-learn's English stop words and
the judge's ignored words (``data/judge.yaml``: qualifiers such as ``elevated``, units) left out.
Numbers are kept (``5400.0`` and ``5400`` are the same word), so an invented value is a word the
trace never showed; :meth:`Words.key` leaves them out for a key point, whose value the output
need not repeat. :func:`share` is the fraction of one set found in another.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from pipelines.accents import strip_accents
from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.evaluation.params import PACKAGE, match_params

SYNONYMS = "data/synonyms.yaml"
_NOT_WORD = re.compile(r"(?<!\d)\.|\.(?!\d)|[^a-z0-9.]+")  # a dot stays only inside a number
_TOKEN = re.compile(r"[a-z][a-z0-9_]*|\d+(?:\.\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def fold(text: str | None) -> str:
    """Lower case, accents stripped, punctuation (but a decimal point) folded to single spaces."""
    plain = strip_accents((text or "").replace("ß", "ss")).lower()
    return " ".join(_NOT_WORD.sub(" ", plain).split())


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _number(word: str) -> str:
    return f"{float(word):g}"


class Words:
    """Text to words under one synonym table (a concept -> its phrases; ``treatments``: the concepts
that are drug classes) and one set of ignored words."""

    def __init__(self, findings: Mapping[str, Iterable[str]], treatments: Mapping[str, Iterable[str]],
                 ignored: Iterable[str]):
        concept_of: dict[str, str] = {}
        for concept, phrases in (*findings.items(), *treatments.items()):
            for phrase in phrases:
                key = fold(str(phrase))
                if concept_of.setdefault(key, concept) != concept:
                    raise DataFileError(SYNONYMS, f"concept {concept!r}", "",
                                        f"the phrase {phrase!r} also belongs to {concept_of[key]!r}")
        for key, concept in list(concept_of.items()):  # a plural last word means the same
            if key[-1].isalpha():
                for plural in (f"{key}s", f"{key}es"):
                    concept_of.setdefault(plural, concept)
        self.concepts = frozenset((*findings, *treatments))
        self.treatments = frozenset(treatments)
        self._concept_of = concept_of
        # longest phrases first, so "congestive heart failure" wins over "heart failure"
        alternatives = sorted(concept_of, key=lambda p: (-len(p), p))
        self._phrases = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in alternatives) + r")\b") \
            if alternatives else None
        self._ignored = frozenset(ENGLISH_STOP_WORDS) | {fold(w) for w in ignored}
        self.of = lru_cache(maxsize=65536)(self._of)  # replies and key points repeat across episodes

    def _concept(self, match: re.Match[str]) -> str:
        return f" {self._concept_of[match.group(0)]} "

    def _of(self, text: str | None) -> frozenset[str]:
        folded = fold(text)
        if self._phrases is not None:
            folded = self._phrases.sub(self._concept, folded)
        out = set()
        for token in _TOKEN.findall(folded):
            if _NUMBER.fullmatch(token):
                out.add(_number(token))
            elif token in self.concepts:
                out.add(token)
            elif len(token) > 1 and token not in self._ignored:
                word = _singular(token)
                if word not in self._ignored:
                    out.add(word)
        return frozenset(out)

    def key(self, text: str | None) -> frozenset[str]:
        """The words of a key point: numbers left out (the value need not be repeated)."""
        return frozenset(w for w in self.of(text) if not _NUMBER.fullmatch(w))


def share(part: frozenset[str], whole: frozenset[str]) -> float:
    """The fraction of ``part`` found in ``whole`` (1.0 for an empty ``part``)."""
    return len(part & whole) / len(part) if part else 1.0


@cache
def judge_words() -> Words:
    """The offline judge's words (data/synonyms.yaml, data/judge.yaml)."""
    synonyms = yaml_mapping(PACKAGE, SYNONYMS, ("findings", "treatments"))
    return Words(synonyms["findings"], synonyms["treatments"], match_params().ignored)
