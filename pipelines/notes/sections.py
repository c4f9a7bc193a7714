"""Split discharge summaries and radiology reports into sections by their header rules.

Sectioning is a regex scan of each note with the rule sets of :mod:`pipelines.notes.section_rules`,
with the semantics of medspaCy's Sectionizer (header matches, parent rules, a preamble before the
first header, a body up to the next header) but without tokenizing the note: tokenizing the whole
note was most of the note path's time, and a radiology report needs nothing but the split to give
its FINDINGS. medspaCy snaps a header match to token boundaries and resolves overlapping matches by
their length in tokens. A match boundary between whitespace and text is a token boundary; one inside
a run of non-space characters (``In the ED,``) is checked by tokenizing that run alone, as spaCy
does; a match that would be snapped (``Allergies:(`` holds the token ``:(``) or that overlaps
another sends its note to the tokenized Sectionizer itself. Either way a note gets exactly the
sections medspaCy would give it.

One pipeline (:func:`build_nlp`, built once per process) serves the rest of the note path:

* sentence boundaries (spaCy's rule-based ``sentencizer`` at . ! ? ; plus ``line_break_sentences``
  after every line break), ``medspacy_target_matcher`` (exam/imaging finding words, see
  :mod:`pipelines.notes.lexicon`) and ``medspacy_context`` (ConText negation), used by the unit and
  finding extractors. medspaCy's PyRuSH sentence splitter gave nearly the same boundaries on these
  short sections but is pure Python and ~75x slower (hours on MIMIC-IV-Note instead of minutes);
* ``discharge_sectionizer`` and ``radiology_sectionizer``: the two medspaCy Sectionizers, for the
  notes the regex scan cannot section exactly (above).

Callers switch components off per use (``nlp.pipe(..., disable=...)``). Section offsets index the
note exactly as given: Windows (``\\r\\n``) and old Mac (``\\r``) line ends are read as line breaks
without changing any offset.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from collections.abc import Callable, Iterable

import medspacy
import polars as pl
from loguru import logger
from medspacy.context import ConTextRule
from medspacy.section_detection import SectionRule
from medspacy.target_matcher import TargetRule
from spacy.language import Language
from spacy.tokens import Doc, Span

from pipelines.notes.lexicon import (
    ABNORMAL_FINDINGS,
    CONTEXT_PSEUDO,
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
from pipelines.notes.tables import SECTIONS_SCHEMA, NoteWork

# medspaCy's PyRuSH logs every sentence at DEBUG through loguru, whose default sink is the
# terminal; a build would print millions of lines. Library loggers are disabled by name.
logger.disable("PyRuSH")

__all__ = ["SECTION_VISIBILITY", "SECTION_POLICY", "build_nlp", "section_notes", "note_kind", "HEADER_RULES",
           "split_sections"]

DISCHARGE_SECTIONIZER = "discharge_sectionizer"
RADIOLOGY_SECTIONIZER = "radiology_sectionizer"
SENTENCES, LINE_BREAKS = "sentencizer", "line_break_sentences"
TARGETS, CONTEXT = "medspacy_target_matcher", "medspacy_context"


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
    for name, rules in ((DISCHARGE_SECTIONIZER, discharge_rules()), (RADIOLOGY_SECTIONIZER, radiology_rules())):
        sectionizer = nlp.add_pipe("medspacy_sectionizer", name=name, config={"rules": None, "span_attrs": None})
        sectionizer.add(rules)
    return nlp


NEGATING = ("FORWARD", "BACKWARD", "BIDIRECTIONAL")  # directions of a rule that modifies (not TERMINATE, PSEUDO)
_REQUIRED = (None, "+")  # token-pattern operators under which the token must be in a match
_ONE_TOKEN = (None, "!", "?")  # those under which a pattern's token matches one token at most


def may_negate(nlp: Language, doc: Doc | Span) -> bool:
    """False when no negation rule of the pipeline's ConText can match in ``doc``: every rule's
    match needs one word of each of its required tokens (:func:`_negation_words`), and a doc that
    lacks them has no negated entity, so the caller skips ConText (most of the note NLP's cost) with
    the same result. In MIMIC-style sections about seven in ten docs lack them."""
    by_word = _negation_rules_by_word(nlp)
    if by_word is None:
        return True
    words = {token.lower_ for token in doc}
    return any(all(choices & words for choices in rule) for word in words & by_word.keys() for rule in by_word[word])


def any_beyond_negation(nlp: Language, doc: Doc, entities: Iterable[Span]) -> bool:
    """True when no negation rule of the pipeline's ConText can modify one of ``entities`` (spans of
    ``doc``, which has sentences): a modifier's scope is the sentence its match starts in (ConText
    without a window), so only a match starting in a sentence the entity overlaps can reach it, and
    that match ends within the longest negation rule's length past the sentence
    (:func:`_negation_reach`). In radiology FINDINGS three in four docs that :func:`may_negate` sends
    to ConText hold an abnormal entity that none can reach."""
    if not may_negate(nlp, doc):
        return True
    reach = _negation_reach(nlp)
    if reach is None:
        return False
    starts = [sentence.start for sentence in doc.sents]
    if len(starts) == 1:  # every entity's reach is the doc
        return False
    ends = [*starts[1:], len(doc)]
    windows = {(starts[bisect_right(starts, e.start) - 1],  # the start of the entity's first sentence
                min(len(doc), ends[bisect_right(starts, e.end - 1) - 1] + reach - 1))  # its last's end, and reach
               for e in entities}
    return any(not may_negate(nlp, doc[start:end]) for start, end in windows if (start, end) != (0, len(doc)))


def _negating_rules(nlp: Language) -> list[ConTextRule]:
    """The NEGATED_EXISTENCE rules of ``nlp``'s ConText that modify (not those that end a scope)."""
    return [rule for rule in nlp.get_pipe(CONTEXT).rules
            if rule.category == "NEGATED_EXISTENCE" and rule.direction in NEGATING]


@cache
def _negation_rules_by_word(nlp: Language) -> dict[str, list[tuple[frozenset[str], ...]]] | None:
    """:func:`_negation_words`' rules under each word of their first required token: a doc's words
    pick the few rules that may match, instead of every rule being tried."""
    rules = _negation_words(nlp)
    if rules is None:
        return None
    by_word: dict[str, list[tuple[frozenset[str], ...]]] = {}
    for rule in rules:
        for word in rule[0]:
            by_word.setdefault(word, []).append(rule)
    return by_word


@cache
def _negation_reach(nlp: Language) -> int | None:
    """The most tokens a match of a negation rule of ``nlp``'s ConText can span; None when a rule's
    match has no bound (a regex, a repeated token) or ConText scopes by a window, not by sentence."""
    if getattr(nlp.get_pipe(CONTEXT), "max_scope", None):
        return None
    lengths = []
    for rule in _negating_rules(nlp):
        if rule.pattern is None:  # a phrase, matched on the tokens of its lower case (as medspaCy adds it)
            lengths.append(len(nlp.make_doc(rule.literal.lower())))
        elif isinstance(rule.pattern, str) or any(spec.get("OP") not in _ONE_TOKEN for spec in rule.pattern):
            return None
        else:
            lengths.append(len(rule.pattern))
    return max(lengths, default=1)


@cache
def _negation_words(nlp: Language) -> tuple[tuple[frozenset[str], ...], ...] | None:
    """Per NEGATED_EXISTENCE rule of ``nlp``'s ConText that modifies, the lower-case words of each
    token its match must hold: a literal's tokens (ConText matches literals on LOWER); a token
    pattern's required tokens given by LOWER, TEXT or ORTH as a word or an IN list. None when a rule
    gives no such token (a regex, say): then any doc may be negated."""
    rules = []
    for rule in _negating_rules(nlp):
        if rule.pattern is None:
            needed = [frozenset([t.lower_]) for t in nlp.make_doc(rule.literal) if not t.is_space]
        elif isinstance(rule.pattern, str):
            return None
        else:
            needed = []
            for spec in rule.pattern:
                value = next((spec[k] for k in ("LOWER", "TEXT", "ORTH") if k in spec), None)
                if spec.get("OP") not in _REQUIRED or value is None:
                    continue
                if isinstance(value, str):
                    needed.append(frozenset([value.lower()]))
                elif isinstance(value, dict) and set(value) == {"IN"}:
                    needed.append(frozenset(str(w).lower() for w in value["IN"]))
        if not needed:
            return None
        rules.append(tuple(needed))
    return tuple(rules)


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


@dataclass(frozen=True)
class Section:
    """One section of a note in character offsets; ``rule`` None for the preamble before the first header."""

    rule: SectionRule | None
    title_start: int
    title_end: int
    body_start: int
    body_end: int


class HeaderRules:
    """One note kind's section rules, compiled as medspaCy's regex matcher compiles them (ignoring case),
    with the parents each rule needs (medspaCy's parent rules)."""

    def __init__(self, rules: list[SectionRule]) -> None:
        categories = [r.category for r in rules]
        if len(set(categories)) != len(categories):  # medspaCy merges the parents of a repeated category
            raise ValueError(f"section rule categories must be distinct: {categories}")
        self.compiled = [(re.compile(r.pattern, re.IGNORECASE), r) for r in rules]
        self.parents = {r.category: tuple(r.parents) for r in rules if r.parents}


HEADER_RULES = {"discharge": HeaderRules(discharge_rules()), "radiology": HeaderRules(radiology_rules())}
_SECTIONIZERS = {"discharge": DISCHARGE_SECTIONIZER, "radiology": RADIOLOGY_SECTIONIZER}


Header = tuple[int, int, SectionRule]  # a header match: start and end in the note, its rule


def _with_parents(headers: list[Header], rules: HeaderRules) -> list[Header]:
    """The header matches medspaCy keeps (``Sectionizer.set_parent_sections``, same walk): a rule with
    parents keeps its match only when a parent precedes it, directly or through siblings under it."""
    kept: list[Header] = []
    parent_of: list[int | None] = []

    def category(i: int | None) -> str | None:
        return None if i is None else kept[i][2].category

    for header in headers:
        rule = header[2]
        parents = rules.parents.get(rule.category)
        if not kept or not parents:
            if not (rule.parent_required and not kept):
                kept.append(header)
                parent_of.append(None)
            continue
        found = None
        for parent in parents:
            i = len(kept) - 1
            candidate, candidate_parent = category(i), category(parent_of[i])
            while candidate:
                if candidate == parent:
                    found = i
                    break
                if i < 1 or not candidate_parent:
                    break
                before, before_parent = category(i - 1), category(parent_of[i - 1])
                if candidate_parent not in (before, before_parent):
                    break
                candidate, candidate_parent, i = before, before_parent, i - 1
        if found is not None or not rule.parent_required:
            kept.append(header)
            parent_of.append(found)
    return kept


def _splits_at(text: str, i: int, tokenize: Callable[[str], Doc]) -> bool:
    """Whether spaCy puts a token boundary at ``i`` inside a run of non-space characters: it tokenizes
    every whitespace-delimited run on its own, so the run alone decides."""
    start, end = i, i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return any(start + token.idx == i for token in tokenize(text[start:end]))


def split_sections(text: str, rules: HeaderRules, tokenize: Callable[[str], Doc]) -> list[Section] | None:
    """The sections of ``text`` (line breaks as ``\\n``) by a regex scan, or None where only the
    tokenized Sectionizer is exact: a header match that does not start and end at token boundaries
    (``tokenize``, the pipeline's tokenizer, decides inside a run of non-space characters), that
    ends in whitespace, or that overlaps another."""
    headers: list[Header] = []
    for pattern, rule in rules.compiled:
        for m in pattern.finditer(text):
            start, end = m.span()
            if start == end or text[end - 1].isspace():
                return None
            if start > 0 and not text[start - 1].isspace() and not _splits_at(text, start, tokenize):
                return None
            if end < len(text) and not text[end].isspace() and not _splits_at(text, end, tokenize):
                return None
            headers.append((start, end, rule))
    headers.sort(key=lambda h: (h[0], h[1]))
    if any(b[0] < a[1] for a, b in zip(headers, headers[1:])):
        return None
    headers = _with_parents(headers, rules)
    sections = [Section(None, 0, 0, 0, headers[0][0] if headers else len(text))]
    for i, (start, end, rule) in enumerate(headers):
        sections.append(Section(rule, start, end, end, headers[i + 1][0] if i + 1 < len(headers) else len(text)))
    return sections


def _tokenized_sections(doc: Doc) -> list[Section]:
    """The sections medspaCy's Sectionizer set on ``doc``, in character offsets."""
    found = []
    for section in doc._.sections:
        title, body = doc[section.title_start : section.title_end], doc[section.body_start : section.body_end]
        found.append(Section(section.rule, title.start_char, title.end_char,
                             *((body.start_char, body.end_char) if len(body) else (0, 0))))
    return found


def _section_rows(note_id: str, text: str, sections: list[Section], kind: str) -> Iterable[dict[str, object]]:
    for section in sections:
        start, end = _trim(text, section.body_start, section.body_end)
        if start >= end:
            continue
        name, header = "preamble", None
        if section.rule is not None:
            header = " ".join(text[section.title_start : section.title_end].split())
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


def section_notes(notes: pl.DataFrame, nlp: Language | None = None, batch_size: int = 64,
                  work: NoteWork | None = None) -> pl.DataFrame:
    """One row per non-empty section of every note (``note_id``, ``text``; optional ``note_type``).

    Columns: note_id, section (canonical name), header (as written), start/end (character offsets of
    the body in the note, so ``text == note[start:end]``), text, visibility, reason. Rows keep note
    order and, within a note, text order. Empty or missing text gives no rows. ``nlp`` (built when
    first needed) gives the tokenizer that places header boundaries inside a run of non-space
    characters, and sections the rare notes the regex scan leaves to medspaCy; ``work``, when given,
    gets the notes and CPU seconds of each kind added.
    """
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

    def tokenize(text: str) -> Doc:
        return (nlp or build_nlp()).tokenizer(text)

    rows: list[tuple[int, dict[str, object]]] = []
    for kind, items in by_kind.items():
        started = time.process_time()
        tokenized = []
        for i, note_id, text in items:
            sections = split_sections(_line_breaks(text), HEADER_RULES[kind], tokenize)
            if sections is None:
                tokenized.append((i, note_id, text))
            else:
                rows.extend((i, row) for row in _section_rows(note_id, text, sections, kind))
        if tokenized:
            nlp = nlp or build_nlp()
            docs = nlp.pipe((_line_breaks(text) for _, _, text in tokenized), batch_size=batch_size,
                            disable=[p for p in nlp.pipe_names if p != _SECTIONIZERS[kind]])
            for (i, note_id, text), doc in zip(tokenized, docs):
                rows.extend((i, row) for row in _section_rows(note_id, text, _tokenized_sections(doc), kind))
        if work is not None:
            work.add(NoteWork({kind: len(items)}, {kind: time.process_time() - started}))
    rows.sort(key=lambda r: (r[0], r[1]["start"]))
    return pl.DataFrame([row for _, row in rows], schema=SECTIONS_SCHEMA)
