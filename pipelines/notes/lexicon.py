"""Word lists of the note path, from ``lexicon.yaml`` beside this module (checked on load).

Abbreviation expansions, exam body systems, finding vocabulary, imaging exam names and the
sentence/list cues of the unit splitter are data: extending them changes no code.
"""

from __future__ import annotations

import re

from pipelines.datafiles import yaml_record

_LEXICON = yaml_record(__package__, "lexicon.yaml", (
    "abbreviations", "exam_systems", "vital_labels", "abnormal_findings", "normal_findings", "imaging_modalities",
    "imaging_body_parts", "period_abbreviations", "continuation_words",
), text=True)


def _labels_by_system() -> dict[str, str]:
    labels: dict[str, str] = {}
    for system, names in _LEXICON.text_groups("exam_systems", distinct=True).items():
        for label in names:
            if labels.setdefault(label, system) != system:
                raise _LEXICON.error(f"exam_systems.{system}", f"label {label!r} is also under {labels[label]!r}")
    return labels


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
PERIOD_ABBREVIATIONS: tuple[str, ...] = _LEXICON.texts("period_abbreviations", distinct=True)
CONTINUATION_WORDS = frozenset(_LEXICON.texts("continuation_words", distinct=True))

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
