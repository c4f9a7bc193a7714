"""The MedQA text normalisation: folding to ASCII and the canonical name form."""

from __future__ import annotations

import random
import unicodedata

from pipelines.medqa.text import _PUNCT_MAP, ascii_fold, norm


def _folded_whole(text: str) -> str:
    """The definition: map the typography, decompose the whole text, drop every combining mark."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_PUNCT_MAP))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def test_ascii_fold_maps_typography_spells_greek_and_drops_accents():
    assert ascii_fold("Guillain\u2013Barr\u00e9 \u201csyndrome\u201d") == 'Guillain-Barre "syndrome"'
    assert ascii_fold("\u03b1-1 antitrypsin, 38.5\u00b0C") == "alpha-1 antitrypsin, 38.5\u00b0C"
    assert ascii_fold("plain text") == "plain text"
    assert norm("M\u00e9ni\u00e8re's disease") == "meniere disease"


def test_ascii_fold_equals_decomposing_the_whole_text():
    """Only runs beyond ASCII are decomposed: the same text as decomposing all of it, with combining
    marks after ASCII letters, in runs, out of canonical order, and characters that decompose to many."""
    alphabet = ("ab Z0.,-'\n" "\u00e9\u00d6\u00f1\u00df\u00c6\u2013\u2014\u2019\u201c\u03b1\u03b2\u00b0\u00b5\u00b1\u2264"
                "\ufb01\u00b2\u00bd\u01c5\u212b\u0301\u0308\u0327\u0323\u0345\u05b0\u093c\u3099\uff76\ud55c\u00a0\u2212")
    rng = random.Random(11)
    texts = ["e\u0301\u0323", "\u1e69\u0307", "a\u0323\u0301b"] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(20000)]
    assert [ascii_fold(t) for t in texts] == [_folded_whole(t) for t in texts]
