"""may_negate: ConText is skipped on a doc only where none of its negation rules can match, so the
units and findings are what running ConText on every doc gives; any_beyond_negation: the same for
an entity that no rule's match can reach from the sentences around it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from medspacy.context import ConTextRule
from note_texts import DISCHARGE_NOTE
from spacy.tokens import Doc, Span

from pipelines.notes.findings import _abnormal
from pipelines.notes.sections import CONTEXT, _negation_reach, _negation_words, any_beyond_negation, may_negate

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


def _every_word(doc: Doc) -> list[Span]:
    """Every word of ``doc`` a target entity (an entity needs a label to be kept)."""
    return [Span(doc, i, i + 1, label="TARGET") for i, t in enumerate(doc) if t.is_alpha]


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
        doc.ents = _every_word(doc)  # every word a target
        negated = any(e._.is_negated for e in context(doc).ents)
        if not may_negate(nlp, doc):
            skipped += 1
            assert not negated, text
    assert skipped > len(texts) // 5  # the gate does skip: a gate that never skips would pass the loop above


FINDINGS = [
    "There is a new right lower lobe opacity. No pleural effusion or pneumothorax.",
    "No pleural effusion. Small right pneumothorax.",
    "No opacity,\neffusion or pneumothorax.",
    "No pleural effusion or pneumothorax.",
    "Heart size is normal.\nNo focal consolidation. Mild pulmonary edema is not excluded.",
    "Left ventricle is dilated. Aorta is normal in caliber.\nThere is no evidence of hemorrhage.",
    "The lungs are clear. There is no pneumothorax. Opacity at the left base could be atelectasis.",
]


def test_an_entity_beyond_every_negation_is_one_context_does_not_negate(nlp):
    """Each word of radiology-like FINDINGS and of the discharge note's lines, alone a target: where
    the gate says no negation can reach it, ConText run on the whole doc does not negate it."""
    texts = FINDINGS + [line for line in DISCHARGE_NOTE.splitlines() if line.strip()]
    context, beyond, negated = nlp.get_pipe(CONTEXT), 0, 0
    for text in texts:
        doc = _doc(nlp, text)
        doc.ents = _every_word(doc)
        for entity in context(doc).ents:
            negated += entity._.is_negated
            if any_beyond_negation(nlp, doc, [entity]):
                beyond += 1
                assert not entity._.is_negated, (text, entity.text)
    assert beyond > 20 and negated > 10  # both kinds occur: the loop tests something


def test_abnormal_is_what_context_on_every_text_says(nlp):
    """The exam step's abnormal flag with the gate equals ConText's verdict on every text, and the
    gate lets at least one multi-sentence text skip ConText that the whole-doc gate would not."""
    context = nlp.get_pipe(CONTEXT)
    expected = [any(e.label_ == "ABNORMAL" and not e._.is_negated
                    for e in context(nlp(text, disable=[p for p in nlp.pipe_names if p not in
                                                        {*ONLY_TOKENS, "medspacy_target_matcher"}])).ents)
                for text in FINDINGS]
    assert _abnormal(nlp, FINDINGS) == expected
    assert True in expected and False in expected
    docs = [_doc(nlp, text) for text in FINDINGS]
    for doc in docs:
        doc.ents = _every_word(doc)
    assert any(may_negate(nlp, doc) and any_beyond_negation(nlp, doc, doc.ents) for doc in docs)


def test_how_far_a_negation_match_reaches():
    literal = ConTextRule("free of", "NEGATED_EXISTENCE", direction="FORWARD")
    three = ConTextRule("was not", "NEGATED_EXISTENCE", direction="FORWARD", pattern=[
        {"LOWER": "was"}, {"LOWER": "really", "OP": "?"}, {"LOWER": "not"}])
    repeated = ConTextRule("no", "NEGATED_EXISTENCE", direction="FORWARD", pattern=[{"LOWER": "no", "OP": "+"}])
    long_other = ConTextRule("a b c d e f g h", "HISTORICAL", direction="FORWARD")  # not a negation
    assert _negation_reach(_Pipeline(literal, three, long_other)) == 3
    assert _negation_reach(_Pipeline(literal, repeated)) is None
    windowed = _Pipeline(literal)
    windowed._context.max_scope = 5  # ConText scoped by a window of tokens, not by the sentence
    assert _negation_reach(windowed) is None


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
