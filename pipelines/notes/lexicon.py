"""Word lists of the note path, from ``lexicon.yaml`` beside this module (checked on load).

Abbreviation expansions, exam body systems, finding vocabulary, imaging exam names and the
sentence/list cues of the unit splitter are data: extending them changes no code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.datafiles import Record, yaml_record

_LEXICON = yaml_record(__package__, "lexicon.yaml", (
    "abbreviations", "exam_systems", "vital_labels", "abnormal_findings", "normal_findings", "imaging_modalities",
    "imaging_body_parts", "ecg_mentions", "period_abbreviations", "continuation_words", "encounter_events",
    "history_cues", "context_pseudo",
), text=True)


def _labels_by_system() -> dict[str, str]:
    labels: dict[str, str] = {}
    for system, names in _LEXICON.text_groups("exam_systems", distinct=True).items():
        for label in names:
            if labels.setdefault(label, system) != system:
                raise _LEXICON.error(f"exam_systems.{system}", f"label {label!r} is also under {labels[label]!r}")
    return labels


@dataclass(frozen=True)
class EncounterReason:
    """One reason an HPI clause is about the encounter (``encounter_events`` in lexicon.yaml)."""

    name: str
    yields_to_history: bool
    patterns: tuple[str, ...]


def _regexes(record: Record, field: str) -> tuple[str, ...]:
    """The list ``field`` of ``record``, every item checked to be a valid regex."""
    patterns = record.texts(field, distinct=True)
    for i, pattern in enumerate(patterns):
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise record.error(f"{field}[{i}]", f"not a valid regular expression ({exc})") from None
    return patterns


def _encounter_reasons() -> tuple[EncounterReason, ...]:
    reasons = []
    for name, record in _LEXICON.records("encounter_events", ("yields_to_history", "patterns")).items():
        reasons.append(EncounterReason(name, record.flag("yields_to_history"), _regexes(record, "patterns")))
    return tuple(reasons)


def _patterns(section: str) -> list[tuple[str, str]]:
    patterns = _LEXICON.text_mapping(section)
    for name in patterns:
        _LEXICON.sub(section).regex(name)
    return list(patterns.items())


# Clinical shorthand -> readable text (whole words, case as written).
ABBREVIATIONS: dict[str, str] = _LEXICON.text_mapping("abbreviations")
# Physical exam line label (lower case, without the colon) -> exam_name of the body system.
EXAM_SYSTEMS: dict[str, str] = _labels_by_system()
VITAL_LABELS = frozenset(_LEXICON.texts("vital_labels", distinct=True))
# TargetMatcher phrases: ABNORMAL findings, and NORMAL wording that must win over an abnormal word inside it.
ABNORMAL_FINDINGS: list[str] = [
    p for group in _LEXICON.text_groups("abnormal_findings", distinct=True).values() for p in group]
NORMAL_FINDINGS: list[str] = list(_LEXICON.texts("normal_findings", distinct=True))
# (name, pattern) of radiology exam titles, in the order they are tried.
IMAGING_MODALITIES = _patterns("imaging_modalities")
IMAGING_BODY_PARTS = _patterns("imaging_body_parts")
ECG_MENTIONS: tuple[str, ...] = _LEXICON.texts("ecg_mentions", distinct=True)
PERIOD_ABBREVIATIONS: tuple[str, ...] = _LEXICON.texts("period_abbreviations", distinct=True)
CONTINUATION_WORDS = frozenset(_LEXICON.texts("continuation_words", distinct=True))
# HPI clauses about the encounter (ED course, treatment, procedures, results) and the cues that
# make a clause the patient's history after all; regexes for a medspaCy TargetMatcher.
ENCOUNTER_REASONS = _encounter_reasons()
HISTORY_CUES: tuple[str, ...] = _regexes(_LEXICON, "history_cues")
# ConText PSEUDO modifiers: phrases holding a negation trigger that negate nothing ("free T4").
CONTEXT_PSEUDO: tuple[str, ...] = _LEXICON.texts("context_pseudo", distinct=True)

_ABBREV_RE = re.compile(
    r"(?<![\w/])(" + "|".join(re.escape(k) for k in sorted(ABBREVIATIONS, key=len, reverse=True)) + r")(?![\w/])"
)
_DURATION_RE = re.compile(r"(?<!\w)[xX] ?(\d+(?:\.\d+)?) ?(days?|d|weeks?|wks?|months?|mos?|hours?|hrs?|years?|yrs?)\b")
_DURATION_UNITS = {"d": "days", "wk": "weeks", "wks": "weeks", "mo": "months", "mos": "months", "hr": "hours",
                   "hrs": "hours", "yr": "years", "yrs": "years"}
_HONORIFIC_RE = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx)\.? +_{2,}")


def expand(text: str) -> str:
    """Readable text: shorthand expanded, "x2 days" -> "for 2 days", "Mr. ___" -> "the patient"."""
    text = _HONORIFIC_RE.sub("the patient", text)
    text = _DURATION_RE.sub(lambda m: f"for {m.group(1)} {_DURATION_UNITS.get(m.group(2).lower(), m.group(2))}", text)
    return _ABBREV_RE.sub(lambda m: ABBREVIATIONS[m.group(1)], text)
