"""Split discharge summaries and radiology reports into sections with medspaCy's Sectionizer.

One pipeline (:func:`build_nlp`, built once per process) serves the whole note path:

* sentence boundaries (spaCy's rule-based ``sentencizer`` at . ! ? ; plus ``line_break_sentences``
  after every line break), ``medspacy_target_matcher`` (exam/imaging finding words, see
  :mod:`pipelines.notes.lexicon`) and ``medspacy_context`` (ConText negation), used by the unit and
  finding extractors. medspaCy's PyRuSH sentence splitter gave nearly the same boundaries on these
  short sections but is pure Python and ~75x slower (hours on MIMIC-IV-Note instead of minutes);
* ``encounter_events``: a second TargetMatcher (span group, not entities) with the HPI encounter
  rules and history cues of :mod:`pipelines.notes.lexicon`; the unit extractor runs it on HPI text;
* ``discharge_sectionizer`` and ``radiology_sectionizer``: two medspaCy Sectionizers with the rule
  sets of :mod:`pipelines.notes.section_rules`.

Callers switch components off per use (``nlp.pipe(..., disable=...)``), so sectioning runs only the
tokenizer and one sectionizer. Section offsets index the note exactly as given: Windows (``\\r\\n``)
and old Mac (``\\r``) line ends are read as line breaks without changing any offset.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Iterable

import medspacy
import polars as pl
from loguru import logger
from medspacy.context import ConTextRule
from medspacy.target_matcher import TargetRule
from spacy.language import Language
from spacy.tokens import Doc

from pipelines.notes.lexicon import (
    ABNORMAL_FINDINGS,
    CONTEXT_PSEUDO,
    ENCOUNTER_REASONS,
    HISTORY_CUES,
    NORMAL_FINDINGS,
    PERIOD_ABBREVIATIONS,
)
from pipelines.notes.section_rules import (
    SECTION_POLICY,
    SECTION_VISIBILITY,
    classify_header,
    discharge_rules,
    radiology_rules,
)

# medspaCy's PyRuSH logs every sentence at DEBUG through loguru, whose default sink is the
# terminal; a build would print millions of lines. Library loggers are disabled by name.
logger.disable("PyRuSH")

__all__ = ["SECTION_VISIBILITY", "SECTION_POLICY", "build_nlp", "section_notes", "note_kind", "SECTIONS_SCHEMA"]

DISCHARGE_SECTIONIZER = "discharge_sectionizer"
RADIOLOGY_SECTIONIZER = "radiology_sectionizer"
SENTENCES, LINE_BREAKS = "sentencizer", "line_break_sentences"
TARGETS, CONTEXT = "medspacy_target_matcher", "medspacy_context"
ENCOUNTERS = "encounter_events"  # pipe and span group name
HISTORY = "HISTORY"  # category of the history-cue rules in ENCOUNTERS

SECTIONS_SCHEMA = {
    "note_id": pl.Utf8,
    "section": pl.Utf8,
    "header": pl.Utf8,
    "start": pl.Int64,
    "end": pl.Int64,
    "text": pl.Utf8,
    "visibility": pl.Utf8,
    "reason": pl.Utf8,
}


@Language.component(LINE_BREAKS)
def line_break_sentences(doc: Doc) -> Doc:
    """Start a sentence after every whitespace token holding a line break (lists, paragraphs)."""
    for token in doc[:-1]:
        if token.is_space and "\n" in token.text:
            doc[token.i + 1].is_sent_start = True
    return doc


@cache
def build_nlp() -> Language:
    """The medspaCy pipeline of the note path (cached: building it takes a few seconds)."""
    nlp = medspacy.load(medspacy_enable=["medspacy_tokenizer", TARGETS, CONTEXT])
    for abbreviation in PERIOD_ABBREVIATIONS:  # they end in a period but end no sentence
        nlp.tokenizer.add_special_case(abbreviation, [{"ORTH": abbreviation}])
    nlp.add_pipe("sentencizer", name=SENTENCES, first=True, config={"punct_chars": [".", "!", "?", ";"]})
    nlp.add_pipe(LINE_BREAKS, after=SENTENCES)
    nlp.get_pipe(TARGETS).add(
        [TargetRule(term, "ABNORMAL") for term in ABNORMAL_FINDINGS]
        + [TargetRule(term, "NORMAL") for term in NORMAL_FINDINGS]
    )
    nlp.get_pipe(CONTEXT).add([ConTextRule(phrase, "PSEUDO", direction="PSEUDO") for phrase in CONTEXT_PSEUDO])
    # overlapping rules must all survive (an event and a history cue in one clause): no pruning
    encounters = nlp.add_pipe("medspacy_target_matcher", name=ENCOUNTERS,
                              config={"result_type": "group", "span_group_name": ENCOUNTERS, "prune": False})
    encounters.add([TargetRule(reason.name, reason.name, pattern=p) for reason in ENCOUNTER_REASONS
                    for p in reason.patterns] + [TargetRule("history cue", HISTORY, pattern=p) for p in HISTORY_CUES])
    for name, rules in ((DISCHARGE_SECTIONIZER, discharge_rules()), (RADIOLOGY_SECTIONIZER, radiology_rules())):
        sectionizer = nlp.add_pipe("medspacy_sectionizer", name=name, config={"rules": None, "span_attrs": None})
        sectionizer.add(rules)
    return nlp


_RADIOLOGY_HEADER = re.compile(r"(?im)^[ \t]*(?:findings|impression)[ \t]*:")
_DISCHARGE_HEADER = re.compile(
    r"(?im)^[ \t]*(?:history of present|chief complaint|___ complaint|brief hospital course|discharge diagnos)"
)


def note_kind(note_id: str, text: str | None, note_type: str | None = None) -> str:
    """``radiology`` or ``discharge``: from MIMIC's note_type (RR/AR vs DS), the note_id, else the headers."""
    if note_type:
        return "radiology" if note_type.strip().upper() in {"RR", "AR"} else "discharge"
    if re.search(r"-(?:RR|AR)-", note_id or ""):
        return "radiology"
    if re.search(r"-DS-", note_id or ""):
        return "discharge"
    text = text or ""
    return "radiology" if _RADIOLOGY_HEADER.search(text) and not _DISCHARGE_HEADER.search(text) else "discharge"


def _line_breaks(text: str) -> str:
    # same length, so every offset into the result is an offset into the note
    return text.replace("\r", "\n")


_LEADING = " \t\n\r:;,"  # what may separate a header (or an arrival phrase) from its body


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _LEADING:
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _section_rows(note_id: str, text: str, doc: Doc, kind: str) -> Iterable[dict[str, object]]:
    for section in doc._.sections:
        body = doc[section.body_start : section.body_end]
        start, end = _trim(text, body.start_char, body.end_char) if len(body) else (0, 0)
        if start >= end:
            continue
        name, header = "preamble", None
        if section.rule is not None:
            title = doc[section.title_start : section.title_end]
            header = " ".join(text[title.start_char : title.end_char].split())
            name = section.rule.metadata["section"] or classify_header(header, kind)
        visibility, reason = SECTION_POLICY[name]
        yield {
            "note_id": note_id,
            "section": name,
            "header": header,
            "start": start,
            "end": end,
            "text": text[start:end],
            "visibility": visibility,
            "reason": reason,
        }


def section_notes(notes: pl.DataFrame, nlp: Language | None = None, batch_size: int = 64) -> pl.DataFrame:
    """One row per non-empty section of every note (``note_id``, ``text``; optional ``note_type``).

    Columns: note_id, section (canonical name), header (as written), start/end (character offsets of
    the body in the note, so ``text == note[start:end]``), text, visibility, reason. Rows keep note
    order and, within a note, text order. Empty or missing text gives no rows.
    """
    nlp = nlp or build_nlp()
    has_type = "note_type" in notes.columns
    records = notes.select(
        pl.col("note_id").cast(pl.Utf8), pl.col("text").cast(pl.Utf8), *(["note_type"] if has_type else [])
    ).iter_rows(named=True)
    by_kind: dict[str, list[tuple[int, str, str]]] = {"discharge": [], "radiology": []}
    for i, rec in enumerate(records):
        text = rec["text"] or ""
        if text.strip():
            kind = note_kind(rec["note_id"], text, rec.get("note_type"))
            by_kind[kind].append((i, rec["note_id"], text))
    rows: list[tuple[int, dict[str, object]]] = []
    for kind, sectionizer in (("discharge", DISCHARGE_SECTIONIZER), ("radiology", RADIOLOGY_SECTIONIZER)):
        items = by_kind[kind]
        docs = nlp.pipe(
            (_line_breaks(text) for _, _, text in items),
            batch_size=batch_size,
            disable=[p for p in nlp.pipe_names if p != sectionizer],
        )
        for (i, note_id, text), doc in zip(items, docs):
            rows.extend((i, row) for row in _section_rows(note_id, text, doc, kind))
    rows.sort(key=lambda r: (r[0], r[1]["start"]))
    return pl.DataFrame([row for _, row in rows], schema=SECTIONS_SCHEMA)
