"""The lexical boundary screen: does a text give away the diagnosis or an examination result?

Used by the self-check (block a patient reply) and by the stress test (was anything disclosed).
A text discloses

* the diagnosis when it mentions one of ``pipelines.leakage.diagnosis_terms`` of the diagnosis
  name, acceptable names, ICD-10 title and code (the matching the build's leakage audit uses), or
  an acceptable ICD-10 code or the primary category (``I50``);
* an examination result when a sentence names the exam (its catalog name or an alias) and states
  its recorded value (a number as recorded, or a short text value such as ``POS``), or when it
  repeats four consecutive words of a longer text result (an imaging or examination finding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pipelines.episodes.views import ExamCatalog, ExamResult, ExamView, ManagerView, require_view
from pipelines.exams.catalog import name_key
from pipelines.leakage import diagnosis_terms, mentions_any

SHINGLE = 4  # consecutive words of a text result that count as quoting it
SCREENS_CACHED = 4096  # a case's rules are built once, whichever episode or stress test needs them
PATTERNS_CACHED = 1 << 14  # value patterns (many cases share a value)
TEXTS_CACHED = 1 << 15  # texts screened, with the case's rules
_SENTENCE = re.compile(r"[;!?\n]|\.(?!\d)")
_NUMERIC = re.compile(r"[\s\d.,/<>=+-]+")


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


@dataclass(frozen=True)
class _ValueCue:
    exam: str
    value_pattern: str  # compiled when a sentence first names the exam

    @property
    def value(self) -> re.Pattern[str]:
        return _compiled(self.value_pattern)


@lru_cache(maxsize=PATTERNS_CACHED)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NameIndex = dict[str, tuple[tuple[tuple[str, ...], str], ...]]  # first word -> (name as words, exam)


@dataclass(frozen=True, eq=False)  # one per case (:func:`_rules`), hashed by identity: a key of :func:`_discloses`
class _Rules:
    terms: tuple[str, ...]  # diagnosis terms and codes
    cues: tuple[_ValueCue, ...]  # exams with a short value
    quotes: dict[tuple[str, ...], str]  # shingle of a text result -> its exam
    quote_starts: frozenset[str]  # the first words of the quotes: where a quote may start
    names: _NameIndex  # exam names and aliases, by first word
    cued: dict[str, tuple[int, ...]]  # exam -> its cues, by index


class BoundaryScreen:
    def __init__(self, manager: ManagerView, exams: ExamView):
        manager = require_view(manager, ManagerView, "BoundaryScreen")
        exams = require_view(exams, ExamView, "BoundaryScreen")
        self._rules = _rules(manager, exams)

    def discloses(self, text: str) -> bool:
        """Whether ``text`` names the diagnosis or states an exam's result."""
        return _discloses(self._rules, text)


@lru_cache(maxsize=TEXTS_CACHED)  # a case's patient gives the same replies in every episode of the case
def _discloses(rules: _Rules, text: str) -> bool:
    """The tests in order of cost, the first that finds something deciding: a text that names the
    diagnosis is not split into sentences, nor one that states a value searched for quotes (the
    stress test's single-layer patient discloses in every reply, at length)."""
    if mentions_any(text, rules.terms):
        return True
    if not (rules.cues or rules.quotes):
        return False
    # Sentences end at characters ``name_key`` folds away, so their words, in order, are the text's.
    sentences = [(sentence, name_key(sentence).split()) for sentence in _SENTENCE.split(text)]
    for sentence, words in sentences if rules.cues else ():
        if any(rules.cues[i].value.search(sentence) for i in _named_cues(rules, words)):
            return True
    words = [word for _, in_sentence in sentences for word in in_sentence]
    return any(words[i] in rules.quote_starts and tuple(words[i : i + SHINGLE]) in rules.quotes
               for i in range(len(words) - SHINGLE + 1))


def _named_cues(rules: _Rules, words: list[str]) -> list[int]:
    """The cues, in order, whose exam name or an alias of it the words contain (whole words:
    ``" hgb "`` in the sentence's padded ``name_key``)."""
    named: set[int] = set()
    for i, word in enumerate(words):
        for name, exam in rules.names.get(word, ()):
            if exam in rules.cued and tuple(words[i : i + len(name)]) == name:
                named.update(rules.cued[exam])
    return sorted(named)


@lru_cache(maxsize=SCREENS_CACHED)
def _rules(manager: ManagerView, exams: ExamView) -> _Rules:
    """What a case's screen looks for; built once per case (the views are frozen, so they key it)."""
    codes = [c for c in (*manager.acceptable_icd10, manager.primary_icd10) if c]
    extra = [form for c in codes for form in (c, c.replace(".", ""))]
    if manager.primary_icd10_category:
        extra.append(manager.primary_icd10_category)
    terms = diagnosis_terms(manager.diagnosis_name, list(manager.acceptable_names), manager.primary_icd10,
                            manager.icd10_title) + extra
    aliases = _aliases(exams.catalog)
    cues: list[_ValueCue] = []
    quotes: dict[tuple[str, ...], str] = {}
    for result in exams.results:
        _add(result, cues, quotes)
    cued: dict[str, list[int]] = {}
    for i, cue in enumerate(cues):
        cued.setdefault(cue.exam, []).append(i)
    names = _name_index(exams.catalog)
    outside = {exam for exam in cued if exam not in aliases}  # an exam the catalog lacks keeps its own name
    if outside:
        names = _merged(names, _index_names({exam: () for exam in outside}))
    return _Rules(tuple(terms), tuple(cues), quotes, frozenset(s[0] for s in quotes), names,
                  {exam: tuple(found) for exam, found in cued.items()})


def _add(result: ExamResult, cues: list[_ValueCue], quotes: dict[tuple[str, ...], str]) -> None:
    shingles, cue = _screened(result.exam_name, result.value_text, result.value_num)
    for shingle in shingles:
        quotes.setdefault(shingle, result.exam_name)
    if cue is not None:
        cues.append(cue)


@lru_cache(maxsize=PATTERNS_CACHED)  # cases share results (a value of an exam), and a screen is built per case
def _screened(exam: str, value_text: str | None, value_num: float | None) -> tuple[tuple[tuple[str, ...], ...],
                                                                                   _ValueCue | None]:
    """What a result adds to a screen: the shingles of a text result, or the cue of a short value."""
    text_words = name_key(value_text).split() if value_text else []
    if len(text_words) >= SHINGLE and not _numeric(value_text):
        return tuple(sorted(_shingles(text_words))), None
    values = {v for v in (value_text, f"{value_num:g}" if value_num is not None else None) if v and v.strip()}
    if not values:
        return (), None
    alternation = "|".join(re.escape(v.strip()) for v in sorted(values, key=len, reverse=True))
    return (), _ValueCue(exam, rf"(?<![\w.])(?:{alternation})(?![\w]|\.\d)")


@lru_cache(maxsize=16)  # one catalog per store
def _aliases(catalog: ExamCatalog) -> dict[str, tuple[str, ...]]:
    return {e.exam_name: e.aliases for e in catalog.entries}


@lru_cache(maxsize=16)  # one catalog per store: every case's screen shares its index
def _name_index(catalog: ExamCatalog) -> _NameIndex:
    return _index_names(_aliases(catalog))


def _index_names(aliases: dict[str, tuple[str, ...]]) -> _NameIndex:
    """Each exam's name and aliases as ``name_key`` words (one-letter keys left out), by first word."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for exam, others in aliases.items():
        for name in sorted({tuple(k.split()) for k in map(name_key, (exam, *others)) if len(k) >= 2}):
            index.setdefault(name[0], []).append((name, exam))
    return {word: tuple(found) for word, found in index.items()}


def _merged(index: _NameIndex, more: _NameIndex) -> _NameIndex:
    return {word: index.get(word, ()) + more.get(word, ()) for word in index.keys() | more.keys()}


def _numeric(text: str | None) -> bool:
    return bool(text) and bool(_NUMERIC.fullmatch(text))
