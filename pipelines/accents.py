"""Accents dropped: a text decomposed (NFKD) without its combining marks, ``"Ménière"`` -> ``"Meniere"``.

One definition for every fold of the project (exam names, diagnosis terms, MedQA text, answers).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def strip_accents(text: str, table: Mapping[int, str] | None = None) -> str:
    """``text`` in NFKD without combining marks; ``table``: a ``str.translate`` table of characters
    beyond ASCII, applied to them first. Only the runs beyond ASCII are mapped and decomposed, which
    gives the same text: NFKD maps each character on its own, and its canonical reordering moves
    combining marks (never ASCII) only among themselves, all of which are dropped. A long text with
    one degree sign is not walked character by character (``translate`` with a table walks in Python:
    90 us for a vignette)."""
    if text.isascii():
        return text
    return _NOT_ASCII.sub(lambda run: _stripped(run.group() if table is None else run.group().translate(table)), text)


def _stripped(run: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", run) if not unicodedata.combining(c))
