"""Diagnostic criteria: what the offline doctors know of diagnosis beyond the train split.

Nearest training cases can only name a diagnosis the train split holds (on the real MIMIC-IV demo
most test diagnoses are in no train case). A clinician also knows textbook presentations:
``data/diagnostic_criteria.csv`` lists common acute conditions with the complaints that suggest
them (cues), the results that support them (findings: an exam and the direction of its
abnormality) and history that explains those results away (``unless``). Evidence is read as the
doctor reads it: what the patient said, and the laboratory physician's reports
(:func:`pipelines.episodes.lab.read`). A condition scores the number of its cues and findings the
evidence holds; any ``unless`` phrase in the evidence rules it out. Exam names and codes are
checked when the file is read, so a misspelt one fails with its line instead of never matching.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from pipelines import icd
from pipelines.datafiles import Record, Root, csv_records
from pipelines.episodes.lab import Reading, read
from pipelines.episodes.retrieval import LINES_CACHED
from pipelines.exams.vocabulary import exams as vocabulary

FILE = "diagnostic_criteria.csv"
DIRECTIONS = ("high", "low", "abnormal")
NEGATIONS = frozenset({"no", "not", "never", "without", "denies", "deny", "don't", "dont", "haven't", "hasn't"})
NEGATION_REACH = 3  # words before a cue that can negate it
LONGEST_PHRASE = 6  # words in a cue or unless phrase
EVIDENCE_CACHED = 1 << 13  # evidence texts whose results are kept (here and in pipelines/episodes/knowledge.py)
_WORD = re.compile(r"[a-z0-9']+")
_TOKEN = re.compile(r"[a-z0-9']+|[.;!?]")
_STOPS = frozenset(".;!?")


def _negated(words: list[str], i: int) -> bool:
    """A negation among the ``NEGATION_REACH`` words before ``words[i]`` in its sentence."""
    for word in reversed(words[max(0, i - NEGATION_REACH) : i]):
        if word in _STOPS:
            return False
        if word in NEGATIONS:
            return True
    return False


@dataclass(frozen=True)
class Finding:
    exam: str
    direction: str

    def holds(self, reading: Reading) -> bool:
        if self.direction == "abnormal":
            return reading.abnormal is True
        return reading.direction == self.direction


@dataclass(frozen=True)
class Criterion:
    code: str
    title: str
    cues: tuple[tuple[str, ...], ...]  # phrases as words
    findings: tuple[Finding, ...]
    unless: tuple[tuple[str, ...], ...]
    why: str


@dataclass(frozen=True)
class Evidence:
    """Evidence read for the criteria: which of the criteria's phrases were said, not negated by a
    word just before them, and the results reported, by exam name."""

    said: frozenset[tuple[str, ...]]
    readings: dict[str, Reading]

    @classmethod
    def of(cls, text: str, phrases: PhraseIndex) -> Evidence:
        """The evidence in ``text``: each line read once (:func:`_read_line`, cached like the TF-IDF
        lines of pipelines/episodes/retrieval.py, as evidence texts grow line by line)."""
        said: set[tuple[str, ...]] = set()
        readings = {}
        for line in text.splitlines():
            reading, found = _line(line, phrases)
            if reading is not None:
                readings[reading.exam] = reading
            said.update(found)
        return cls(frozenset(said), readings)

    def says(self, phrase: tuple[str, ...]) -> bool:
        return phrase in self.said


@dataclass(frozen=True, eq=False)  # hashed by identity: one index per criteria set, a key of the line cache
class PhraseIndex:
    """Phrases to look for, by their first word."""

    by_first: dict[str, tuple[tuple[str, ...], ...]]


def _read_line(line: str, phrases: PhraseIndex) -> tuple[Reading | None, frozenset[tuple[str, ...]]]:
    """A line's report, or the phrases it says, not negated by a word just before them."""
    reading = read(line)
    if reading is not None:
        return reading, frozenset()
    words = _TOKEN.findall(line.lower())  # words, and the stops that end a sentence
    return None, frozenset(phrase for i, word in enumerate(words) for phrase in phrases.by_first.get(word, ())
                           if tuple(words[i : i + len(phrase)]) == phrase and not _negated(words, i))


_line = lru_cache(maxsize=LINES_CACHED)(_read_line)


def _phrases(record: Record, field: str) -> tuple[tuple[str, ...], ...]:
    phrases = tuple(tuple(_WORD.findall(p.lower())) for p in record.items(field))
    if any(not 0 < len(p) <= LONGEST_PHRASE for p in phrases):
        raise record.error(field, f"expected phrases of 1 to {LONGEST_PHRASE} words")
    return phrases


def _finding(record: Record, item: str, known: frozenset[str]) -> Finding:
    exam, _, direction = item.rpartition(":")
    if exam not in known or direction not in DIRECTIONS:
        raise record.error("findings", f"expected canonical exam name:{'|'.join(DIRECTIONS)} "
                                       f"(pipelines/exams/exam_vocabulary.csv), not {item!r}")
    return Finding(exam, direction)


def _criterion(record: Record, known: frozenset[str]) -> Criterion:
    code = record.text("code")
    info = icd.icd10cm_info(code)
    if info.origin != "icd10" or info.code != icd.dotted(code):
        raise record.error("code", f"expected an ICD-10-CM code of the installed release, not {code!r}")
    findings = tuple(_finding(record, item, known) for item in record.items("findings"))
    cues = _phrases(record, "cues")
    if not findings and not cues:
        raise record.error("findings", "a condition needs at least one cue or finding")
    return Criterion(info.code, info.title or code, cues, findings, _phrases(record, "unless"), record.text("why"))


@cache
def criteria(root: str | Root = f"{__package__}.data") -> tuple[Criterion, ...]:
    known = frozenset(exam.name for exam in vocabulary())
    records = csv_records(root, FILE, ("code", "cues", "findings", "unless", "why"), key="code")
    return tuple(_criterion(r, known) for r in records)


@dataclass(frozen=True)
class Candidate:
    criterion: Criterion
    block: str
    matched: int  # cues and findings the evidence holds


def candidates(text: str) -> list[Candidate]:
    """Every condition that the evidence in ``text`` supports and nothing in it rules out, best
    first (then by code)."""
    return list(_candidates(text))


@lru_cache(maxsize=EVIDENCE_CACHED)  # the arms of a study play the same cases: the same evidence recurs
def _candidates(text: str) -> tuple[Candidate, ...]:
    evidence = Evidence.of(text, _lookup().phrases)
    return _supported(evidence.said, tuple(sorted(evidence.readings.items())))


# By what the evidence holds rather than its text: the seeded style words of a patient's replies
# change the text of every seed's evidence, seldom the phrases said or the results read.
@lru_cache(maxsize=EVIDENCE_CACHED)
def _supported(said: frozenset[tuple[str, ...]], read: tuple[tuple[str, Reading], ...]) -> tuple[Candidate, ...]:
    known, lookup, readings, found = criteria(), _lookup(), dict(read), []
    touched = {i for phrase in said for i in lookup.by_cue.get(phrase, ())}
    touched.update(i for exam in readings for i in lookup.by_exam.get(exam, ()))
    for c in (known[i] for i in sorted(touched)):
        if not said.isdisjoint(c.unless):
            continue
        matched = len(said.intersection(c.cues)) + sum(
            1 for f in c.findings if (r := readings.get(f.exam)) is not None and f.holds(r))
        if matched:
            found.append(Candidate(c, _block(c.code), matched))
    return tuple(sorted(found, key=lambda k: (-k.matched, k.criterion.code)))


@dataclass(frozen=True)
class _Lookup:
    """The default criteria as a reader looks them up: every cue and unless phrase by its first
    word, and the criteria (by position) that each cue and each finding's exam may support, so
    that a text is scored against the few criteria it touches, not all of them."""

    phrases: PhraseIndex
    by_cue: dict[tuple[str, ...], tuple[int, ...]]
    by_exam: dict[str, tuple[int, ...]]


@cache
def _lookup() -> _Lookup:
    known = criteria()
    first: dict[str, set[tuple[str, ...]]] = {}
    by_cue: dict[tuple[str, ...], list[int]] = {}
    by_exam: dict[str, list[int]] = {}
    for i, c in enumerate(known):
        for phrase in (*c.cues, *c.unless):
            first.setdefault(phrase[0], set()).add(phrase)
        for phrase in c.cues:
            by_cue.setdefault(phrase, []).append(i)
        for f in c.findings:
            by_exam.setdefault(f.exam, []).append(i)
    return _Lookup(PhraseIndex({word: tuple(sorted(found)) for word, found in first.items()}),
                   {p: tuple(ids) for p, ids in by_cue.items()}, {e: tuple(ids) for e, ids in by_exam.items()})


@cache
def _block(code: str) -> str:
    block = icd.icd10cm_info(code).block
    assert block is not None  # the code was checked when the file was read
    return block
