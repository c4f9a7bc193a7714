"""Dropping accents: one definition for every fold."""

from __future__ import annotations

import random
import unicodedata

from pipelines.accents import strip_accents


def _decomposed_whole(text: str) -> str:
    """The definition: decompose the whole text, drop every combining mark."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def test_strip_accents_examples():
    assert strip_accents("M\u00e9ni\u00e8re, Guillain\u2013Barr\u00e9, 38.5\u00b0C") == "Meniere, Guillain\u2013Barre, 38.5\u00b0C"
    assert strip_accents("plain text") == "plain text"
    assert strip_accents("") == ""


def _texts() -> list[str]:
    """Combining marks after ASCII letters, in runs, out of canonical order, and characters that
    decompose to many."""
    alphabet = ("ab Z0.,-'\n" "\u00e9\u00d6\u00f1\u00df\u00c6\u2013\u2014\u2019\u201c\u03b1\u03b2\u00b0\u00b5\u00b1\u2264"
                "\ufb01\u00b2\u00bd\u01c5\u212b\u0301\u0308\u0327\u0323\u0345\u05b0\u093c\u3099\uff76\ud55c\u00a0\u2212")
    rng = random.Random(11)
    return ["e\u0301\u0323", "\u1e69\u0307", "a\u0323\u0301b"] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(20000)]


def test_strip_accents_equals_decomposing_the_whole_text():
    """Only runs beyond ASCII are decomposed: the same text as decomposing all of it."""
    texts = _texts()
    assert [strip_accents(t) for t in texts] == [_decomposed_whole(t) for t in texts]


def test_a_table_beyond_ascii_maps_the_runs_as_translating_the_whole_text_would():
    """A table whose keys are all beyond ASCII, applied to the runs only: the same text as the whole
    text translated, then decomposed (replacements in ASCII, beyond it, and a combining mark)."""
    table = str.maketrans({"\u2013": "-", "\u03b1": "alpha", "\u00b5": "\u03bc", "\u00c6": "E\u0301", "\u2212": ""})
    texts = _texts()
    assert [strip_accents(t, table) for t in texts] == [_decomposed_whole(t.translate(table)) for t in texts]
