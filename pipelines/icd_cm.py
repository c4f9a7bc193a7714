"""ICD-10-CM as ``simple-icd-10-cm`` ships it (hierarchy, titles, blocks, chapters): the code
representation every ICD mapping returns (:class:`Icd10Info`), lookups of CM codes and titles, and
the hierarchy. The mappings from ICD-9-CM and ICD-10-GM, and the frame-wide normalisation, are in
:mod:`pipelines.icd`, which re-exports this module's public names.

Output representation (:class:`Icd10Info`)
------------------------------------------
* ``code``     dotted ICD-10-CM code that exists in the installed release (``"I50.9"``), or ``None``.
* ``category`` first three characters of ``code`` (``"I50"``); always a valid CM category.
* ``block``    the CMS block ("section") that ``simple_icd_10_cm.get_ancestors`` reports, e.g.
  ``"I30-I5A"``.  CMS blocks that contain a single category are named after that category by the
  library (``B99`` -> block ``"B99"``); we write those as the range CMS uses, ``"B99-B99"``, so that
  every block has one shape.
* ``chapter``  the library's chapter number, **zero-padded to two digits**: ``"01"`` .. ``"22"``
  (the library itself says ``"9"``).  :func:`chapter_title` gives the title and accepts ``"9"`` or
  ``"09"``.
* ``title``    the library's description of ``code``.
* ``origin``   one of :data:`ORIGINS` (see below).
* ``reason``   human-readable note on what was chosen / why nothing was.
* ``alternatives`` the other GEM targets of an ICD-9 code (dotted, resolved in the release), so that
  :attr:`Icd10Info.acceptable` lists every code that counts as the right answer; empty otherwise.

Codes that are not in the installed CM release but look like codes an earlier release had and a
later one split (MIMIC's ``T81.4XXA``, split in FY2024: its parent ``T81.4`` now has codes of the
same shape) are resolved to their nearest existing ancestor (``T81.4XXA`` -> ``T81.4``); ``reason``
records it and a direct ICD-10-CM input gets origin ``icd10_ancestor``.  A code no release had
(``Z99.9999``: nothing of that shape under ``Z99``) is ``unmapped``, never silently shortened.

Origins
-------
``icd10``                  the input was ICD-10-CM.
``icd10_ancestor``         the input was an ICD-10-CM code retired by a split; its nearest ancestor.
``icd9_gem_exact``         ICD-9 code with a single GEM target whose *approximate* flag is 0.
``icd9_gem_approximate``   ICD-9 code with a single GEM target flagged approximate (most GEM rows
                           are: 4280 -> I50.9 and 41071 -> I21.4 are both "approximate"), or a code
                           mapped through an ICD-9 parent / its siblings (see fallback).
``icd9_gem_one_to_many``   ICD-9 code with more than one distinct GEM target, either alternatives
                           (several rows, combination flag 0) or a combination (flag 1: the ICD-9
                           code needs several ICD-10 codes together). All targets are acceptable.
``icd10_gm``               the input was ICD-10-GM (SICdb).
``text_match``             the input was free text matched exactly to a CM title
                           (:func:`icd10cm_from_title`).
``unmapped``               nothing usable; ``reason`` says why.

Importing this module is cheap; ``simple_icd_10_cm`` (~1.5-2 s XML parse) is loaded on first use.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Final

from schemas._types import ICD_ORIGINS

ORIGINS: Final[tuple[str, ...]] = tuple(ICD_ORIGINS)  # the contract's list (schemas/_types.py)


@dataclass(frozen=True)
class Icd10Info:
    code: str | None  # dotted ICD-10-CM, e.g. "I50.23" (None if unmappable)
    category: str | None  # "I50"
    block: str | None  # CMS block as simple-icd-10-cm names it, e.g. "I30-I5A"
    chapter: str | None  # zero-padded chapter number, e.g. "09"
    title: str | None  # description of `code`
    origin: str  # one of ORIGINS
    reason: str | None  # why unmapped / what was chosen
    alternatives: tuple[str, ...] = ()  # the other GEM targets of an ICD-9 code (dotted, in the release)

    @property
    def acceptable(self) -> tuple[str, ...]:
        """Every code that counts as the right answer: ``code`` first, then the other GEM targets."""
        return (self.code, *self.alternatives) if self.code else ()


def unmapped(reason: str) -> Icd10Info:
    return Icd10Info(None, None, None, None, None, "unmapped", reason)


def join_reasons(*parts: str | None) -> str | None:
    kept = [p for p in parts if p]
    return "; ".join(kept) if kept else None


# --------------------------------------------------------------------------- simple-icd-10-cm


@functools.cache
def icd10cm() -> ModuleType:
    """The ``simple_icd_10_cm`` module, imported on first use (its import parses a 10 MB XML for
    about 3 s, which a build's start-up or a command that never needs it should not wait for)."""
    with warnings.catch_warnings():  # its importlib.resources.read_text use is deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        import simple_icd_10_cm

    return simple_icd_10_cm


@functools.cache
def icd10cm_release() -> str:
    """The ICD-10-CM release bundled with simple-icd-10-cm, e.g. ``"April-2026"``."""
    icd10cm()
    try:
        from simple_icd_10_cm import simple_icd_10_cm as impl

        name = str(getattr(impl, "_all_codes_package_file_name", ""))
    except ImportError:  # pragma: no cover - layout change in the library
        name = ""
    m = re.search(r"([A-Za-z]+-\d{4})", name)
    return m.group(1) if m else "unknown release"


def _valid(code: str) -> bool:
    return bool(icd10cm().is_valid_item(code))


def dotted(code: str) -> str:
    """ICD-10 style dotting: ``"I214"`` -> ``"I21.4"``; idempotent; strips and upper-cases.

    Inserts a dot after the third character when there is none. It does not know ICD-9 (whose
    E codes dot after the fourth character); ICD-9 codes are handled undotted by
    :func:`icd9_to_icd10`.
    """
    c = code.strip().upper()
    if "." in c or len(c) <= 3:
        return c
    return f"{c[:3]}.{c[3:]}"


def _chapter_key(chapter: str | int) -> str:
    s = str(chapter).strip()
    return s.zfill(2) if s.isdigit() else s


@functools.cache
def _chapter_titles() -> dict[str, str]:
    cm = icd10cm()
    out: dict[str, str] = {}
    for n in range(1, 100):
        if not cm.is_chapter(str(n)):
            break
        out[_chapter_key(n)] = cm.get_description(str(n))
    return out


def chapter_title(chapter: str) -> str:
    """Title of a chapter (``"09"`` or ``"9"``) as simple-icd-10-cm gives it, range included:
    ``"Diseases of the circulatory system (I00-I99)"``. Raises ``KeyError`` for unknown chapters."""
    key = _chapter_key(chapter)
    titles = _chapter_titles()
    if key not in titles:
        raise KeyError(f"unknown ICD-10-CM chapter {chapter!r}; known: {sorted(titles)}")
    return titles[key]


def is_valid_category(cat: str) -> bool:
    """True iff ``cat`` is exactly a 3-character ICD-10-CM category of the installed release."""
    if not isinstance(cat, str) or len(cat) != 3:
        return False
    return bool(icd10cm().is_category(cat))


_CM_SHAPE: Final = re.compile(r"^[A-Z][0-9A-Z]{2}(\.[0-9A-Z]{0,4})?$")


def _block_range(block: str) -> str:
    """CMS writes every block as a range; the library names one-category blocks ("C50") by the category."""
    return block if "-" in block else f"{block}-{block}"


def _full_info(code: str, origin: str, reason: str | None) -> Icd10Info:
    cm = icd10cm()
    chain = [code, *cm.get_ancestors(code)]
    if len(chain) < 3 or not cm.is_chapter(chain[-1]):  # a chapter/block, not a code
        return unmapped(f"{code!r} is an ICD-10-CM chapter or block, not a code")
    return Icd10Info(
        code=code,
        category=code[:3],
        block=_block_range(chain[-2]),
        chapter=_chapter_key(chain[-1]),
        title=cm.get_description(code),
        origin=origin,
        reason=reason,
    )


@functools.lru_cache(maxsize=65536)
def icd10cm_info(code: str, origin: str = "icd10") -> Icd10Info:
    """Hierarchy of an ICD-10-CM code, dotted or not (``"I214"``, ``"I21.4"``, ``"I50"``).

    A code missing from the installed release is resolved to its nearest existing ancestor by
    stripping trailing characters (``T81.4XXA`` -> ``T81.4``), noted in ``reason``. Empty,
    malformed or unknown-category input gives ``origin="unmapped"``.
    """
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {ORIGINS}, got {origin!r}")
    if code is None or not isinstance(code, str) or not code.strip():
        return unmapped("empty ICD-10-CM code")
    d = dotted(code)
    if not _CM_SHAPE.match(d):
        return unmapped(f"malformed ICD-10-CM code {code!r}")
    d = d.rstrip(".")
    if _valid(d):
        return _full_info(d, origin, None)
    ancestor = _retired_by_split(d)
    if ancestor is None:
        return unmapped(f"{d} is not an ICD-10-CM code (release {icd10cm_release()}) and no code of its "
                         f"shape exists under {_nearest_valid(d) or 'its category ' + d[:3]}")
    return _full_info(
        ancestor,
        "icd10_ancestor" if origin == "icd10" else origin,
        f"{d} is not in ICD-10-CM {icd10cm_release()} (retired by a split); used its nearest existing ancestor {ancestor}",
    )


def _nearest_valid(code: str) -> str | None:
    cand = code
    while len(cand) > 3:
        cand = cand[:-1].rstrip(".")
        if _valid(cand):
            return cand
    return None


def _retired_by_split(code: str) -> str | None:
    """The nearest existing ancestor of ``code`` when ``code`` looks like a code an earlier release
    had and a later one split (``T81.4XXA``: T81.4 now has T81.40XA, T81.41XA ...): the ancestor has
    a descendant of the same length and, for a 7-character code, the same 7th character. Codes no
    release could have had (``Z99.9999``) give None."""
    ancestor = _nearest_valid(code)
    if ancestor is None:
        return None
    shaped = [c for c in icd10cm().get_descendants(ancestor) if len(c) == len(code)]
    if len(code.replace(".", "")) == 7:
        shaped = [c for c in shaped if c[-1] == code[-1]]
    return ancestor if shaped else None


@functools.lru_cache(maxsize=256)
def descendants_or_self(code: str) -> frozenset[str]:
    """``code`` (dotted) and all its ICD-10-CM descendants. ``code`` may be a code, a category,
    a block (``"I30-I5A"``) or a chapter (``"09"``/``"9"``). Unknown codes give an empty set."""
    cm = icd10cm()
    c = code.strip().upper()
    if c.isdigit():
        c = str(int(c))  # the library names chapters "1".."22"
    elif "-" not in c:
        c = dotted(c)
    if not cm.is_valid_item(c):
        return frozenset()
    return frozenset([c, *cm.get_descendants(c)])


def same_or_descendant(a: str, b: str) -> bool:
    """Is ICD-10-CM code ``a`` equal to, or a descendant of, ``b``?

    ``b`` may be a code, category, block (``"I30-I5A"``) or chapter (``"09"``). ``a`` is resolved
    with :func:`icd10cm_info` first, so codes absent from the release count via their nearest
    ancestor (``"T81.4XXA"`` is under ``"T81"``).
    """
    info = icd10cm_info(a)
    if info.code is None:
        return False
    cm = icd10cm()
    bb = b.strip().upper()
    if bb.isdigit():
        return info.chapter == _chapter_key(bb)
    if "-" in bb:  # block
        return cm.is_block(bb) and bb == info.block
    bb = dotted(bb)
    if not cm.is_valid_item(bb):
        return False
    return info.code == bb or bb in cm.get_ancestors(info.code)


@functools.cache
def _title_index() -> dict[str, str]:
    cm = icd10cm()
    index: dict[str, str] = {}
    for code in cm.get_all_codes(with_dots=True):
        if "-" in code or code.isdigit():
            continue
        key = " ".join(cm.get_description(code).lower().split())
        prev = index.get(key)
        if prev is None or (len(code), code) < (len(prev), prev):
            index[key] = code
    return index


def icd10cm_from_title(text: str) -> Icd10Info:
    """Exact (case- and whitespace-insensitive) match of free text against ICD-10-CM titles.
    When several codes share a title the shortest, then smallest, code wins. Origin
    ``"text_match"``. Builds a title index on first call (~1 s)."""
    if text is None or not isinstance(text, str) or not text.strip():
        return unmapped("empty diagnosis text")
    key = " ".join(text.lower().split())
    code = _title_index().get(key)
    if code is None:
        return unmapped(f"no ICD-10-CM title equals {text!r}")
    return replace(icd10cm_info(code, "text_match"), reason=f"exact title match for {text!r}")
