"""Section header rules (medspaCy ``SectionRule`` regexes) and the visibility policy of every section.

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

PATIENT, EXAM, NEVER = "patient", "exam", "never"

# section -> (visibility, reason). "patient": the simulated patient may tell it; "exam": returned as an
# examination result when ordered; "never": diagnosis-revealing, post-admission or administrative.
SECTION_POLICY: dict[str, tuple[str, str]] = {
    "preamble": (NEVER, "identifiers, dates and service before the first header"),
    "service": (NEVER, "the admitting service hints at the diagnosis"),
    "attending": (NEVER, "administrative"),
    "chief_complaint": (PATIENT, "the patient's reason for coming"),
    "hpi": (PATIENT, "history the patient can report (hospital events are cut off as ed_course)"),
    "pmh": (PATIENT, "history known before admission"),
    "social": (PATIENT, "history known before admission"),
    "family": (PATIENT, "history known before admission"),
    "allergies": (PATIENT, "known before admission"),
    "medications_on_admission": (PATIENT, "medications taken before admission"),
    "ros": (PATIENT, "symptoms the patient reports"),
    "ed_course": (NEVER, "ED/outside-hospital/arrival course: clinicians' findings, tests and treatment"),
    "procedures": (NEVER, "procedures done during the stay reveal diagnosis and treatment"),
    "physical_exam": (EXAM, "physical exam without admission/discharge sub-headers, taken as the admission exam"),
    "physical_exam_admission": (EXAM, "examination at presentation"),
    "physical_exam_discharge": (NEVER, "examination after treatment"),
    "pertinent_results": (NEVER, "results mixed with interpretations; structured results come from the EHR tables"),
    "hospital_course": (NEVER, "what happened after admission, names the diagnosis"),
    "assessment_plan": (NEVER, "clinicians' assessment names the diagnosis"),
    "medications": (NEVER, "medication list of unclear timing (may be discharge medications)"),
    "discharge_medications": (NEVER, "treatment chosen after diagnosis"),
    "discharge_disposition": (NEVER, "outcome after admission"),
    "discharge_diagnosis": (NEVER, "the diagnosis"),
    "discharge_condition": (NEVER, "outcome after admission"),
    "discharge_instructions": (NEVER, "written after diagnosis, names it"),
    "followup": (NEVER, "written after diagnosis"),
    "other": (NEVER, "unrecognised header: withheld (fail closed)"),
    # radiology reports
    "examination": (NEVER, "exam metadata, used only to name the imaging exam"),
    "indication": (NEVER, "names the suspected diagnosis"),
    "technique": (NEVER, "acquisition details"),
    "comparison": (NEVER, "prior studies"),
    "findings": (EXAM, "radiologist's description: the imaging result"),
    "impression": (NEVER, "radiologist's interpretation names diagnoses"),
    "recommendations": (NEVER, "interpretation and follow-up"),
}
SECTION_VISIBILITY: dict[str, str] = {name: vis for name, (vis, _) in SECTION_POLICY.items()}

DISCHARGE_HEADERS: dict[str, list[str]] = {
    "service": ["Service"],
    "attending": ["Attending"],
    "allergies": ["Allergies", "Allergy", "Drug Allergies", "Allergies/Adverse Drug Reactions", "Allergies/ADRs"],
    "chief_complaint": ["Chief Complaint", "CC", "Presenting Complaint", "Reason for Admission", "Chief Complaints"],
    "procedures": ["Major Surgical or Invasive Procedure", "Major Surgical or Invasive Procedures", "Procedures",
                   "Procedure", "Operations", "Invasive Procedures"],
    "hpi": ["History of Present Illness", "History of the Present Illness", "HPI", "Present Illness",
            "History of Presenting Illness"],
    "ed_course": ["ED Course", "Emergency Department Course", "ED Evaluation", "Course in the ED"],
    "pmh": ["Past Medical History", "PMH", "PMHx", "Past Medical/Surgical History", "Past Medical and Surgical History",
            "Past History", "Medical History", "Past Surgical History", "PSH", "PSHx", "Past Oncologic History",
            "Oncologic History", "Cardiac History", "Cardiac Risk Factors", "Other Past Medical History",
            "Past Psychiatric History"],
    "social": ["Social History", "SH", "SHx", "Social Hx"],
    "family": ["Family History", "FH", "FHx", "Family Hx"],
    "ros": ["Review of Systems", "ROS", "Review of Symptoms"],
    "medications_on_admission": ["Medications on Admission", "Admission Medications", "Home Medications",
                                 "Outpatient Medications", "Preadmission Medications", "Medications Prior to Admission",
                                 "Meds on Admission", "Home Meds", "Admission Meds", "Medications at Home"],
    "medications": ["Medications", "Meds", "Current Medications"],
    "physical_exam": ["Physical Exam", "Physical Examination", "PE", "Exam"],
    "physical_exam_admission": ["Admission Physical Exam", "Admission Physical Examination", "Admission Exam",
                                "Physical Exam on Admission", "Physical Examination on Admission", "Exam on Admission",
                                "Admission PE", "Admit Exam", "PE on Admission", "Admission Physical"],
    "physical_exam_discharge": ["Discharge Physical Exam", "Discharge Physical Examination", "Discharge Exam",
                                "Physical Exam on Discharge", "Physical Examination on Discharge", "Exam on Discharge",
                                "Discharge PE", "PE on Discharge", "Discharge Physical", "Exam at Discharge",
                                # bare sub-headers: always end the admission exam (see module docstring)
                                "Discharge", "On Discharge", "At Discharge", "Upon Discharge", "Day of Discharge"],
    "pertinent_results": ["Pertinent Results", "Pertinent Labs", "Labs", "Laboratory Data", "Laboratory Results",
                          "Admission Labs", "Discharge Labs", "Labs on Admission", "Labs on Discharge", "Studies",
                          "Imaging", "Microbiology", "Micro", "Pertinent Studies", "Data", "Results", "Imaging/Studies",
                          "Studies/Imaging"],
    "hospital_course": ["Brief Hospital Course", "Hospital Course", "Summary of Hospital Course", "Course",
                        "Hospital Course by Problem", "Transitional Issues", "Active Issues", "Chronic Issues",
                        "Acute Issues", "Brief Summary of Hospital Course", "Chronic/Stable Issues", "Acute/Active Issues",
                        "Active/Acute Issues", "Stable Issues"],
    "assessment_plan": ["Assessment and Plan", "Assessment & Plan", "Assessment/Plan", "A/P", "A&P", "Assessment",
                        "Plan", "Impression and Plan", "Impression", "Impression/Plan"],
    "discharge_medications": ["Discharge Medications", "Medications on Discharge", "Discharge Meds",
                              "Medications at Discharge"],
    "discharge_disposition": ["Discharge Disposition", "Disposition", "Facility"],
    "discharge_diagnosis": ["Discharge Diagnosis", "Discharge Diagnoses", "Final Diagnosis", "Final Diagnoses",
                            "Primary Diagnosis", "Secondary Diagnosis", "Primary Diagnoses", "Secondary Diagnoses", "Primary",
                            "Secondary",
                            "Diagnoses", "Diagnosis"],
    "discharge_condition": ["Discharge Condition", "Condition at Discharge", "Condition on Discharge"],
    "discharge_instructions": ["Discharge Instructions", "Instructions"],
    "followup": ["Followup Instructions", "Follow-up Instructions", "Follow up Instructions", "Followup",
                 "Follow-up", "Follow up", "Follow-up Appointments"],
}
# Exam sub-headers MIMIC writes alone on a line, sometimes without a colon.
_COLON_OPTIONAL = {"Admission Physical Exam", "Discharge Physical Exam", "Admission Physical Examination",
                   "Discharge Physical Examination", "Admission Exam", "Discharge Exam",
                   "Physical Exam on Admission", "Physical Exam on Discharge"}
# "Admission:" alone counts only inside a physical exam (parent rule); elsewhere it is lab/result text.
_BARE_ADMISSION = ["Admission", "On Admission", "At Admission", "Upon Admission", "Day of Admission"]
# A sentence that opens with one of these starts ed_course inside the HPI.
_ARRIVAL = (
    r"(?:in|at)\s+the\s+(?:___\s+)?(?:ED|emergency\s+(?:department|room)|ER|OSH|outside\s+hospital)\b"
    r"|(?:up)?on\s+(?:arrival|transfer|presentation)\s+(?:to|at|in)\s+(?:the\s+)?"
    r"(?:floor|ICU|CCU|MICU|SICU|ED|ER|___)\b"
    r"|on\s+the\s+floor\b|in\s+the\s+(?:ICU|CCU|MICU)\b"
    r"|(?:ED|ER|initial|triage|presenting)\s+(?:vitals|VS|vital\s+signs)\b|vitals\s+in\s+the\s+(?:ED|ER)\b"
)

RADIOLOGY_HEADERS: dict[str, list[str]] = {
    "examination": ["Examination", "Exam", "Study", "Procedure", "Exam Type"],
    "indication": ["Indication", "Indications", "Clinical Indication", "Reason for Exam", "Reason for Examination",
                   "Reason for Study", "History", "Clinical History", "Clinical Information", "Clinical Details"],
    "technique": ["Technique", "Protocol", "Dose", "Contrast"],
    "comparison": ["Comparison", "Comparisons", "Prior Studies"],
    "findings": ["Findings", "Finding", "Report"],
    # a combined "findings and impression" names diagnoses like an impression does
    "impression": ["Impression", "Impressions", "Conclusion", "Conclusions", "Summary", "Opinion", "Wet Read",
                   "Interpretation", "Findings and Impression", "Findings/Impression", "Impression and Findings"],
    "recommendations": ["Recommendation", "Recommendations", "Recommendation(s)", "Notification", "Communication",
                        "Addendum"],
}

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
    pattern = rf"(?m)^[ \t]*(?:(?:{'|'.join(with_colon)})[ \t]*:"
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
