"""Atomic patient-reportable facts ("information unit candidates") from the patient-visible sections.

Splitting (deterministic, rule-based on top of the spaCy/medspaCy pipeline of
:func:`pipelines.notes.sections.build_nlp`):

1. Hard line wraps are joined (:func:`unwrap`); sentences come from the pipeline's sentencizer.
   List sections (PMH, medications, allergies) are read line by line with bullets and numbers
   removed; "No Known Allergies" in any wording is one negated allergy fact.
2. Sentences that are boilerplate ("10-point ROS otherwise negative", "The Preadmission Medication
   list is accurate") are skipped.
3. A sentence is cut into clauses at ``;``, at "but", at a sentence end the sentencizer missed,
   before a new reporting or negation verb ("..., denies fever"), before the presentation
   ("... who presents with ...", "p/w") and before a transfer or a finding ("..., found to have").
   HPI clauses about the encounter itself (ED course, treatment given, procedures, this visit's
   results: the ``encounter_events`` rules of ``lexicon.yaml``, matched as a medspaCy TargetMatcher would) are
   clinicians' observations, not history the patient can tell: such a clause is dropped, and so is
   the rest of its sentence up to a clause the patient reports ("denies ..."), unless a history cue
   ("2 weeks ago", "never") makes it the patient's history. Every dropped clause is recorded.
4. A clause loses its lead-in (subject + reporting verb such as "Pt c/o", "She reports", or a
   negation cue such as "denies", "no", "negative for"); the cue stays in the document so that
   ConText still sees it. "Tobacco: never" becomes the negated fact "Tobacco".
5. After a lead-in, the rest is split into list items at commas and "and"/"or"; without one, chief
   complaint and ROS split the same way, HPI and PMH only at commas, social and family history not
   at all ("Lives with wife and son", "Mother with hypertension and diabetes" are one fact each).
   A split only happens when every item is short (at most five words) and none starts like a
   continuation ("quit 10 years ago", "diet controlled").
6. Facts that only state age and sex are dropped (demographic units come from structured data).

Negation comes from medspaCy ConText run over the fact spans. Text is made readable
(:func:`pipelines.notes.lexicon.expand`, "no"/"not" before a negated fact without its own negation
word) and scrubbed of the case's diagnosis (:func:`pipelines.leakage.scrub`) before and after
expansion; every removal (and every dropped encounter clause, action ``dropped_encounter_event``)
is recorded in ``leakage_removals``. Facts that are the same (category, normalised text, negation)
within a case are kept once.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

import polars as pl
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import filter_spans

from pipelines import ids
from pipelines.leakage import Mention, diagnosis_terms, has_content, normalise, scrub
from pipelines.notes.lexicon import CONTINUATION_WORDS, ENCOUNTER_REASONS, HISTORY_CUES, expand
from pipelines.notes.sections import CONTEXT, LINE_BREAKS, SENTENCES, build_nlp, may_negate
from pipelines.notes.section_rules import PATIENT
from pipelines.notes.tables import REMOVAL_COLUMNS

# section -> unit category, in presentation order (the ordinal follows it)
SECTION_CATEGORY: dict[str, str] = {
    "chief_complaint": "chief_complaint",
    "hpi": "hpi",
    "ros": "ros",
    "pmh": "pmh",
    "medications_on_admission": "medication",
    "allergies": "allergy",
    "social": "social",
    "family": "family",
}
_LIST_SECTIONS = {"pmh", "medications_on_admission", "allergies"}
_CATEGORY_RANK = {c: i for i, c in enumerate(SECTION_CATEGORY.values())}

UNIT_COLUMNS = {
    "case_id": pl.Utf8,
    "unit_id": pl.Utf8,
    "ordinal": pl.Int32,
    "category": pl.Utf8,
    "text": pl.Utf8,
    "negated": pl.Boolean,
    "disclosed": pl.Boolean,
    "source_ref": pl.Utf8,
}
ENCOUNTER_ACTION = "dropped_encounter_event"

_BULLET = re.compile(r"^[ \t]*(?:[-*\u2022#>+]+|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)](?=\s))[ \t]*")
_PRESENTS = (
    r"(?:presents?|presented|presenting)(?:[ \t]+to[ \t]+(?:the[ \t]+|an?[ \t]+)?"
    r"(?:ED|ER|hospital|clinic|emergency[ \t]+(?:department|room)|___)(?:[ \t]+___)?)?[ \t]+with"
)
_CLAUSE_CUT = re.compile(
    r"[ \t]*;[ \t]*"
    r"|(?-i:(?<=[a-z0-9)][.!?])[ \t]+(?=[A-Z(]))"  # case matters: "C. diff" is no sentence end
    r"|,?[ \t]+but[ \t]+"
    r"|,[ \t]*(?=(?:and[ \t]+)?(?:denies|denied|denying|reports?|endorses?|complains?|c/o|notes?|states?|no|not|"
    r"negative|positive|without)\b)"
    r"|[ \t]+and[ \t]+(?=(?:denies|denied|reports?|endorses?|no|not|negative|positive)\b)"
    r"|,?[ \t]+(?=(?:who|which)[ \t]+(?:presents?|presented|was|is|has|had|reports?|developed|came|comes|now)\b)"
    rf"|,?[ \t]+(?={_PRESENTS}\b|p/w\b)"
    r"|,?[ \t]+(?=(?:transferred[ \t]+(?:from|to)|found[ \t]+to[ \t]+(?:have|be)|diagnosed[ \t]+(?:at|in|by|with))\b)",
    re.IGNORECASE,
)
_SUBJECT = r"(?:(?:the[ \t]+)?(?:pt|patient)|he|she|they|who|(?:mr|mrs|ms)\.?[ \t]+_{2,})"
# a clause the patient reports ends a dropped encounter narrative ("..., NAC started, denies pain")
_REPORTED = re.compile(rf"(?:{_SUBJECT}[ \t]+)?(?:denies|denied|reports?|reported|endorses?|endorsed|complains?|"
                       r"c/o|states?|stated|admits?)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]")
_AUX = r"(?:also|additionally|otherwise|further|now|currently|initially|today|does|did|has|had)"
_VERB = (
    rf"(?:{_PRESENTS}|c/o|complains?[ \t]+of|complaining[ \t]+of|complained[ \t]+of|reports?|reported|"
    r"reporting|notes?|noted|noting|describes?|described|endorses?|endorsed|endorsing|states?|stated|"
    r"p/w|(?:is[ \t]+)?positive[ \t]+for|\(\+\)|\+)"
)
_NEGATION = (
    r"(?:denies|denied|denying|no|not|negative[ \t]+for|without|w/o|\(-\)|free[ \t]+of|absence[ \t]+of|"
    r"no[ \t]+evidence[ \t]+of|never[ \t]+had|has[ \t]+not[ \t]+had|hasn't[ \t]+had)(?:[ \t]+any)?"
)
_LEAD_IN = re.compile(
    rf"(?:(?:{_SUBJECT}[ \t]+)?(?:{_AUX}[ \t]+)*(?:{_VERB}|{_NEGATION})|and|or|also)(?:[ \t]+|$)|\+(?=[A-Za-z])",
    re.IGNORECASE,
)
_COMMA_CUT = re.compile(r",[ \t]*(?:and[ \t]+|or[ \t]+)?", re.IGNORECASE)
_LIST_CUT = re.compile(r",[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]+(?:and|or)[ \t]+", re.IGNORECASE)
_ALLERGY_CUT = re.compile(r"[ \t]*[/,;][ \t]*")
_NO_ALLERGIES = re.compile(r"no[ \t]+known[ \t]+(?:drug[ \t]+)?allerg|\bNKDA\b|\bNKA\b|no[ \t]+allergies", re.IGNORECASE)
_BOILERPLATE = re.compile(
    r"preadmission medication list|information was obtained from|medication list (?:is|was) (?:accurate|reviewed)"
    r"|^medications?[ \t]*-[ \t]*(?:prescription|otc)|^(?:none|n/?a|unknown)\.?$|\bnon-?contributory\b"
    # review-of-systems summaries are not atomic facts
    r"|other(?:wise)?\s+(?:systems\s+)?(?:reviewed\s+(?:and\s+)?)?(?:were\s+|are\s+)?negative|(?:as|per)\s+(?:per\s+)?HPI"
    r"|\b(?:10|ten|12|14)[- ]?point\b|all\s+other\s+systems",
    re.IGNORECASE,
)
# a fact that only gives age and sex ("___ year-old M"): the content engineer adds demographic units
_DEMOGRAPHIC = re.compile(
    r"(?:(?:the\s+)?(?:patient|pt)\s+is\s+)?(?:an?\s+)?(?:___|\d{1,3})[ -]*(?:year|yr|y)[- ./]*(?:old|o)?\.?"
    r"[ \t]*(?:man|woman|male|female|M|F|gentleman|lady)?",
    re.IGNORECASE,
)
# "Tobacco: never", "Illicits: denies": a label answered in the negative
_NEGATIVE_ANSWER = re.compile(r"(?P<label>[A-Za-z][\w /]{1,30}):[ \t]*(?:denies|denied|none|never|no|negative)\.?$",
                              re.IGNORECASE)
_LIST_MARK = r"[ \t]*(?:[-*\u2022#>+]|\(?\d{1,2}[.)](?:[ \t]|$)|\(?[a-zA-Z][.)][ \t])"
_HAS_LIST_MARK = re.compile(rf"(?m)^{_LIST_MARK}")
# a line break inside a paragraph: text before it on its line, text after it that is not a new list item
_WRAPPED_BREAK = re.compile(rf"(?<=[^\s:])([ \t]*)\n(?=[ \t]*\S)(?!{_LIST_MARK})")
_NEGATION_WORD = re.compile(r"\b(?:no|not|denies|denied|without|negative|never|none)\b", re.IGNORECASE)
# list splitting without a lead-in: symptom lists at commas and "and"/"or", history lists at commas,
# family and social history not at all (their sentences are the facts)
_LIST_SPLIT = {"chief_complaint": _LIST_CUT, "ros": _LIST_CUT, "hpi": _COMMA_CUT, "pmh": _COMMA_CUT}
_ARTICLE = re.compile(r"(?:a|an|the)\b", re.IGNORECASE)
_MAX_ITEM_WORDS = 5
YIELDS = {r.name: r.yields_to_history for r in ENCOUNTER_REASONS}


@dataclass(frozen=True)
class Fact:
    start: int  # offsets in the section text
    end: int
    negated: bool | None = None  # None: decided by ConText
    encounter: str | None = None  # set: a clause about the encounter, dropped ("<reason>: <words>")


@dataclass(frozen=True)
class Event:
    """A match of an encounter rule: a reason (or ``HISTORY``) and its span."""

    start: int
    end: int
    reason: str
    words: str


HISTORY = "HISTORY"  # the reason of a history-cue match
# The HPI encounter rules, then the history cues (lexicon.yaml), in that order, compiled as
# medspaCy's regex matcher compiles a TargetRule's pattern (case ignored).
ENCOUNTER_RULES = tuple((re.compile(pattern, re.IGNORECASE), reason.name)
                        for reason in ENCOUNTER_REASONS for pattern in reason.patterns) + tuple(
    (re.compile(pattern, re.IGNORECASE), HISTORY) for pattern in HISTORY_CUES)


def encounter_events(doc: Doc) -> list[Event]:
    """The encounter and history-cue matches in ``doc`` (HPI text), in text order: what a medspaCy
    TargetMatcher of :data:`ENCOUNTER_RULES` (span group, no pruning) finds. Each rule's matches on
    the text, a match that does not start and end at token boundaries widened to the tokens it
    touches, as medspaCy's regex matcher widens it; that matcher also re-joins the doc's text once
    per rule, which cost half the matching."""
    text, starts = doc.text, [token.idx for token in doc]
    found = []
    for pattern, reason in ENCOUNTER_RULES:
        for m in pattern.finditer(text):
            span = doc.char_span(*m.span())
            if span is None:
                span = doc[_token_at_or_before(starts, m.start()) : _token_at_or_after(starts, m.end())]
            if len(span):
                found.append(Event(span.start_char, span.end_char, reason, span.text))
    return sorted(found, key=lambda e: (e.start, e.end))


def _token_at_or_before(starts: list[int], char: int) -> int:
    """The token starting at ``char``, else the one before (medspaCy's ``resolve_start="left"``,
    the last token when none starts before)."""
    i = bisect_left(starts, char)
    return i if i < len(starts) and starts[i] == char else (i - 1) % len(starts)


def _token_at_or_after(starts: list[int], char: int) -> int:
    """The end of a span reaching ``char``: the first token starting at or after it, else the doc's
    end (medspaCy's ``resolve_end="right"``)."""
    return bisect_left(starts, char)


def _encounter(start: int, end: int, events: list[Event]) -> str | None:
    """Why the clause [start, end) is about the encounter, or None: the first event starting in it
    whose reason does not yield to a history cue there, else the first one when there is no cue."""
    inside = [e for e in events if start <= e.start < end]
    reasons = [e for e in inside if e.reason != HISTORY]
    if not reasons:
        return None
    firm = [e for e in reasons if not YIELDS[e.reason]]
    if not firm and any(e.reason == HISTORY for e in inside):
        return None
    chosen = (firm or reasons)[0]
    return f"{chosen.reason}: {' '.join(chosen.words.split())}"


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in ",;:.-"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ",;:."):
        end -= 1
    return start, end


def _cut(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    pieces, last = [], start
    for m in pattern.finditer(text, start, end):
        pieces.append((last, m.start()))
        last = m.end()
    pieces.append((last, end))
    return [p for p in (_trim(text, s, e) for s, e in pieces) if p[0] < p[1]]


def _strip_lead_in(text: str, start: int, end: int) -> int:
    while start < end:
        m = _LEAD_IN.match(text, start, end)
        if not m or m.end() == start:
            break
        start = m.end()
    return _trim(text, start, end)[0]


def _items(text: str, start: int, end: int, cut: re.Pattern[str] | None) -> list[tuple[int, int]]:
    items = _cut(text, start, end, cut) if cut is not None else []
    if len(items) < 2:
        return [(start, end)]
    for s, e in items:
        words = text[s:e].split()
        if len(words) > _MAX_ITEM_WORDS or words[0].lower() in CONTINUATION_WORDS:
            return [(start, end)]
    return items


def _clause_facts(text: str, start: int, end: int, section: str, events: list[Event] = (),
                  narrating: str | None = None) -> list[Fact]:
    """Facts of one sentence. After a lead-in ("c/o CP and SOB", "denies fever, chills or cough") list
    items are split at commas and "and"/"or"; otherwise as :data:`_LIST_SPLIT` says for the section,
    so "Lives with wife and son" and "Mother with hypertension and diabetes" stay one fact. A clause
    about the encounter (``events``) is one dropped fact, and so are the clauses after it up to one
    the patient reports (``narrating``: the reason of a dropped label sentence before, "XR:")."""
    facts = []
    last = start
    for s, e in _cut(text, start, end, _CLAUSE_CUT):
        reason = _encounter(s, e, events)
        # the narrative goes on within a sentence, not past a sentence end the sentencizer missed
        goes_on = narrating and not _REPORTED.match(text, s, e) and not _SENTENCE_END.search(text, last, s)
        if reason is None and goes_on:
            reason = narrating
        narrating, last = reason, e
        if reason is not None:
            facts.append(Fact(s, e, encounter=reason))
            continue
        if answer := _NEGATIVE_ANSWER.fullmatch(text, s, e):
            facts.append(Fact(s, answer.end("label"), negated=True))
            continue
        body = _strip_lead_in(text, s, e)
        cut = _LIST_CUT if body > s else _LIST_SPLIT.get(section)
        facts += [Fact(a, b) for a, b in _items(text, body, e, cut)]
    return facts


def unwrap(section: str, text: str) -> str:
    """The section text with hard line wraps joined (same length, so offsets are unchanged).

    Narrative sections are joined inside paragraphs; list sections only when they use bullets or
    numbers (a line without a marker continues the item above), else every line is an item.
    """
    text = text.replace("\r", "\n")
    if section in _LIST_SECTIONS and not _HAS_LIST_MARK.search(text):
        return text
    return _WRAPPED_BREAK.sub(lambda m: m.group(1) + " ", text)


def split_facts(section: str, text: str, sentences: list[tuple[int, int]], events: list[Event] = ()) -> list[Fact]:
    """Atomic fact spans in one section body, and the HPI clauses dropped as encounter events.

    ``text`` is the body after :func:`unwrap`, ``sentences`` its sentence offsets (start, end),
    ``events`` the :func:`encounter_events` of an HPI body.
    """
    if section == "allergies" and _NO_ALLERGIES.search(text):
        s, e = _trim(text, 0, len(text))
        return [Fact(s, e, negated=True)]
    facts: list[Fact] = []
    if section in _LIST_SECTIONS:
        for line in re.finditer(r"[^\n\r]+", text):
            bullet = _BULLET.match(line.group())
            s, e = _trim(text, line.start() + (bullet.end() if bullet else 0), line.end())
            if s >= e or _BOILERPLATE.search(text[s:e]):
                continue
            if section == "allergies":
                facts += [Fact(a, b, negated=False) for a, b in _cut(text, s, e, _ALLERGY_CUT)]
            elif section == "medications_on_admission":
                facts.append(Fact(s, e))
            else:
                facts += _clause_facts(text, s, e, section)
    else:
        carried = None
        for s, e in sentences:
            s, e = _trim(text, s, e)
            if s >= e or _BOILERPLATE.search(text[s:e]):
                continue
            found = _clause_facts(text, s, e, section, events, carried)
            # a dropped label ("XR:", "Labs:") ends its sentence at the line break: its value follows
            carried = found[-1].encounter if found and text[e:e + 1] == ":" else None
            facts += found
    return [f for f in facts if f.encounter is not None
            or (has_content(text[f.start : f.end]) and not _DEMOGRAPHIC.fullmatch(text, f.start, f.end))]


def _render(section: str, surface: str, negated: bool, terms: list[str]) -> tuple[str, list[Mention]]:
    """Readable, scrubbed unit text. Scrubbing runs on the note's wording and again after shorthand is
    expanded, so both "CHF" and an expansion that names the diagnosis are caught."""
    text, mentions = scrub(" ".join(surface.split()), terms)
    if section == "allergies":
        text = "no known drug allergies" if negated else (f"allergic to {text}" if has_content(text) else "")
    text, more = scrub(expand(text), terms)
    return text, mentions + more


def note_units(
    sections: pl.DataFrame, note_cases: pl.DataFrame, nlp: Language | None = None, batch_size: int = 64
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(unit_candidates, leakage_removals) from the patient-visible sections of the cases' notes.

    ``sections``: output of :func:`pipelines.notes.sections.section_notes`; ``note_cases``: note_id,
    case_id, diagnosis_name and, when known, acceptable_names, primary_icd10, icd10_title. Call it per
    batch of notes (a few thousand): units and removals are built in memory.
    """
    nlp = nlp or build_nlp()
    rows = (
        sections.filter((pl.col("visibility") == PATIENT) & pl.col("section").is_in(list(SECTION_CATEGORY)))
        .with_row_index("_order")
        .join(note_cases, on="note_id", how="inner")
        .sort("case_id", "_order")
    )
    context = nlp.get_pipe(CONTEXT)
    disable = [p for p in nlp.pipe_names if p not in {SENTENCES, LINE_BREAKS}]
    prepared = (unwrap(s, t) for s, t in rows.select("section", "text").iter_rows())
    docs = nlp.pipe(prepared, batch_size=batch_size, disable=disable)
    units: list[dict[str, object]] = []
    removals: list[dict[str, object]] = []
    for rec, doc in zip(rows.iter_rows(named=True), docs):
        text = rec["text"]
        events = encounter_events(doc) if rec["section"] == "hpi" else []
        found = split_facts(rec["section"], doc.text, [(s.start_char, s.end_char) for s in doc.sents], events)
        for f in found:
            if f.encounter is not None:
                removals.append({"case_id": rec["case_id"], "source_ref": _ref(rec, f), "term": f.encounter,
                                 "original_snippet": text[f.start : f.end], "action": ENCOUNTER_ACTION})
        facts = [f for f in found if f.encounter is None]
        spans = [doc.char_span(f.start, f.end, label="FACT", alignment_mode="expand") for f in facts]
        negated_at = {}
        # else ConText decides nothing: no fact is left to it, or no negation rule can match
        if any(f.negated is None and s is not None for f, s in zip(facts, spans)) and may_negate(nlp, doc):
            doc.ents = filter_spans([s for s in spans if s is not None])
            negated_at = {(e.start_char, e.end_char): e._.is_negated for e in context(doc).ents}
        terms = diagnosis_terms(rec["diagnosis_name"], rec.get("acceptable_names"), rec.get("primary_icd10"),
                                rec.get("icd10_title"))
        category = SECTION_CATEGORY[rec["section"]]
        for fact, span in zip(facts, spans):
            negated = fact.negated
            if negated is None:
                negated = bool(span is not None and negated_at.get((span.start_char, span.end_char), False))
            surface = text[fact.start : fact.end]
            source_ref = _ref(rec, fact)
            clean, mentions = _render(rec["section"], surface, negated, terms)
            kept = has_content(clean)
            for m in mentions:
                removals.append(
                    {"case_id": rec["case_id"], "source_ref": source_ref, "term": m.term,
                     "original_snippet": surface, "action": "removed_clause" if kept else "dropped_unit"}
                )
            if not kept:
                continue
            if negated and not _NEGATION_WORD.search(clean):
                clean = f"{'not' if _ARTICLE.match(clean) else 'no'} {clean}"
            units.append(
                {"case_id": rec["case_id"], "category": category, "text": clean, "negated": negated,
                 "disclosed": category == "chief_complaint", "source_ref": source_ref,
                 "_rank": _CATEGORY_RANK[category], "_order": rec["_order"], "_start": fact.start,
                 "_key": normalise(clean)}
            )
    return _finish_units(units), pl.DataFrame(removals, schema=REMOVAL_COLUMNS)


def _ref(rec: dict[str, object], fact: Fact) -> str:
    return f"{rec['note_id']}:{rec['start'] + fact.start}-{rec['start'] + fact.end}"


def _finish_units(units: list[dict[str, object]]) -> pl.DataFrame:
    if not units:
        return pl.DataFrame(schema=UNIT_COLUMNS)
    df = (
        pl.DataFrame(units)
        .sort("case_id", "_rank", "_order", "_start")
        .unique(subset=["case_id", "category", "_key", "negated"], keep="first", maintain_order=True)
        .with_columns(pl.int_range(pl.len()).over("case_id").cast(pl.Int32).alias("ordinal"))
    )
    unit_ids = [ids.unit_id(c, "note", r, t) for c, r, t in df.select("case_id", "source_ref", "text").iter_rows()]
    return df.with_columns(pl.Series("unit_id", unit_ids, dtype=pl.Utf8)).select(list(UNIT_COLUMNS))
