"""Map a MedQA answer (free text) to a diagnosis name, acceptable names and an ICD-10-CM code.

Order of evidence (first hit wins; ``confidence`` says how strong it is):

1. ``diagnosis_synonyms.csv`` (shipped with this package): one row per concept, ``icd10`` and
   ``names`` (``|``-separated; the first is the display name).  It holds what ICD-10-CM titles
   do not say the USMLE way: eponyms (Kawasaki disease -> M30.3), abbreviations (PCOS),
   modern names (granulomatosis with polyangiitis -> M31.3), generic answers whose ICD title
   is a subdivision (acute pancreatitis -> K85.90).  Exact normalised match: 0.98.
2. The ICD-10-CM titles and inclusion terms of ``simple-icd-10-cm`` (every code up to six
   characters, normalised; bracketed eponyms and parenthesised words also indexed without
   the brackets).  Exact match: 0.95 for a title, 0.92 for an inclusion term.  When several
   codes share the text the shortest (category-level) code wins, so a generic answer gets a
   generic code.
3. Token overlap with the same index: idf-weighted Jaccard between the answer's content
   words and an entry's (adjectives folded onto organs, "carcinoma/cancer" onto "malignant
   neoplasm", ``without ...`` clauses and laterality/encounter words ignored).  Confidence =
   0.9 x overlap.

``CREDIBLE`` (0.70) is the documented threshold: below it ``icd10`` is ``None`` and ``reason``
says what the best candidate was.  It was chosen on the synonym table itself: with the table
disabled, every (non-abbreviation) synonym-table name was mapped by tiers 2-3 and the
candidate's 3-character category compared with the table's.  Token-overlap matches at or
above 0.70 had the right category ~86% of the time (0.60: 83%, 0.80: 90%, below 0.60: under
70%), so 0.70 keeps most answers while a wrong code stays rare;
tests/medqa/test_medqa_answer_icd.py re-runs this check on a sample.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

from pipelines.datafiles import csv_records, yaml_record
from pipelines.icd import icd10cm
from pipelines.medqa.text import ascii_fold, is_abbreviation, norm

CREDIBLE = 0.70
SYNONYM_FILE = "diagnosis_synonyms.csv"
_ICD10_SHAPE = re.compile(r"[A-Z][0-9][0-9A-Z](?:\.[0-9A-Z]{1,4})?")

_CONF_SYNONYM = 0.98
_CONF_SYNONYM_VARIANT = 0.93
_CONF_TITLE = 0.95
_CONF_INCLUSION = 0.92
_FUZZY_SCALE = 0.9
_VARIANT_PENALTY = 0.95  # a match on a shortened form of the answer is a little less sure


@dataclass(frozen=True)
class AnswerMapping:
    diagnosis_name: str
    acceptable_names: list[str]
    icd10: str | None  # dotted ICD-10-CM code, None when no credible mapping
    confidence: float  # 0..1, strength of the best match (also when below CREDIBLE)
    reason: str
    title: str | None = None  # ICD-10-CM title of icd10
    candidate: str | None = None  # best code found, kept even when not credible

    @property
    def origin(self) -> str:
        return "text_match" if self.icd10 else "unmapped"

    @property
    def category(self) -> str | None:
        return self.icd10[:3] if self.icd10 else None


# --------------------------------------------------------------------------- names


def clean_name(answer: str) -> str:
    """Display form of an answer: whitespace collapsed, quotes/dashes ASCII, trailing dot off."""
    text = ascii_fold(answer).replace('"', "").strip()
    text = " ".join(text.split())
    return text.rstrip(" .;:")


_PAREN = re.compile(r"\s*\(([^()]*)\)")
_ALSO = re.compile(r",?\s*(?:also known as|aka|or|i\.e\.)\s+", re.I)
_CAUSAL = re.compile(r"\s+(?:due to|secondary to|caused by|associated with|induced by|from)\s+.*$", re.I)
_QUALIFIER = re.compile(
    r"^(?:(?:acute|chronic|subacute|primary|secondary|idiopathic|congenital|hereditary|familial|recurrent|"
    r"severe|mild|moderate|early|late|classic|classical|typical|atypical|isolated|exertional|decompensated|"
    r"compensated|uncomplicated|complicated|symptomatic|asymptomatic|advanced|refractory|progressive|"
    r"massive|partial|complete|new-onset|worsening|bleeding|ruptured|perforated|infected|bilateral|"
    r"unilateral|left-sided|right-sided|left|right)\s+)+",
    re.I,
)
_WITH_TAIL = re.compile(r"\s+(?:with|without|in|of the|on)\s+.*$", re.I)


def equivalent_names(answer: str) -> list[str]:
    """Forms of the answer that name the same thing: as written, without a trailing
    parenthesis, the parenthesis itself (``"... syndrome (PCOS)"`` -> ``"PCOS"``), the parts
    of ``"X, also known as Y"`` and the possessive-free eponym."""
    name = clean_name(answer)
    out: list[str] = [name]
    bare = _PAREN.sub("", name).strip(" ,")
    out.append(bare)
    trailing = re.search(r"\(([^()]*)\)\s*$", name)
    if trailing and not re.match(r"^(?:e\.g\.|see|type\b)", trailing.group(1).strip(), re.I):
        out.append(trailing.group(1).strip())
    out.extend(part.strip(" ,") for part in _ALSO.split(bare))
    out.append(re.sub(r"(\w)'s\b", r"\1", bare))
    return _unique(v for v in out if v and len(norm(v)) > 1)


def name_variants(answer: str) -> list[str]:
    """Lookup forms, most specific first: the equivalent names, then the answer without a
    causal tail (``"X due to Y"`` -> ``"X"``), leading qualifiers (``"Decompensated X"`` -> ``"X"``)
    or a "with ..." tail (``"Atrial fibrillation with rapid ventricular response"``).
    The shortened forms are only used to find a code, never as acceptable names."""
    equivalent = equivalent_names(answer)
    bare = equivalent[1] if len(equivalent) > 1 else equivalent[0]
    shorter = [_CAUSAL.sub("", bare), _QUALIFIER.sub("", bare), _WITH_TAIL.sub("", bare),
               _QUALIFIER.sub("", _WITH_TAIL.sub("", _CAUSAL.sub("", bare)))]
    return _unique([*equivalent, *(v for v in shorter if v and len(norm(v)) > 1)])


def _unique(items) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        key = item.lower()
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


# --------------------------------------------------------------------------- synonym table


@dataclass(frozen=True)
class SynonymRow:
    icd10: str
    names: tuple[str, ...]


@cache
def synonym_rows() -> tuple[SynonymRow, ...]:
    rows: list[SynonymRow] = []
    for record in csv_records(__package__, SYNONYM_FILE, ("icd10", "names")):
        code = record.text("icd10")
        if not _ICD10_SHAPE.fullmatch(code):
            raise record.error("icd10", f"{code!r} is not a dotted ICD-10-CM code")
        if not record.items("names"):
            raise record.error("names", "is empty")
        rows.append(SynonymRow(code, record.items("names")))
    return tuple(rows)


@cache
def _synonym_index() -> dict[str, SynonymRow]:
    index: dict[str, SynonymRow] = {}
    for row in synonym_rows():
        for name in row.names:
            index.setdefault(norm(name), row)
    return index


# --------------------------------------------------------------------------- ICD title index


_NOS = re.compile(r"\b(?:NOS|NEC|not elsewhere classified|not otherwise specified)\b", re.I)
_BRACKET = re.compile(r"\s*\[([^\]]*)\]")
_UNSPECIFIED_TAIL = re.compile(r",\s*unspecified\b.*$")


def _entry_texts(text: str) -> list[str]:
    """Index forms of one title: as written, without NOS, without brackets/parentheses, bracket content."""
    base = " ".join(_NOS.sub("", text).split()).strip(" ,")
    unbracketed = _BRACKET.sub("", base)
    forms = [text, base, unbracketed, _PAREN.sub("", unbracketed)]
    forms.extend(b for b in _BRACKET.findall(base) if len(b) > 3)
    forms.append(_UNSPECIFIED_TAIL.sub("", base))
    return _unique(f.strip(" ,") for f in forms if f.strip(" ,"))


@dataclass(frozen=True)
class _Entry:
    code: str
    text: str
    kind: str  # "title" | "inclusion"


@cache
def _title_index() -> tuple[dict[str, list[_Entry]], list[_Entry]]:
    """(normalised text -> entries, all entries)."""
    cm = icd10cm()
    exact: dict[str, list[_Entry]] = defaultdict(list)
    entries: list[_Entry] = []
    for code in cm.get_all_codes(True):
        if cm.is_chapter_or_block(code) or len(code.replace(".", "")) > 6:
            continue
        sources = [("title", cm.get_description(code))]
        sources += [("inclusion", t) for t in cm.get_inclusion_term(code)]
        for kind, raw in sources:
            for text in _entry_texts(raw):
                entry = _Entry(code, text, kind)
                entries.append(entry)
                exact[norm(text)].append(entry)
    return dict(exact), entries


_OTHER = re.compile(r"\b(?:other|specified)\b", re.I)
_UNSPECIFIED = re.compile(r"\b(?:unspecified|NOS)\b", re.I)


def _generality(e: _Entry) -> tuple:
    """Sort key among equally good matches: the generic reading of a generic answer, i.e.
    not an "other specified ..." residual, preferably an "unspecified" code, a title rather
    than an inclusion term, the shortest code."""
    title = icd10cm().get_description(e.code)
    return (bool(_OTHER.search(title)) and not _UNSPECIFIED.search(title), not _UNSPECIFIED.search(title),
            e.kind != "title", len(e.code), e.code)


def _best_exact(entries: list[_Entry]) -> _Entry:
    return min(entries, key=lambda e: (e.kind != "title", *_generality(e)))


# --------------------------------------------------------------------------- token overlap

WORDS_FILE = "answer_words.yaml"


@dataclass(frozen=True)
class _Words:
    stop: frozenset[str]  # never carry meaning
    fold: dict[str, str]  # word -> the form titles use ("renal" -> "kidney")
    morphology: frozenset[str]  # histology words ICD-10-CM does not code
    location: frozenset[str]  # where in an organ a lesion sits; titles often leave it out


@cache
def _words() -> _Words:
    doc = yaml_record(__package__, WORDS_FILE, ("stop_words", "folds", "morphology", "location"), text=True)
    return _Words(frozenset(doc.texts("stop_words", distinct=True)), doc.text_mapping("folds"),
                  frozenset(doc.texts("morphology", distinct=True)), frozenset(doc.texts("location", distinct=True)))


_MORPHOLOGY_WEIGHT = 0.1
_LOCATION_WEIGHT = 0.3
# Pregnancy (O), perinatal (P) and congenital (Q) codes only for answers that say so: their
# inclusion terms reuse adult wording ("Stenosis of aorta" is under Q25).
_CHAPTER_CUES = {
    "O": re.compile(r"pregnan|gestation|puerper|postpartum|obstetric|labou?r|deliver|abortion|placent|fetal", re.I),
    "P": re.compile(r"neonat|newborn|perinatal|birth|infant|fetal|prematur", re.I),
    "Q": re.compile(r"congenital|hereditary|inherited|familial|malformation|atresia|agenesis|syndrome", re.I),
}
_CONTEXT_PENALTY = 0.85
_WITHOUT = re.compile(r"\bwithout\b[^,;]*", re.I)


def _singular(word: str) -> str:
    if len(word) <= 4 or word.endswith(("ss", "us", "is", "ies", "es")):
        if word.endswith("ies") and len(word) > 5:
            return word[:-3] + "y"
        return word
    return word[:-1] if word.endswith("s") else word


def content_tokens(text: str) -> frozenset[str]:
    t = norm(_WITHOUT.sub("", text))
    words = _words()
    out = set()
    for w in t.split():
        if w in words.stop:
            continue
        w = words.fold.get(w, _singular(w))
        out.add(w)
    if "malignant" in out:
        out.add("neoplasm")
    return frozenset(out)


@cache
def _token_index() -> tuple[list[frozenset[str]], dict[str, list[int]], dict[str, float]]:
    _, entries = _title_index()
    token_sets = [content_tokens(e.text) for e in entries]
    postings: dict[str, list[int]] = defaultdict(list)
    for i, toks in enumerate(token_sets):
        for tok in toks:
            postings[tok].append(i)
    n = len(entries)
    idf = {tok: math.log(n / len(ids)) for tok, ids in postings.items()}
    return token_sets, dict(postings), idf


def _weight(tok: str, idf: dict[str, float]) -> float:
    w = idf.get(tok, math.log(len(_title_index()[1])))  # unseen words are maximally specific
    if tok in _words().morphology:
        return w * _MORPHOLOGY_WEIGHT
    return w * _LOCATION_WEIGHT if tok in _words().location else w


def _fuzzy(text: str) -> tuple[float, _Entry | None]:
    query = content_tokens(text)
    if not query:
        return 0.0, None
    token_sets, postings, idf = _token_index()
    _, entries = _title_index()
    # Ties broken by the word itself: set order depends on PYTHONHASHSEED, the mapping must not.
    ranked = sorted(query, key=lambda t: (-_weight(t, idf), t))
    candidates: set[int] = set()
    for tok in ranked[:3]:  # entries sharing one of the answer's most specific words
        candidates.update(postings.get(tok, ()))
    context_chapters = {ch for ch, cue in _CHAPTER_CUES.items() if cue.search(text)}
    best: tuple | None = None
    for i in candidates:
        toks = token_sets[i]
        inter = sum(_weight(t, idf) for t in sorted(query & toks))
        union = sum(_weight(t, idf) for t in sorted(query | toks))
        score = inter / union if union else 0.0
        e = entries[i]
        if e.code[0] in _CHAPTER_CUES and e.code[0] not in context_chapters:
            score *= _CONTEXT_PENALTY
        key = (-round(score, 3), *_generality(e), i)
        if best is None or key < best:
            best = key
    if best is None:
        return 0.0, None
    return -best[0], entries[best[-1]]


# --------------------------------------------------------------------------- mapping


def _acceptable(answer: str, table_names: tuple[str, ...]) -> list[str]:
    names = [clean_name(answer), *equivalent_names(answer), *table_names]
    # Hyphen/space and possessive spellings of every name (graders compare names normalised).
    extra = []
    for n in names:
        extra.append(re.sub(r"(\w)'s\b", r"\1", n))
        extra.append(n.replace("-", " "))
    names = [n for n in [*names, *extra] if n and (is_abbreviation(n) or len(norm(n)) > 2)]
    return _unique(n.strip() for n in names)


@lru_cache(maxsize=32768)
def map_answer(answer: str) -> AnswerMapping:
    """Diagnosis name, acceptable names and ICD-10-CM code of a MedQA answer (see module doc)."""
    name = clean_name(answer)
    if not norm(name):
        return AnswerMapping(name or answer, [], None, 0.0, "empty answer")
    variants = name_variants(answer)
    n_equivalent = len(equivalent_names(answer))  # variants before this index name the answer itself
    display = _PAREN.sub("", name).strip(" ,") or name

    synonyms = _synonym_index()
    exact, _ = _title_index()
    for shortened, tier in ((False, variants[:n_equivalent]), (True, variants[n_equivalent:])):
        for variant in tier:
            row = synonyms.get(norm(variant))
            if row is not None:
                conf = _CONF_SYNONYM_VARIANT if shortened else _CONF_SYNONYM
                return _mapped(answer, display, row.names, row.icd10, conf,
                               f"synonym table: {variant!r} -> {row.icd10}")
        for variant in tier:
            hits = exact.get(norm(variant))
            if hits:
                e = _best_exact(hits)
                conf = _CONF_TITLE if e.kind == "title" else _CONF_INCLUSION
                conf *= _VARIANT_PENALTY if shortened else 1.0
                return _mapped(answer, display, (), e.code, conf,
                               f"ICD-10-CM {e.kind} equals {variant!r}: {e.code} {e.text!r}")

    best_score, best_entry, best_variant = 0.0, None, name
    for rank, variant in enumerate(variants):
        score, entry = _fuzzy(variant)
        score *= 1.0 if rank < n_equivalent else _VARIANT_PENALTY
        if entry is not None and score > best_score:
            best_score, best_entry, best_variant = score, entry, variant
    confidence = round(best_score * _FUZZY_SCALE, 3)
    if best_entry is not None and confidence >= CREDIBLE:
        return _mapped(answer, display, (), best_entry.code, confidence,
                       f"token overlap {best_score:.2f} of {best_variant!r} with {best_entry.kind} "
                       f"{best_entry.code} {best_entry.text!r}")
    why = (f"no credible ICD-10-CM match (best: {best_entry.code} {best_entry.text!r}, "
           f"confidence {confidence:.2f} < {CREDIBLE})" if best_entry is not None
           else "no ICD-10-CM title shares a word with the answer")
    return AnswerMapping(display, _acceptable(answer, ()), None, confidence, why,
                         candidate=best_entry.code if best_entry else None)


def _mapped(answer: str, display: str, table_names: tuple[str, ...],
            code: str, confidence: float, reason: str) -> AnswerMapping:
    cm = icd10cm()
    if not cm.is_valid_item(code):
        raise ValueError(f"{SYNONYM_FILE}: {code!r} is not an ICD-10-CM code ({reason})")
    return AnswerMapping(
        diagnosis_name=display,
        acceptable_names=_acceptable(answer, table_names),
        icd10=code,
        confidence=round(confidence, 3),
        reason=reason,
        title=cm.get_description(code),
        candidate=code,
    )
