"""Accents dropped: a text decomposed (NFKD) without its combining marks, ``"Ménière"`` -> ``"Meniere"``.

One definition for every fold of the project (exam names, diagnosis terms, MedQA text, answers).
"""

from __future__ import annotations

import re
import unicodedata

_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def strip_accents(text: str) -> str:
    """``text`` in NFKD without combining marks. Only the runs beyond ASCII are decomposed, which
    gives the same text: NFKD maps each character on its own, and its canonical reordering moves
    combining marks (never ASCII) only among themselves, all of which are dropped. A long text with
    one degree sign is not walked character by character."""
    if text.isascii():
        return text
    return _NOT_ASCII.sub(_strip_run, text)


def _strip_run(run: re.Match[str]) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", run.group()) if not unicodedata.combining(c))
