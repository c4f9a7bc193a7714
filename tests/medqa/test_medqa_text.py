"""The MedQA text normalisation: folding to ASCII and the canonical name form."""

from __future__ import annotations

from pipelines.medqa.text import _PUNCT_MAP, ascii_fold, norm


def test_ascii_fold_maps_typography_spells_greek_and_drops_accents():
    assert ascii_fold("Guillain\u2013Barr\u00e9 \u201csyndrome\u201d") == 'Guillain-Barre "syndrome"'
    assert ascii_fold("\u03b1-1 antitrypsin, 38.5\u00b0C") == "alpha-1 antitrypsin, 38.5\u00b0C"
    assert ascii_fold("plain text") == "plain text"
    assert norm("M\u00e9ni\u00e8re's disease") == "meniere disease"


def test_ascii_fold_maps_only_beyond_ascii_before_dropping_accents():
    """The typography map's keys are all beyond ASCII, so the runs it leaves are folded as
    ``strip_accents`` folds them (tests/test_accents.py): a replacement next to an accent keeps both."""
    assert ascii_fold("\u03b1\u0301\u2013e\u0301\u00a0x") == "alpha-e x"
    assert all(not k.isascii() for k in map(chr, _PUNCT_MAP))
