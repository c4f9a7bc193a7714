"""may_negate: ConText is skipped on a doc only where none of its negation rules can match, so the
units and findings are what running ConText on every doc gives."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from medspacy.context import ConTextRule
from note_texts import DISCHARGE_NOTE
from spacy.util import filter_spans

from pipelines.notes.sections import CONTEXT, _negation_words, may_negate

ONLY_TOKENS = ["sentencizer", "line_break_sentences"]


def _doc(nlp, text: str):
    return nlp(text, disable=[p for p in nlp.pipe_names if p not in ONLY_TOKENS])


@pytest.mark.parametrize("text", ["Denies chest pain.", "No fever or chills", "Pain was not relieved by rest.",
                                  "Chest X-ray negative for pneumonia.", "without focal deficits",
                                  "Chest pain: none", "Patient was not able to walk."])
def test_a_doc_with_a_negation_rule_s_words_may_be_negated(nlp, text):
    assert may_negate(nlp, _doc(nlp, text))


@pytest.mark.parametrize("text", ["Chest pain radiating to the left arm.", "Lives with wife, retired teacher.",
                                  "Aspirin 81 mg daily", "Hypertension, hyperlipidemia, diabetes mellitus type 2"])
def test_a_doc_without_them_is_not(nlp, text):
    assert not may_negate(nlp, _doc(nlp, text))


def test_where_the_gate_says_no_context_negates_nothing(nlp):
    """Every clause of a whole discharge note and of sentences built around each negation rule's own
    words: where the gate skips ConText, ConText run anyway finds no negated entity."""
    rules = [r for r in nlp.get_pipe(CONTEXT).rules if r.category == "NEGATED_EXISTENCE"]
    texts = [line for line in DISCHARGE_NOTE.splitlines() if line.strip()]
    texts += [f"{r.literal} chest pain" for r in rules] + [f"chest pain {r.literal}" for r in rules]
    texts += [f"{' '.join(r.literal.split()[:-1])} chest pain" for r in rules if len(r.literal.split()) > 1]
    context, skipped = nlp.get_pipe(CONTEXT), 0
    for text in texts:
        doc = _doc(nlp, text)
        doc.ents = filter_spans([doc[i : i + 1] for i, t in enumerate(doc) if t.is_alpha])  # every word a target
        negated = any(e._.is_negated for e in context(doc).ents)
        if not may_negate(nlp, doc):
            skipped += 1
            assert not negated, text
    assert skipped > len(texts) // 5  # the gate does skip: a gate that never skips would pass the loop above


class _Pipeline:
    """What _negation_words reads of a pipeline: its ConText rules and its tokenizer (by spaces here)."""

    def __init__(self, *rules: ConTextRule):
        self._context = SimpleNamespace(rules=list(rules))

    def get_pipe(self, name: str) -> SimpleNamespace:
        return self._context

    def make_doc(self, text: str) -> list[SimpleNamespace]:
        return [SimpleNamespace(lower_=word.lower(), is_space=False) for word in text.split()]


def test_the_words_a_rule_needs():
    words = _negation_words(_Pipeline(
        ConTextRule("free of", "NEGATED_EXISTENCE", direction="FORWARD"),
        ConTextRule("was not", "NEGATED_EXISTENCE", direction="FORWARD", pattern=[
            {"LOWER": {"IN": ["was", "is"]}}, {"LOWER": "really", "OP": "?"}, {"LOWER": {"IN": ["not", "n't"]}}]),
        ConTextRule("but", "NEGATED_EXISTENCE", direction="TERMINATE"),  # ends a scope, negates nothing
        ConTextRule("history of", "HISTORICAL", direction="FORWARD"),
    ))
    assert words == ((frozenset({"free"}), frozenset({"of"})),
                     (frozenset({"was", "is"}), frozenset({"not", "n't"})))


def test_a_rule_whose_words_cannot_be_told_keeps_context_on_every_doc():
    regex = _Pipeline(ConTextRule("no", "NEGATED_EXISTENCE", direction="FORWARD", pattern=r"\bno\b"))
    optional_only = _Pipeline(ConTextRule("no", "NEGATED_EXISTENCE", direction="FORWARD",
                                       pattern=[{"LOWER": "no", "OP": "?"}]))
    assert _negation_words(regex) is None and _negation_words(optional_only) is None
