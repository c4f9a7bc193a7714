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

from pipelines.episodes.views import ExamResult, ExamView, ManagerView, require_view
from pipelines.exams.catalog import name_key
from pipelines.leakage import diagnosis_terms, find_mentions

SHINGLE = 4  # consecutive words of a text result that count as quoting it
_SENTENCE = re.compile(r"[;!?\n]|\.(?!\d)")


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


@dataclass(frozen=True)
class _ValueCue:
    exam: str
    names: tuple[str, ...]  # name_key forms, padded with spaces
    value: re.Pattern[str]


class BoundaryScreen:
    def __init__(self, manager: ManagerView, exams: ExamView):
        manager = require_view(manager, ManagerView, "BoundaryScreen")
        exams = require_view(exams, ExamView, "BoundaryScreen")
        codes = [c for c in (*manager.acceptable_icd10, manager.primary_icd10) if c]
        extra = [form for c in codes for form in (c, c.replace(".", ""))]
        if manager.primary_icd10_category:
            extra.append(manager.primary_icd10_category)
        self._terms = diagnosis_terms(manager.diagnosis_name, list(manager.acceptable_names),
                                      manager.primary_icd10, manager.icd10_title) + extra
        aliases = {e.exam_name: e.aliases for e in exams.catalog.entries}
        self._cues: list[_ValueCue] = []
        self._quotes: dict[tuple[str, ...], str] = {}
        for result in exams.results:
            self._add(result, aliases.get(result.exam_name, ()))

    def _add(self, result: ExamResult, aliases: tuple[str, ...]) -> None:
        text_words = name_key(result.value_text).split() if result.value_text else []
        if len(text_words) >= SHINGLE and not _numeric(result.value_text):
            for shingle in _shingles(text_words):
                self._quotes.setdefault(shingle, result.exam_name)
            return
        values = {v for v in (result.value_text, f"{result.value_num:g}" if result.value_num is not None else None)
                  if v and v.strip()}
        if not values:
            return
        names = tuple(sorted({f" {k} " for k in map(name_key, (result.exam_name, *aliases)) if len(k) >= 2}))
        alternation = "|".join(re.escape(v.strip()) for v in sorted(values, key=len, reverse=True))
        value = re.compile(rf"(?<![\w.])(?:{alternation})(?![\w]|\.\d)", re.IGNORECASE)
        self._cues.append(_ValueCue(result.exam_name, names, value))

    def hits(self, text: str) -> list[str]:
        """What ``text`` discloses: diagnosis terms found and exams whose result it states."""
        found = [m.term for m in find_mentions(text, self._terms)]
        for sentence in _SENTENCE.split(text):
            padded = f" {name_key(sentence)} "
            found += [f"{c.exam} value" for c in self._cues
                      if c.value.search(sentence) and any(n in padded for n in c.names)]
        quoted = _shingles(name_key(text).split()) & self._quotes.keys()
        found += sorted({f"{self._quotes[s]} finding" for s in quoted})
        return found

    def discloses(self, text: str) -> bool:
        return bool(self.hits(text))


def _numeric(text: str | None) -> bool:
    return bool(text) and bool(re.fullmatch(r"[\s\d.,/<>=+-]+", text))
