"""Diagnosis leakage primitives: which words give the diagnosis away, where they occur, how to remove them.

Used for note units and findings, MedQA vignettes, profiles and presentations, and by the audit
checks that prove no patient-visible text names the diagnosis.

Matching
--------
Text and terms are compared after :func:`normalise` (accents stripped, lower case, apostrophes
dropped, every other non-alphanumeric character - hyphens, slashes, dots - folded to one space).
A term matches whole words only; the space between two of its words may also be absent
(``a fib`` matches ``afib``, ``heart failure`` matches ``heart-failure``) and its last word may
carry a plural ending (``emboli``/``embolus`` aside, ``-s``, ``-es``, ``-y``/``-ies``).
Upper-case terms of at most three characters (``PE``, ``AS``, ``ALL``, ``CAP``) only match
upper-case text, since lower-cased they are everyday words. Spans are reported in the *original*
text.

Scrubbing rule
--------------
:func:`scrub` removes each mention together with its clause: the text between the nearest
delimiters (``. ; ! ? : ,`` - not a decimal point -, parentheses, line breaks and the conjunctions
*and / or / but*).
When a diagnostic cue such as "concerning for", "consistent with", "found to have" or "due to"
stands inside that clause before the mention, only the part from the cue on is removed, so
"chest pain concerning for NSTEMI" keeps "chest pain". Removing the whole clause rather than the
word alone also removes its qualifiers ("CHF exacerbation", "h/o CHF"), which would still point
at the diagnosis. Callers drop text that is left without content (:func:`has_content`).
A fixed replacement (``replacement="a condition"``) is available where sentence structure must
survive.

Terms (:func:`diagnosis_terms`)
-------------------------------
Names, acceptable names and the ICD-10 title, each with simplified forms (parentheses removed or
unwrapped, the part before the first comma / "with" / "due to", leading qualifiers such as
"acute", "chronic", "other specified" removed), the code dotted and undotted, and the
synonyms/abbreviations of every group in ``leakage_synonyms.csv`` that applies to the case. The
word lists behind the simplification and :func:`has_content` are in ``leakage_words.yaml``.

Symptoms are not diagnoses: the scrubber removes names of the diagnosis, never a symptom the patient
reports that merely shares a word with one. A group's ``reportable`` words ("seizure",
"generalized tonic-clonic seizure" for epilepsy) are dropped from the terms of every case the group
applies to, whatever name or title brought them in, so "witnessed generalized tonic-clonic
seizure" stays in an epilepsy case while "epilepsy" and "seizure disorder" go. Words that a group
applying by the case's code lists as ``terms`` stay terms (for R56 convulsions the seizure is the
diagnosis); a group that a name brings in cannot take a symptom back.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import polars as pl

from pipelines.accents import strip_accents
from pipelines.datafiles import Record, csv_records, unique, yaml_record

SYNONYMS_FILE = "leakage_synonyms.csv"
_WORDS = yaml_record(__package__, "leakage_words.yaml", ("generic_words", "content_stop_words"), text=True)

# Words that never identify a diagnosis on their own; a simplified form made only of these is dropped.
_GENERIC = frozenset(_WORDS.texts("generic_words", distinct=True))
_QUALIFIERS = re.compile(
    r"^(?:(?:acute on chronic|acute|chronic|subacute|other specified|other|unspecified|primary|"
    r"secondary|essential|severe|mild|moderate|recurrent|idiopathic)\s+)+"
)
_CUT = re.compile(
    r",|\s(?:with|without|due to|in diseases classified elsewhere|not elsewhere classified|"
    r"of unspecified|unspecified|nos|initial encounter|subsequent encounter)\b"
)
_CUES = re.compile(
    r"\b(?:concerning for|consistent with|c/w|suggestive of|suspicious for|suspected|diagnosed with|"
    r"dx with|found to have|found to be in|due to|secondary to|likely|probable|possible|presumed|"
    r"thought to be|r/o|rule out|ruled out|worrisome for|compatible with|c/f|in setting of)\b",
    re.IGNORECASE,
)
_DELIMS = re.compile(r"[;!?:,()\[\]\n\r]|\.(?!\d)|\b(?:and|or|but)\b", re.IGNORECASE)  # "101.2" is no delimiter
# Words that say nothing on their own (has_content).
_CONTENT_STOP = frozenset(_WORDS.texts("content_stop_words", distinct=True))


@dataclass(frozen=True)
class Mention:
    """One occurrence of a term: ``text[start:end]`` in the original text.

    ``removed`` is the span :func:`scrub` cut out for it (clause), in the same coordinates.
    """

    start: int
    end: int
    term: str
    surface: str
    removed: tuple[int, int] | None = None


# ---------------------------------------------------------------------------------- normalising

_APOSTROPHES = re.compile(r"['\u2019`]")
_NON_ALNUM = re.compile(r"[\W_]+")
_SEP = r"[\s\-\u2010-\u2014/_.']{0,3}"  # what may stand between the words of a term in raw text


def normalise(text: str | None) -> str:
    """Case, accent, punctuation, hyphen and whitespace folding shared by matching and audits."""
    text = _APOSTROPHES.sub("", strip_accents(text or "").lower())
    return _NON_ALNUM.sub(" ", text).strip()


def _case_sensitive(term: str) -> bool:
    return len(term) <= 3 and term.isupper() and term.isalnum()


def _word(word: str, last: bool) -> str:
    """Regex for one normalised word of a term; the last word may be plural."""
    if word.endswith("s") and len(word) > 3:
        word_re = re.escape(word[:-1]) + "'?s"  # "crohns" also matches "Crohn's"
    else:
        word_re = re.escape(word)
    if not last or not word.isalpha():
        return word_re
    if len(word) > 3 and word.endswith("y"):
        return re.escape(word[:-1]) + "(?:y|ies)"
    return word_re + ("(?:'?e?s)?" if len(word) > 3 else "s?")


def _term_regex(term: str) -> str:
    words = _words(term)
    return _SEP.join(_word(w, i == len(words) - 1) for i, w in enumerate(words))


def _words(term: str) -> list[str]:
    return (normalise(term) if not _case_sensitive(term) else term).split()


@lru_cache(maxsize=8192)
def _starts(terms: tuple[str, ...]) -> tuple[tuple[str | None, ...], tuple[str, ...]] | None:
    """What every match of each term's regex starts with, lower-cased (None for a term with no word),
    and those starts once each: its first word, less the last letter when :func:`_word` may vary it
    (a plural ``s``, ``y``/``ies``). None when one is not ASCII: case folding beyond ASCII is the
    regex engine's (``ſ`` matches ``s``)."""
    firsts = [words[0] if (words := _words(t)) else None for t in terms]
    starts = tuple(None if w is None else (w[:-1] if len(w) > 3 else w).lower() for w in firsts)
    if not all(s is None or s.isascii() for s in starts):
        return None
    return starts, tuple(sorted({s for s in starts if s is not None}))


def mention_starts(terms: Sequence[str]) -> tuple[str, ...] | None:
    """What an ASCII text holds, lower-cased, wherever :func:`find_mentions` finds one of ``terms`` in
    it: one of these strings (a screen for many texts at once). None where there is no such screen
    (a term starts beyond ASCII): any text may hold a mention."""
    found = _starts(tuple(terms))
    return None if found is None else found[1]


@lru_cache(maxsize=8192)
def _modes(terms: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The terms per case mode (case-insensitive, then the short upper-case ones matched as written),
    one per normalised form, longest first: the order in which a mention's term is chosen."""
    loose: dict[str, str] = {}
    strict: dict[str, str] = {}
    for term in terms:
        if _case_sensitive(term):
            strict.setdefault(term, term)
        elif normalise(term):
            loose.setdefault(normalise(term), term)
    return tuple(tuple(sorted(forms.values(), key=lambda t: (-len(normalise(t)), normalise(t), t)))
                 for forms in (loose, strict) if forms)


@lru_cache(maxsize=1 << 15)  # per term, not per set of terms: cases share their diagnoses' terms
def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_])(?:{_term_regex(term)})(?![^\W_])", 0 if _case_sensitive(term) else re.IGNORECASE)


def _matches(text: str, ordered: tuple[str, ...], starts: dict[str, str] | None = None,
             lowered: str = "") -> Iterator[tuple[int, int, int]]:
    """Every (start, rank in ``ordered``, end) where a term's own compiled pattern matches ``text``,
    term after term. ``starts`` (an ASCII text's, with ``lowered``, the text lower-cased): what each
    term's matches start with (:func:`_starts`), so that a term is tried only where that occurs in
    ``lowered``, not searched for at every position."""
    for rank, term in enumerate(ordered):
        pattern = _term_pattern(term)
        prefix = starts.get(term) if starts else None
        if prefix is not None:
            at = lowered.find(prefix)
            while at >= 0:
                if (m := pattern.match(text, at)) is not None:
                    yield at, rank, m.end()
                at = lowered.find(prefix, at + 1)
            continue
        m = pattern.search(text)
        while m is not None:
            yield m.start(), rank, m.end()
            m = pattern.search(text, m.start() + 1)


def _scan(text: str, ordered: tuple[str, ...], starts: dict[str, str] | None = None,
          lowered: str = "") -> list[tuple[int, int, str]]:
    """What one alternation of ``ordered``'s patterns finds scanning ``text`` (leftmost first, at each
    start the first term in order that matches there, resuming after it), from :func:`_matches`."""
    first: dict[int, tuple[int, int]] = {}  # start -> (the first term matching there, its end)
    for start, rank, end in _matches(text, ordered, starts, lowered):
        first.setdefault(start, (rank, end))
    found, resume = [], 0
    for start in sorted(first):
        if start >= resume:
            rank, resume = first[start]
            found.append((start, resume, ordered[rank]))
    return found


def find_mentions(text: str | None, terms: list[str]) -> list[Mention]:
    """Non-overlapping whole-word mentions of ``terms`` in ``text``, leftmost-longest, in text order."""
    screened = _screened(text, terms)
    if screened is None:
        return []
    folded, where, terms, term_starts, lowered = screened
    found: list[Mention] = []
    for ordered in _modes(terms):
        for start, end, term in _scan(folded, ordered, term_starts, lowered):
            if where is not None:
                start, end = where[start], where[end - 1] + 1
            found.append(Mention(start, end, term, text[start:end]))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    for m in found:
        if not kept or m.start >= kept[-1].end:
            kept.append(m)
    return kept


def mentions_any(text: str | None, terms: list[str]) -> bool:
    """``bool(find_mentions(text, terms))``, decided by the first match: where a term matches, the
    leftmost match of all is a mention, whatever the others."""
    screened = _screened(text, terms)
    if screened is None:
        return False
    folded, _, terms, term_starts, lowered = screened
    return any(next(_matches(folded, ordered, term_starts, lowered), None) for ordered in _modes(terms))


def _screened(text: str | None, terms: list[str]) -> tuple[str, list[int] | None, tuple[str, ...],
                                                          dict[str, str] | None, str] | None:
    """What :func:`find_mentions` searches: the folded text, its map to ``text``'s positions (None for
    ASCII), the terms that may match in it, their starts and the folded text lower-cased (where the
    start screen applies), or None when no term can match."""
    if not text or not terms:
        return None
    terms = tuple(terms)
    # Accent folding keeps positions only for ASCII; other text is matched on a folded copy with a map.
    folded, where = (text, None) if text.isascii() else _accent_map(text)
    if (found_starts := _starts(terms)) is not None and _lowers_in_place(folded):
        # A term can match only where its start occurs. Most texts hold none: a substring test spares
        # the regexes. The others are matched with the terms whose start they hold, which finds the
        # same mentions (the rest could match nowhere), each tried only where its start occurs.
        starts, distinct = found_starts
        lowered = folded.lower()
        present = {s for s in distinct if s in lowered}
        if not present:
            return None
        term_starts = {t: s for t, s in zip(terms, starts) if s in present}
        return folded, where, tuple(term_starts), term_starts, lowered
    return folded, where, terms, None, ""


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_LETTER = re.compile(r"[a-z]", re.IGNORECASE)


def _lowers_in_place(folded: str) -> bool:
    """Whether ``folded.lower()`` finds every place where a term's ASCII start (:func:`_starts`) may
    match: it does when the text is ASCII, or when none of its other characters lower to more than
    one character (which would shift positions) or matches an ASCII letter with case ignored (the
    regex engine's ``ı`` matches ``i``). Units and degrees (``µmol/L``, ``38 °C``) do neither."""
    return folded.isascii() or all(map(_beside_ascii, set(_NOT_ASCII.findall(folded))))


@lru_cache(maxsize=4096)
def _beside_ascii(character: str) -> bool:
    return len(character.lower()) == 1 and not _ASCII_LETTER.fullmatch(character)


def _accent_map(text: str) -> tuple[str, list[int]]:
    """``text`` without combining marks, and the position in ``text`` of each character kept. Runs
    of ASCII are kept whole (one character each, in place); only the rest is decomposed."""
    out: list[str] = []
    where: list[int] = []
    done = 0
    for m in _NOT_ASCII.finditer(text):
        i = m.start()
        out.append(text[done:i])
        where.extend(range(done, i))
        for c in unicodedata.normalize("NFKD", m.group()):
            if not unicodedata.combining(c):
                out.append(c)
                where.append(i)
        done = i + 1
    out.append(text[done:])
    where.extend(range(done, len(text)))
    return "".join(out), where


# ------------------------------------------------------------------------------------ scrubbing


def has_content(text: str | None) -> bool:
    """True when ``text`` still says something (not just connectives, placeholders or punctuation)."""
    words = normalise(text or "").split()
    return any(w not in _CONTENT_STOP and not w.isdigit() for w in words)


def _clause(text: str, m: Mention) -> tuple[int, int]:
    left = 0
    for d in _DELIMS.finditer(text, 0, m.start):
        left = d.end()
    right_match = _DELIMS.search(text, m.end)
    right = right_match.start() if right_match else len(text)
    cue = _CUES.search(text, left, m.start)
    if cue is not None and has_content(text[left : cue.start()]):
        left = cue.start()
    return left, right


_TIDY = [
    (re.compile(r"[ \t]+"), " "),
    (re.compile(r"([.;!?])(?:\s*[.;!?])+"), r"\1"),
    (re.compile(r"\s+([,.;:!?)])"), r"\1"),
    (re.compile(r"\( *\)"), ""),
    (re.compile(r"([,;:])(?: *[,;:])+"), r"\1"),
    (re.compile(r"\b(and|or|but)(?: +(?:and|or|but)\b)+", re.IGNORECASE), r"\1"),
    (re.compile(r"(?:,|\b(?:and|or|but)\b) *(?=[.;!?]|$)", re.IGNORECASE), ""),
    (re.compile(r"(?:(?<=^)|(?<=[.;!?] )) *(?:,|;|\b(?:and|or|but)\b)[ ,;]*", re.IGNORECASE), ""),
    (re.compile(r"(?m)^[ ,;]+|[ ,;]+$"), ""),
    # A removed clause can strand a title ("Mr. ___ with h/o COPD, HFrEF" -> "Mr., HFrEF") or leave
    # only a parenthetical ("COPD (FEV1 0.9L)" -> "(FEV1 0.9L)").
    (re.compile(r"^(?:Mr|Mrs|Ms|Miss|Dr)\.?\s*(?:[,;]\s*|$)", re.IGNORECASE), ""),
    (re.compile(r"^\(([^()]*)\)$"), r"\1"),
]


def _tidy(text: str) -> str:
    for pattern, repl in _TIDY:
        text = pattern.sub(repl, text)
    return text.strip()


def scrub(text: str | None, terms: list[str], replacement: str | None = None) -> tuple[str, list[Mention]]:
    """Remove every mention of ``terms``; returns the scrubbed text and the mentions (with ``removed``).

    Text without mentions comes back unchanged. See the module docstring for the clause rule;
    with ``replacement`` each mention is replaced by that text instead.
    """
    text = text or ""
    mentions = find_mentions(text, terms)
    if not mentions:
        return text, []
    if replacement is not None:
        out, last = [], 0
        for m in mentions:
            out.extend((text[last : m.start], replacement))
            last = m.end
        out.append(text[last:])
        return "".join(out), [replace(m, removed=(m.start, m.end)) for m in mentions]
    spans = [_clause(text, m) for m in mentions]
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    pieces, last = [], 0
    for s, e in merged:
        pieces.append(text[last:s])
        last = e
    pieces.append(text[last:])
    return _tidy("".join(pieces)), [replace(m, removed=span) for m, span in zip(mentions, spans)]


# -------------------------------------------------------------------------------------- terms


@dataclass(frozen=True)
class SynonymGroup:
    group: str
    icd10_prefixes: tuple[str, ...]
    terms: tuple[str, ...]
    reportable: tuple[str, ...] = ()  # symptoms the patient reports: never terms (module docstring)


_ICD10_PREFIX = re.compile(r"[A-Z][0-9][0-9A-Z]{0,5}")


def _group(record: Record) -> SynonymGroup:
    prefixes = tuple(p.replace(".", "").upper() for p in record.items("icd10_prefixes", " "))
    for p in prefixes:
        if not _ICD10_PREFIX.fullmatch(p):
            raise record.error("icd10_prefixes", f"{p!r} is not an ICD-10-CM code prefix")
    terms = record.items("terms")
    if not terms:
        raise record.error("terms", "is empty")
    return SynonymGroup(record.text("group"), prefixes, terms, record.items("reportable"))


@lru_cache(maxsize=1)
def synonym_groups() -> tuple[SynonymGroup, ...]:
    """The documented synonym/abbreviation table (``leakage_synonyms.csv``)."""
    records = csv_records(__package__, SYNONYMS_FILE, ("group", "icd10_prefixes", "terms", "reportable"))
    unique(records, "group")
    return tuple(_group(r) for r in records)


def _simplified(name: str) -> list[str]:
    name = " ".join(name.split())
    no_paren = re.sub(r"\s*\([^)]*\)", "", name)
    unwrapped = re.sub(r"[()]", "", name)
    # A parenthesised abbreviation names the diagnosis ("(NSTEMI)"); a parenthesised adjective does not.
    inner = [s for s in re.findall(r"\(([^)]*)\)", name) if s.isupper()]
    forms = [name, no_paren, unwrapped, *inner]
    for base in (no_paren, unwrapped):
        lowered = base.lower()
        cut = _CUT.search(lowered)
        head = lowered[: cut.start()] if cut else lowered
        forms += [head, _QUALIFIERS.sub("", head), _QUALIFIERS.sub("", lowered)]
    return forms


def _identifying(term: str) -> bool:
    norm = normalise(term)
    if not norm:
        return False
    if _case_sensitive(term.strip()):
        return True
    return len(norm) >= 3 and any(w not in _GENERIC for w in norm.split())


def diagnosis_terms(
    diagnosis_name: str | None,
    acceptable_names: list[str] | None,
    icd10_code: str | None,
    icd10_title: str | None,
) -> list[str]:
    """Every surface form that would reveal the diagnosis; deterministic order (longest first)."""
    return list(_diagnosis_terms(diagnosis_name, tuple(acceptable_names or ()), icd10_code, icd10_title))


@lru_cache(maxsize=1)
def _name_triggers() -> tuple[tuple[str, ...], ...]:
    """Per synonym group, the normalised terms that pull the group in when a name contains them."""
    return tuple(
        tuple(f" {normalise(t)} " for t in g.terms if not _case_sensitive(t) and len(normalise(t)) >= 4)
        for g in synonym_groups()
    )


@lru_cache(maxsize=65536)  # many cases share a diagnosis
def _diagnosis_terms(
    diagnosis_name: str | None, acceptable_names: tuple[str, ...], icd10_code: str | None, icd10_title: str | None
) -> tuple[str, ...]:
    names = [n for n in [diagnosis_name, *acceptable_names, icd10_title] if n and n.strip()]
    candidates: list[str] = []
    for name in names:
        candidates += _simplified(name)
    code = (icd10_code or "").strip().upper()
    undotted = code.replace(".", "")
    if code:
        candidates += [code, undotted]
    padded = [f" {normalise(n)} " for n in names]
    coded = [g for g in synonym_groups() if undotted and undotted.startswith(g.icd10_prefixes)]
    named = [g for g, triggers in zip(synonym_groups(), _name_triggers())
             if g not in coded and any(t in n for t in triggers for n in padded)]
    for group in coded + named:
        candidates += group.terms
    symptoms = ({normalise(t) for g in coded + named for t in g.reportable}
                - {normalise(t) for g in coded for t in g.terms})
    terms: dict[str, str] = {}
    for term in candidates:
        term = " ".join(term.split()).strip(" ,;:-")
        if not _identifying(term) or normalise(term) in symptoms:
            continue
        terms.setdefault(term if _case_sensitive(term) else normalise(term), term)
    return tuple(sorted(terms.values(), key=lambda t: (-len(t), t.lower(), t)))


# -------------------------------------------------------------------------------------- audit

AUDIT_COLUMNS = {"case_id": pl.Utf8, "column": pl.Utf8, "term": pl.Utf8, "snippet": pl.Utf8}


def snippet(text: str, start: int, end: int, width: int = 40) -> str:
    return " ".join(text[max(0, start - width) : end + width].split())


def audit_frame(df: pl.DataFrame, text_columns: list[str], terms_by_case: dict[str, list[str]]) -> pl.DataFrame:
    """Every mention of a case's diagnosis terms in the given text (or list-of-text) columns.

    Returns one row per hit (case_id, column, term, snippet); an empty frame means clean.
    """
    rows: list[dict[str, str]] = []
    for record in df.select("case_id", *text_columns).iter_rows(named=True):
        terms = terms_by_case.get(record["case_id"])
        if not terms:
            continue
        for column in text_columns:
            value = record[column]
            values = value if isinstance(value, list) else [value]
            for text in values:
                for m in find_mentions(text, terms):
                    rows.append(
                        {"case_id": record["case_id"], "column": column, "term": m.term,
                         "snippet": snippet(text, m.start, m.end)}
                    )
    return pl.DataFrame(rows, schema=AUDIT_COLUMNS)
