"""Split a MedQA vignette into the opening presentation, patient history and examination findings.

Rules, in order (all character spans refer to the original question text):

1. **Stem**: the final question sentence ("Which of the following is the most likely
   diagnosis?") is removed, with anything after it; a condition it states ("If this patient is
   also found to have cricopharyngeal dysfunction, which ...") is kept as a finding.
2. **Blocks**: lines that read as a laboratory table row ("Hemoglobin 10 g/dL",
   "HBsAg positive", "Total 15 mg/dL" under a "Bilirubin" header) are parsed as lab results;
   a short line or a sentence ending in ":" just above them is their header (panel/specimen).
   Other lines are prose, split into sentences by spaCy's rule-based sentencizer.
3. **Presentation**: the first sentence naming the patient's age; the age/sex phrase and the
   reason for the visit ("because of chest pain") become the disclosed units; an embedded
   "with a history of ..." is moved to the hidden past history and measurements to findings.
4. **Sentence class**: a sentence is a *finding* when it holds a clinical measurement (a
   number with a clinical unit, a blood pressure, a saturation) or an examination/study cue
   ("On physical examination", "vital signs", "x-ray shows", "laboratory studies",
   "is palpable", "on auscultation") and no patient-report cue; *history* when it holds a
   patient-report cue ("reports", "has had", "history of", "takes", "smokes", relatives, time
   since onset) and no finding cue; *mixed* sentences are split into clauses at "; ", ", and",
   "but", "while" before a new subject and each clause is classified alone.  Sentences with
   neither cue follow the section they are in: history until the first finding sentence,
   findings after it (MedQA writes history, then examination, then studies).  A study dated in
   the past ("a Pap smear 2 years ago was normal") without a measurement is history.
5. Findings become :class:`~pipelines.medqa.findings.ExamItem` rows: each vital sign and
   numeric lab with its unit, each table row, and the remaining text of the sentence as one
   text finding named by the study or body system it describes.  History clauses get a
   category (:mod:`pipelines.medqa.history`) and a negation flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from pipelines.medqa import findings as fx
from pipelines.medqa.findings import ExamItem
from pipelines.medqa.history import categorise, negation_flags
from pipelines.medqa.text import ascii_fold


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class HistoryUnit:
    start: int
    end: int
    text: str
    category: str
    negated: bool
    disclosed: bool = False


@dataclass
class Vignette:
    age: int | None
    sex: str | None
    presentation: str | None
    presentation_span: tuple[int, int] | None
    chief_complaint: HistoryUnit | None
    demographic: HistoryUnit | None
    history: list[HistoryUnit] = field(default_factory=list)
    findings: list[ExamItem] = field(default_factory=list)
    stem: str = ""
    dropped: list[tuple[int, int, str]] = field(default_factory=list)  # spans not used, with why


# ------------------------------------------------------------------------------ demographics

_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
AGE = re.compile(
    r"\b(?P<n>\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|"
    r"seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen)[- ](?P<u>year|yr|month|week|day|hour)s?[- ]old\b",
    re.I,
)
_NEWBORN = re.compile(r"\b(?:newborn|neonate|infant|baby)\b", re.I)
_FEMALE = re.compile(r"\b(?:woman|women|female|girl|lady|mother|gravida|primigravida|multigravida|pregnant|"
                     r"primipara|multipara|G\d+\s?P\d+|postmenopausal|wife|daughter|sister|she|her)\b", re.I)
_MALE = re.compile(r"\b(?:man|men|male|boy|gentleman|father|husband|son|brother|he|him|his)\b", re.I)
_SEX_NOUN = re.compile(r"\b(?P<f>woman|female|girl|lady|primigravida|multigravida|gravida|G\d+\s?P\d+|daughter|"
                       r"granddaughter)\b|\b(?P<m>man|male|boy|gentleman|son|grandson)\b", re.I)


def _age_years(m: re.Match[str]) -> int:
    n = m.group("n").lower()
    if n.isdigit():
        value = int(n)
    else:
        value = sum(_WORD_NUMBERS.get(part, 0) for part in n.split("-"))
    return value if m.group("u").lower() in ("year", "yr") else 0


def patient_age_sex(question: str) -> tuple[int | None, str | None]:
    """Age in whole years (0 for infants) and sex (``F``/``M``) of the patient of a vignette.

    The sex word next to the age ("34-year-old woman", "4-week-old female newborn") decides;
    otherwise the majority of she/her against he/his pronouns in the vignette.
    """
    text = ascii_fold(question)
    m = AGE.search(text)
    age = _age_years(m) if m else (0 if _NEWBORN.search(text[:200]) else None)
    sex = None
    if m:
        window = text[m.end(): m.end() + 45]
        near = _SEX_NOUN.search(window) or _SEX_NOUN.search(text[max(0, m.start() - 40): m.start()])
        if near:
            sex = "F" if near.group("f") else "M"
    if sex is None:
        head = text[:300]
        near = _SEX_NOUN.search(head)
        if near:
            sex = "F" if near.group("f") else "M"
    if sex is None:
        f = len(re.findall(r"\b(?:she|her|hers|herself)\b", text, re.I))
        mm = len(re.findall(r"\b(?:he|him|his|himself)\b", text, re.I))
        if f != mm:
            sex = "F" if f > mm else "M"
    return age, sex


# -------------------------------------------------------------------------------- sentences


@cache
def _sentencizer():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def _sentences(text: str, offset: int) -> list[Clause]:
    doc = _sentencizer()(text)
    out = []
    for sent in doc.sents:
        s = sent.text.strip()
        if s:
            start = offset + sent.start_char + (len(sent.text) - len(sent.text.lstrip()))
            out.append(Clause(start, start + len(s), s))
    return _merge_fragments(out)


_ABBREVIATION_END = re.compile(r"\b(?:Dr|vs|approx|Mr|Mrs|Ms|St|No|e\.g|i\.e|ca|Jr|Sr)\.$")
_MISSED_BREAK = re.compile(r"(?<=[a-z0-9%)\]/])\.\s+(?=[A-Z](?:[a-z]|\s))")


def _merge_fragments(sents: list[Clause]) -> list[Clause]:
    """Rejoin sentences the sentencizer cut after abbreviations ("Dr.", "vs.", "approx."), and
    cut where it missed a break after a unit token ("2,000 IU/L. A panel ...")."""
    split: list[Clause] = []
    for s in sents:
        pos = 0
        for m in _MISSED_BREAK.finditer(s.text):
            if _ABBREVIATION_END.search(s.text[: m.start() + 1]):
                continue
            split.append(Clause(s.start + pos, s.start + m.start() + 1, s.text[pos: m.start() + 1]))
            pos = m.end()
        split.append(Clause(s.start + pos, s.end, s.text[pos:]))
    merged: list[Clause] = []
    for s in split:
        if merged and (_ABBREVIATION_END.search(merged[-1].text) or s.text[:1].islower()):
            prev = merged.pop()
            merged.append(Clause(prev.start, s.end, prev.text + " " + s.text))
        else:
            merged.append(s)
    return merged


_STEM_CONDITION = re.compile(r"(?:If|Given that|Assuming that|Assuming)\s+(.+?),\s+(?:which|what|how)\b", re.I)
_STEM_START = re.compile(r"(?:[.!?][\"')\]]?\s+|\n)(?=[\"'(]?[A-Z0-9])")


def stem_span(question: str) -> tuple[int, int]:
    """Span of the final question sentence (to the end of the text)."""
    text = question.rstrip()
    end = text.rfind("?")
    if end < 0:  # some stems end in a colon ("... would most likely reveal:")
        end = len(text) - 1
    starts = [m.end() for m in _STEM_START.finditer(text, 0, end)]
    return (starts[-1] if starts else 0), len(question)


# ------------------------------------------------------------------------- classification cues

_EXAM_CUE = re.compile(
    r"\b(?:physical|pelvic|rectal|neurologic(?:al)?|cardiac|cardiovascular|abdominal|pulmonary|cardiopulmonary|"
    r"skin|ophthalmologic|ophthalmic|fundoscopic|funduscopic|otoscopic|mental status|musculoskeletal|genital|"
    r"breast|speculum|bimanual|eye|chest|lung|head and neck|HEENT|oral|throat|dermatologic|joint|"
    r"slit[- ]lamp|digital rectal|testicular|scrotal|neck|thyroid|lymph node|general)?\s*exam(?:ination)?s?\b"
    r"|\bon (?:exam|examination|auscultation|palpation|inspection|percussion|arrival|admission)\b"
    r"|\bvital signs?\b|\bafebrile\b|\bauscultat\w*|\bpalpat\w*|\bpercussion\b|\bis (?:palpable|palpated|tender)\b"
    r"|\bare (?:palpable|palpated|tender)\b|\btender(?:ness)? (?:to|on|in|over)\b|\btenderness\b|\bmurmur\b"
    r"|\b(?:crackles|rales|rhonchi|wheezes|wheezing|bruit|gallop|rub)\b|\bdecreased breath sounds\b"
    r"|\b(?:is|are|was|were) (?:noted|seen|heard|observed|present|found|elicited|visualized|appreciated)\b"
    r"|\bappears?\b|\bappearing\b|\bGlasgow\b|\bBMI\b|\bbody mass index\b|\bpercentile\b"
    r"|\breflexes\b|\bbabinski\b|\bmuscle strength\b|\bstrength is\b|\brange of motion\b|\bgait is\b"
    r"|\bpupils?\b|\bfundus\b|\bpapilledema\b|\bscleral icterus\b|\bconjunctival pallor\b"
    r"|\b(?:is|are|appears|looks|seems) (?:now )?(?:alert|awake|disoriented|oriented|lethargic|obtunded|stuporous|"
    r"somnolent|drowsy|agitated|combative|diaphoretic|pale|cachectic|unresponsive|comatose|tachypneic|cyanotic|"
    r"jaundiced|afebrile|febrile|well-appearing|ill-appearing|in (?:no |mild |moderate |severe )?(?:acute )?"
    r"(?:respiratory )?distress)\b|\b(?:warm|cool|cold|dry|moist|clammy) to (?:the )?touch\b|\bto palpation\b"
    r"|\bthere (?:is|are) (?:a |an )?(?:[\w,-]+ ){0,5}(?:area|lesion|mass|rash|swelling|erythema|induration|nodule|"
    r"ulcer|papule|vesicle|plaque|wound|tenderness|effusion|bruis\w*|ecchymos\w*|petechiae|deformity|discharge)\b",
    re.I,
)
_STUDY_CUE = re.compile(
    r"\blaborator\w*|\blabs?\b|\bserum\b|\bplasma\b|\bblood (?:count|smear|culture|cultures|test|tests|work|studies|"
    r"analysis|gas|film|level|levels)\b|\bCBC\b|\burinalysis\b|\burine (?:studies|test|culture|analysis|dipstick|"
    r"toxicology|drug screen|pregnancy test|microscopy)\b|\bculture\b|\bgram stain\b|\bsmear\b|\bbiops\w*|"
    r"\bhistolog\w*|\bpatholog\w*|\bcytolog\w*|\bspecimen\b|\baspirat\w*|x-ray|\bxray\b|radiograph\w*|\bCT\b|"
    r"computed tomograph\w*|\bMRI\b|magnetic resonance|ultraso\w*|sonogra\w*|echocardiogra\w*|angiogra\w*|"
    r"\bscan\b|mammogra\w*|endoscop\w*|colonoscop\w*|bronchoscop\w*|esophagram|\bbarium\b|fluorosc\w*|\bdoppler\b|"
    r"\bimaging\b|\bECG\b|\bEKG\b|electrocardiogra\w*|\bEEG\b|electroencephalogra\w*|\bEMG\b|electromyogra\w*|"
    r"nerve conduction|spirometr\w*|pulmonary function|lumbar puncture|cerebrospinal|\bCSF\b|arterial blood gas|"
    r"\bABG\b|\btiters?\b|\bassay\b|\bantibod\w*|\bantigen\b|\bPCR\b|serolog\w*|\bkaryotyp\w*|\bpanel\b|"
    r"\b(?:test|tests|study|studies|evaluation|analysis|workup|work-up|screen|screening)\s+(?:is|are|was|were|shows?|showed|"
    r"reveals?|revealed|demonstrates?|demonstrated|confirms?|returns?|returned|results?)\b|"
    r"\b(?:shows?|showed|reveals?|revealed|demonstrates?|demonstrated|is notable for|is remarkable for|"
    r"is significant for|are notable for)\b|\blevels?\b|\bconcentrations?\b|\bcounts?\b|\bmeasure(?:ment|ments|d)\b",
    re.I,
)
_HISTORY_CUE = re.compile(
    r"\b(?:reports?|reported|reporting|states?|stated|says|said|complain\w*|describes?|described|denies|denied|"
    r"endorses?|endorsed|admits|admitted|mentions?|mentioned|recalls|noticed|notices|has noticed|feels|felt|"
    r"has had|had had|history of|medical history|past history|surgical history|family history|social history|"
    r"takes|took|is taking|was taking|medications?|prescribed|was started|started|began|stopped|quit|"
    r"drinks|drank|smokes|smoked|smoking|smoker|alcohol|illicit|pack-years?|works as|works at|works in|"
    r"lives|lived|returned from|traveled|travelled|trip|immigrated|emigrated|moved from|was born|born at|"
    r"vaccinat\w*|immuniz\w*|menarche|menstrua\w*|last menstrual|periods?|sexually active|sexual partners?|"
    r"condoms?|contracepti\w*|allerg\w*|surgery|surgeries|underwent|undergone|was diagnosed|diagnosed with|"
    r"was hospitalized|was admitted|since|for the past|over the past|during the past|ago|episodes?|"
    r"mother|father|sister|brother|sibling|parents?|grandmother|grandfather|husband|wife|partner|"
    r"son|daughter|uncle|aunt|cousin|friend|friends|coworkers?|boyfriend|girlfriend|diet|eats|exercises?|"
    r"sleep|sleeps|weight (?:loss|gain)|lost \d|gained \d|appetite|worried|concerned|pregnancy|pregnancies|"
    r"gravida|para\b|gestation|delivered|delivery|breastfe\w*|formula|school|job|retired|unemployed|"
    r"incarcerat\w*|homeless|married|divorced|widowed|unable to|cannot|could not|has not been able|"
    r"uses?|using|used to|tried|has tried|applies|applied)\b",
    re.I,
)
_PAST_STUDY = re.compile(r"\b(?:ago|last year|previous(?:ly)?|prior|in the past|at age|as a child|years? before)\b", re.I)
_MEDIA = re.compile(r"\b(?:is|are) shown\b|\bshown (?:below|above|in the)\b|\b(?:photograph|image|figure|illustration|"
                    r"graph|diagram|table)\b[^.]*\b(?:shown|below|above|following)\b", re.I)
_CLAUSE_SPLIT = re.compile(
    r";\s+|,?\s+(?:and|but|while|whereas|although|though)\s+(?=(?:she|he|they|her|his|their|the|there|on|a|an|it|"
    r"physical|examination|vital|laboratory|blood|temperature|pulse|serum|urine|x-ray|an? \w+ (?:shows|reveals)|"
    r"(?:is|was|has|had|takes|took|reports|denies|drinks|smokes|smoked|uses|used|works|lives|underwent|"
    r"(?:is|was) (?:currently |also )?(?:taking|on)))\b)"
    r"|,\s+(?=(?:and )?(?:her|his|the patient's|their) (?:temperature|pulse|blood pressure|respirations|heart rate|"
    r"respiratory rate|oxygen saturation|BMI|weight|height)\b)",
    re.I,
)
_HEADER_LINE = re.compile(r"^[A-Za-z][A-Za-z ,()/&'-]{1,50}:?$")


def _measurement(text: str) -> bool:
    return bool(fx.MEASUREMENT.search(ascii_fold(text)))


def _label(text: str) -> str:
    """finding | history | mixed | neutral for one sentence or clause."""
    folded = ascii_fold(text)
    measured = _measurement(folded)
    exam = bool(_EXAM_CUE.search(folded))
    study = bool(_STUDY_CUE.search(folded))
    history = bool(_HISTORY_CUE.search(folded))
    if study and not measured and not exam and _PAST_STUDY.search(folded):
        return "history"
    if measured or exam or study:
        return "mixed" if history else "finding"
    return "history" if history else "neutral"


def _atomic(sentence: Clause) -> list[Clause]:
    """A history sentence as separate facts where it joins full clauses ("..., and is taking X")."""
    parts = _clauses(sentence)
    if len(parts) > 1 and all(len(p.text.split()) >= 3 for p in parts):
        return parts
    return [sentence]


def _clauses(sentence: Clause) -> list[Clause]:
    parts: list[Clause] = []
    pos = 0
    for m in _CLAUSE_SPLIT.finditer(sentence.text):
        piece = sentence.text[pos: m.start()]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            parts.append(Clause(sentence.start + pos + lead, sentence.start + m.start(), piece.strip()))
        pos = m.end()
    tail = sentence.text[pos:]
    if tail.strip():
        lead = len(tail) - len(tail.lstrip())
        parts.append(Clause(sentence.start + pos + lead, sentence.end, tail.strip()))
    return parts or [sentence]


# ------------------------------------------------------------------------------ presentation

_CC = re.compile(
    r"\b(?:because of|complaining of|complains of|with (?:a |the |an? )?(?:chief )?complaints? of|for (?:evaluation|assessment|"
    r"workup|treatment|management|follow-up|a follow-up (?:visit|examination)|an evaluation) (?:of|for)|due to|"
    r"with concerns? (?:about|of|for|over)|after|following|for|with)\s+(?P<cc>.+?)\s*[.]?$",
    re.I,
)
_TIMELINE = re.compile(r"\b(?:\d+|a|an|one|two|three|several)[- ](?:hour|day|week|month|year)s?[- ]history\b|"
                       r"\b(?:for|since|over) (?:the past )?\d", re.I)


def _embedded_history(text: str) -> tuple[int, int] | None:
    """Span of a "with ..." / "who ..." phrase between the patient and the visit verb
    ("A 71-year-old woman with type 2 diabetes mellitus and hypertension comes ...")."""
    age = AGE.search(text)
    verb = _VISIT_VERB.search(text, age.end() if age else 0)
    if not age or not verb:
        return None
    m = re.search(r",?\s+(?:with|who)\s", text[age.end(): verb.start()])
    if not m:
        return None
    return age.end() + m.start(), verb.start()


_VISIT_VERB = re.compile(
    r"\b(?:comes?|came|presents?|presented|is brought|was brought|is admitted|was admitted|is evaluated|is seen|"
    r"visits|is referred|arrives|returns|calls|develops|has|reports|complains|is found)\b",
    re.I,
)


def _presentation(sentence: Clause, question: str, age: int | None, sex: str | None,
                  ) -> tuple[str, HistoryUnit | None, HistoryUnit | None, list[HistoryUnit], list[Clause]]:
    """(presentation text, demographic unit, chief-complaint unit, moved history units, finding clauses)."""
    moved: list[HistoryUnit] = []
    finding_clauses: list[Clause] = []
    kept: list[Clause] = []
    for clause in _clauses(sentence):
        if _measurement(clause.text) or (kept and _label(clause.text) == "finding"):
            finding_clauses.append(clause)
        else:
            kept.append(clause)
    text = question[kept[0].start: kept[-1].end] if kept else sentence.text
    start = kept[0].start if kept else sentence.start
    emb = _embedded_history(text)
    if emb:
        s0, e0 = emb
        inner = text[s0:e0].strip(" ,")
        inner_start = start + s0 + (len(text[s0:e0]) - len(text[s0:e0].lstrip(" ,")))
        pronoun = {"F": "She", "M": "He"}.get(sex or "", "The patient")
        said = re.sub(r"^with\s+", f"{pronoun} has ", inner)
        said = re.sub(r"^who\s+", f"{pronoun} ", said)
        category = categorise(said)
        moved.append(HistoryUnit(inner_start, inner_start + len(inner), said,
                                 "pmh" if category == "hpi" and not _TIMELINE.search(said) else category, False))
        text = " ".join((text[:s0].rstrip(" ,") + " " + text[e0:].lstrip(" ,")).split())
    text = text.rstrip(" ,;") + ("" if text.rstrip().endswith((".", "?", "!")) else ".")
    demographic = None
    m = AGE.search(question, sentence.start, sentence.end)
    if m:
        noun = _SEX_NOUN.search(question, m.end(), min(sentence.end, m.end() + 45))
        end = noun.end() if noun else m.end()
        phrase = question[m.start(): end]
        demographic = HistoryUnit(m.start(), end, phrase, "demographic", False, True)
    cc = None
    after_verb = _VISIT_VERB.search(text)
    complains = re.search(r"\bcomplains? of\s+", text)
    cc_match = (re.search(r"\bcomplains? of\s+(?P<cc>.+?)\s*[.]?$", text) if complains
                else _CC.search(text, after_verb.end() if after_verb else 0))
    if cc_match:
        cc_text = cc_match.group("cc").strip(" ,.")
        cc_start = question.find(cc_text, sentence.start, sentence.end + 1)
        if cc_text and cc_start >= 0:
            cc = HistoryUnit(cc_start, cc_start + len(cc_text), cc_text, "chief_complaint", False, True)
    if cc is None:
        cc = HistoryUnit(start, start + len(text), text.rstrip("."), "chief_complaint", False, True)
    return text, demographic, cc, moved, finding_clauses


# ------------------------------------------------------------------------------------ blocks

_TABLE_VALUE = re.compile(
    rf"(?:^|[\s:])(?:{fx.NUMBER})(?:\s?(?:-|–|to)\s?\d+(?:\.\d+)?)?(?:\s?\S+)?\s*(?:\(.*\))?\s*(?:N:.*)?$|"
    r"(?:^|[\s:])(?:positive|negative|normal|abnormal|none|trace|absent|present|reactive|nonreactive|non-reactive|"
    r"no growth|not detected|detected|within normal limits|elevated|clear|cloudy|turbid|yellow|amber|straw|"
    r"[1-4]\+|few|many|rare|occasional|numerous|moderate|large|small)\b[^.]{0,30}$",
    re.I,
)


def _is_table_row(line: str) -> bool:
    s = ascii_fold(line).strip()
    if not s or len(s) > 90 or s.endswith((".", "?")) or re.search(r"\.\s+[A-Z]", s):
        return False
    if len(re.findall(r"\b(?:is|are|was|were|shows?|reveals?|has|had)\b", s)) > 0 and len(s.split()) > 6:
        return False
    return bool(_TABLE_VALUE.search(s)) and bool(re.match(r"^[A-Za-z(%αβγ]", s))


@dataclass(frozen=True)
class _Line:
    start: int
    end: int
    text: str


def _lines(text: str, limit: int) -> list[_Line]:
    out = []
    pos = 0
    for raw in text[:limit].split("\n"):
        stripped = raw.strip()
        if stripped:
            lead = len(raw) - len(raw.lstrip())
            out.append(_Line(pos + lead, pos + lead + len(stripped), stripped))
        pos += len(raw) + 1
    return out


# ------------------------------------------------------------------------------------- split


def _opening(lines: list[_Line], question: str) -> int | None:
    """Start of the presentation sentence: the first of the first three sentences naming an age."""
    seen = 0
    for line in lines:
        for sent in _sentences(line.text, line.start):
            if AGE.search(question, sent.start, sent.end):
                return sent.start
            seen += 1
            if seen >= 3:
                return None
    return None


def split_vignette(question: str) -> Vignette:
    """Presentation, history units and exam findings of one MedQA question (see module doc)."""
    age, sex = patient_age_sex(question)
    stem_start, _ = stem_span(question)
    vignette = Vignette(age, sex, None, None, None, None, stem=question[stem_start:].strip())
    lines = _lines(question, stem_start)

    history_clauses: list[Clause] = []
    presented: list[HistoryUnit] = []  # history moved out of the presentation sentence
    finding_sentences: list[tuple[Clause, str | None]] = []  # (clause, specimen context)
    in_findings = False
    presentation_done = False
    header: str | None = None
    specimen: str | None = None

    opening = _opening(lines, question)
    for i, line in enumerate(lines):
        next_is_row = i + 1 < len(lines) and _is_table_row(lines[i + 1].text)
        if presentation_done and _is_table_row(line.text):
            item = fx.table_row(line.text, line.start, header, specimen, sex, age)
            if item is not None:
                vignette.findings.append(item)
                in_findings = True
                continue
        if presentation_done and next_is_row and _HEADER_LINE.match(line.text.strip()) and len(line.text) <= 50:
            header = line.text.strip(" :")
            specimen = fx.specimen_of(header) or specimen
            in_findings = True
            continue
        sentences = _sentences(line.text, line.start)
        for j, sent in enumerate(sentences):
            last = j == len(sentences) - 1
            if last and next_is_row and sent.text.rstrip().endswith(":") and presentation_done:
                header = sent.text.strip(" :")
                specimen = fx.specimen_of(sent.text)
                in_findings = True
                if not _measurement(sent.text):
                    continue
            if not presentation_done:
                if opening is not None and sent.start < opening:
                    vignette.dropped.append((sent.start, sent.end, "scene-setting before the presentation"))
                    continue
                text, demo, cc, moved, fclauses = _presentation(sent, question, age, sex)
                vignette.presentation = text
                vignette.presentation_span = (sent.start, sent.end)
                vignette.demographic, vignette.chief_complaint = demo, cc
                presented.extend(moved)
                finding_sentences.extend((c, None) for c in fclauses)
                presentation_done = True
                continue
            if _MEDIA.search(sent.text):
                vignette.dropped.append((sent.start, sent.end, "refers to an image the text does not contain"))
                continue
            label = _label(sent.text)
            if label == "neutral":
                label = "finding" if in_findings else "history"
            if label == "finding":
                finding_sentences.append((sent, fx.specimen_of(sent.text) or None))
                in_findings = True
                continue
            if label == "history":
                history_clauses.extend(_atomic(sent))
                continue
            previous = "history"
            for clause in _clauses(sent):
                clabel = _label(clause.text)
                if clabel == "mixed":
                    folded = ascii_fold(clause.text)
                    strong = (_measurement(clause.text) or _EXAM_CUE.search(folded)
                              or (_STUDY_CUE.search(folded) and not _PAST_STUDY.search(folded)))
                    clabel = "finding" if strong else "history"
                if clabel == "neutral":
                    clabel = previous
                if clabel == "finding":
                    finding_sentences.append((clause, fx.specimen_of(clause.text)))
                    in_findings = True
                else:
                    history_clauses.append(clause)
                previous = clabel

    conditional = _STEM_CONDITION.match(question, stem_start)
    if conditional:  # "If this patient is also found to have X, which ..." states a finding
        finding_sentences.append((Clause(conditional.start(1), conditional.end(1), conditional.group(1)), None))
    for clause, spec in finding_sentences:
        vignette.findings.extend(finding_items(clause, spec, sex, age))
    vignette.findings.sort(key=lambda it: it.start)
    vignette.history = sorted([*presented, *_history_units(history_clauses)], key=lambda u: u.start)
    return vignette


def finding_items(clause: Clause, specimen: str | None, sex: str | None, age: int | None) -> list[ExamItem]:
    """Vitals, numeric labs and the remaining text of one finding sentence or clause.

    The text finding keeps only the parts of the sentence that carry no measurement ("..., and
    she has severe acne over the cheeks"), so values are not repeated as text.
    """
    folded = ascii_fold(clause.text)
    text = folded if len(folded) == len(clause.text) else clause.text  # keep offsets exact
    items, used = fx.vitals(text, clause.start, sex, age)
    items += fx.lab_values(text, clause.start, used, specimen, sex, age)
    spans = [(it.start, it.end) for it in items]
    parts = [c for c in _clauses(clause) if not any(c.start < e and s < c.end for s, e in spans)]
    parts = [c for c in parts if _remainder(c.text) and not c.text.rstrip().endswith(":")]
    if parts:
        value = " ".join(_tidy_part(c.text) for c in parts)
        named = fx.study_name(parts[0].text)
        if named:
            name, kind = named
        else:
            name = fx.exam_system(value)
            kind = "vital" if name == "Vital signs" else "physical_exam"
        default = True if kind != "lab" else None
        items.append(ExamItem(name, kind, name, parts[0].start, parts[-1].end, None, value,
                              None, None, None, fx.flag_text(value, default)))
    return items


def _tidy_part(text: str) -> str:
    text = re.sub(r"^(?:and|but|or|while|whereas|although|though)\s+", "", text.strip(), flags=re.I)
    text = text.rstrip(" ,;")
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ":", "?", "!")) else ".")


_FILLER = re.compile(
    r"\b(?:on|upon|physical|examination|exam|shows?|showed|reveals?|revealed|is|are|was|were|her|his|the|a|an|and|"
    r"of|with|at|in|to|vital|signs|include|includes|following|as|follows|notable|remarkable|for|significant|"
    r"laboratory|studies|study|results|serum|blood|level|levels|concentration|mm|hg|min|she|he|has|had|"
    r"temperature|pulse|respirations|respiratory|rate|pressure|heart|oxygen|saturation|room|air|bmi|body|mass|"
    r"index|weight|height|kg|cm|lb|ft|in|today|currently|now|this|these|there|that|which|mg|dl|l|meq|mmol)\b",
    re.I,
)


def _remainder(text: str) -> str:
    """What a finding clause says besides filler words (empty when nothing is left)."""
    rest = re.sub(r"\([^)]*\)", " ", text)
    rest = _FILLER.sub(" ", rest)
    words = re.findall(r"[A-Za-z]{3,}", rest)
    return " ".join(words) if len(words) >= 1 else ""


def _history_units(clauses: list[Clause]) -> list[HistoryUnit]:
    clauses = [c for c in clauses if re.search(r"[A-Za-z]{2}", c.text)]
    if not clauses:
        return []
    texts = [c.text for c in clauses]
    units = []
    for c, neg in zip(clauses, negation_flags(texts)):
        text = re.sub(r"^(?:and|but|or|while|whereas|although|though)\s+", "", c.text.strip(), flags=re.I)
        text = text.rstrip(" ,;")
        units.append(HistoryUnit(c.start, c.end, text, categorise(text, neg), neg))
    return units
