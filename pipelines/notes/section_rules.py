"""Section header rules (medspaCy ``SectionRule`` regexes) and the visibility policy of every section.

The header phrases and the policy are data (``section_rules.yaml`` beside this module, checked on
load); this module turns them into rules.

Header matching
---------------
Every header is a phrase at the start of a line followed by a colon, in any letter case, with any
run of spaces or tabs between its words (``Chief   Complaint:``, ``CHIEF COMPLAINT:``). MIMIC-IV-Note
replaces de-identified words by ``___``, also inside headers (``___ Complaint:``,
``History of Present ___:``), so in a header of two or more words any *one* word may be ``___``.
A few MIMIC sub-headers are accepted without a colon when they stand alone on their line
(``ADMISSION PHYSICAL EXAM``). Bare exam sub-headers (``Admission:``, ``On discharge:``) split the
physical exam into admission and discharge parts; ``Admission:`` counts only inside a physical
exam (medspaCy parent rule) while a bare discharge header always ends the admission exam, so a
discharge exam is never mistaken for the admission one.

Discharge summaries also start the (never visible) ``ed_course`` section at a sentence that opens
with "In the ED", "At the OSH", "On arrival to the floor", ...: what happened after the patient
arrived is clinician observation and treatment, not history the patient can report.

Any other line that looks like a header (1-6 words ending in a colon, nothing after it) starts an
``other`` section, which is never shown: an unknown header in an unseen note fails closed instead
of extending the section above it.

Radiology reports have their own rule set (EXAMINATION / INDICATION / TECHNIQUE / COMPARISON /
FINDINGS / IMPRESSION and variants) and no catch-all, because CT findings use organ sub-headers
(``LIVER:``) inside FINDINGS.

Rules per sectionizer are few on purpose: medspaCy's regex matcher rebuilds the document text once
per rule, so all plain headers (and the catch-all) share one rule and :func:`classify_header` names
the section from the matched header text. Only the physical exam header (parent of the bare
``Admission:``), the bare admission sub-header and the arrival sentence are rules of their own.
"""

from __future__ import annotations

import re

from medspacy.section_detection import SectionRule

from pipelines.datafiles import yaml_record

PATIENT, EXAM, NEVER = "patient", "exam", "never"
RULES_FILE = "section_rules.yaml"

_RULES = yaml_record(__package__, RULES_FILE,
                     ("policy", "discharge_headers", "colon_optional", "bare_admission", "radiology_headers"),
                     text=True)


def _policy() -> dict[str, tuple[str, str]]:
    return {name: (r.choice("visibility", (PATIENT, EXAM, NEVER)), r.text("reason"))
            for name, r in _RULES.records("policy", ("visibility", "reason")).items()}


def _headers(section: str) -> dict[str, list[str]]:
    headers = {name: list(phrases) for name, phrases in _RULES.text_groups(section, distinct=True).items()}
    unknown = set(headers) - set(SECTION_POLICY)
    if unknown:
        raise _RULES.error(section, f"sections {sorted(unknown)} have no policy")
    return headers


def _colon_optional() -> frozenset[str]:
    phrases = frozenset(_RULES.texts("colon_optional", distinct=True))
    if not phrases <= {p for ps in DISCHARGE_HEADERS.values() for p in ps}:
        raise _RULES.error("colon_optional", "every phrase must also be a discharge header")
    return phrases


# section -> (visibility, reason). "patient": the simulated patient may tell it; "exam": returned as an
# examination result when ordered; "never": diagnosis-revealing, post-admission or administrative.
SECTION_POLICY: dict[str, tuple[str, str]] = _policy()
SECTION_VISIBILITY: dict[str, str] = {name: vis for name, (vis, _) in SECTION_POLICY.items()}
DISCHARGE_HEADERS: dict[str, list[str]] = _headers("discharge_headers")
RADIOLOGY_HEADERS: dict[str, list[str]] = _headers("radiology_headers")
# Exam sub-headers MIMIC writes alone on a line, sometimes without a colon.
_COLON_OPTIONAL = _colon_optional()
# "Admission:" alone counts only inside a physical exam (parent rule); elsewhere it is lab/result text.
_BARE_ADMISSION = list(_RULES.texts("bare_admission", distinct=True))

# A sentence that opens with one of these starts ed_course inside the HPI.
_ARRIVAL = (
    r"(?:in|at)\s+the\s+(?:___\s+)?(?:ED|emergency\s+(?:department|room)|ER|OSH|outside\s+hospital)\b"
    r"|(?:up)?on\s+(?:arrival|transfer|presentation)\s+(?:to|at|in)\s+(?:the\s+)?"
    r"(?:floor|ICU|CCU|MICU|SICU|ED|ER|___)\b"
    r"|on\s+the\s+floor\b|in\s+the\s+(?:ICU|CCU|MICU)\b"
    r"|(?:ED|ER|initial|triage|presenting)\s+(?:vitals|VS|vital\s+signs)\b|vitals\s+in\s+the\s+(?:ED|ER)\b"
)

_GAP = r"[ \t]+"
_DEIDENTIFIED = r"_{2,}"


def _word(word: str) -> str:
    # "Follow-up" / "Follow up" / "Followup", "A/P" / "A / P" are the same header.
    parts = re.split(r"([-/&])", word)
    out = []
    for p in parts:
        if p == "-":
            out.append(r"[- \t]?")
        elif p in {"/", "&"}:
            out.append(rf"[ \t]*{re.escape(p)}[ \t]*")
        elif p:
            out.append(re.escape(p))
    return "".join(out)


def header_regex(phrase: str) -> str:
    """The phrase, or the phrase with any one of its words de-identified as ``___``."""
    words = phrase.split()
    variants = [_GAP.join(_word(w) for w in words)]
    if len(words) > 1:
        for i in range(len(words)):
            variants.append(_GAP.join(_DEIDENTIFIED if j == i else _word(w) for j, w in enumerate(words)))
    return "(?:" + "|".join(variants) + ")"


def _line_header(
    phrases: list[str], colon_optional: set[str] = frozenset(), catch_all_except: list[str] | None = None
) -> str:
    """Line-start regex for the phrases; with ``catch_all_except`` it also takes any other header-like
    line (1-6 words, a colon, nothing after it) except those phrases, which other rules own."""
    with_colon = [header_regex(p) for p in phrases]
    alone = [header_regex(p) for p in phrases if p in colon_optional]
    # Every alternative needs a colon on its line or is a colon-optional header alone on it: saying so
    # first spares Python's regex engine the hundreds of alternatives on most lines (half the time).
    needed = r"[^\n:]*:" + (rf"|[ \t]*(?:{'|'.join(alone)})[ \t]*$" if alone else "")
    pattern = rf"(?m)^(?={needed})[ \t]*(?:(?:{'|'.join(with_colon)})[ \t]*:"
    if alone:
        pattern += rf"|(?:{'|'.join(alone)})(?=[ \t]*$)"
    if catch_all_except:
        owned = "|".join(header_regex(p) for p in catch_all_except)
        pattern += (rf"|(?!(?:{owned})[ \t]*:)(?:[A-Za-z_][\w'&()/\-.]*[ \t]+){{0,5}}[A-Za-z_][\w'&()/\-.]*"
                    r"[ \t]*:(?=[ \t]*$)")
    return pattern + ")"


def _rule(literal: str, internal: str, pattern: str, section: str | None, **kw: object) -> SectionRule:
    # section None: the header text decides (classify_header); one merged rule keeps medspaCy's regex
    # matcher, which rebuilds the document text once per rule, from dominating the run time
    return SectionRule(literal=literal, category=internal, pattern=pattern, metadata={"section": section}, **kw)


def _classifier(headers: dict[str, list[str]]) -> re.Pattern[str]:
    groups = "|".join(f"(?P<{section}>{'|'.join(header_regex(p) for p in phrases)})"
                      for section, phrases in headers.items())
    return re.compile(rf"^[ \t]*(?:{groups})[ \t]*(?::|$)", re.IGNORECASE)


_CLASSIFIERS = {"discharge": _classifier(DISCHARGE_HEADERS), "radiology": _classifier(RADIOLOGY_HEADERS)}


def classify_header(header: str, kind: str) -> str:
    """Canonical section of a header matched by the merged rule of ``kind`` (discharge | radiology);
    ``other`` for a header-like line that no rule names."""
    m = _CLASSIFIERS[kind].match(header)
    return m.lastgroup if m and m.lastgroup else "other"


def discharge_rules() -> list[SectionRule]:
    plain = [p for s, phrases in DISCHARGE_HEADERS.items() if s != "physical_exam" for p in phrases]
    return [
        # every plain header and, as "other", any unrecognised header-like line (classify_header decides)
        _rule("discharge summary headers", "discharge_header",
              _line_header(plain, _COLON_OPTIONAL, DISCHARGE_HEADERS["physical_exam"] + _BARE_ADMISSION), None),
        # its own category: the parent of the bare "Admission:" sub-header
        _rule("physical exam header", "physical_exam", _line_header(DISCHARGE_HEADERS["physical_exam"]),
              "physical_exam"),
        _rule("bare admission exam sub-header", "physical_exam_admission_bare", _line_header(_BARE_ADMISSION),
              "physical_exam_admission", parents=["physical_exam"], parent_required=True),
        _rule("arrival sentence", "ed_course_sentence",
              rf"(?m)(?:^[ \t]*|(?<=[.!?] )|(?<=[.!?]  ))(?:{_ARRIVAL})", "ed_course"),
    ]


def radiology_rules() -> list[SectionRule]:
    phrases = [p for ps in RADIOLOGY_HEADERS.values() for p in ps]
    return [_rule("radiology report headers", "radiology_header", _line_header(phrases), None)]
