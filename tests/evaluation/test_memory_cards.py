"""The card language (pipelines/evaluation/memory/cards.py): templates, the 80-unit cut, the block
shown to the doctor, and reading a card back from its text."""

from __future__ import annotations

import pytest

from pipelines.evaluation.memory.cards import (
    card_settings,
    exam_list,
    read_card,
    render,
    show,
    split_shown,
    truncate,
    units,
    words,
)

FINDINGS = "A 70-year-old man presenting with shortness of breath. swelling of both legs for a week"


def test_the_templates_are_the_papers_card_shapes():
    templates = card_settings().templates
    assert templates["success"].startswith("IF {findings} THEN")
    assert templates["correction"].startswith("IF {findings} AVOID")
    assert all(templates[name].startswith("ACTION=") for name in ("request_test", "finalize"))
    assert (card_settings().max_units, card_settings().top_k) == (80, 3)


def test_every_card_is_cut_at_80_whitespace_units():
    assert truncate("a  b\tc\n d", 3) == "a b c"
    long = render("success", findings=" ".join(f"w{i}" for i in range(200)), diagnosis="Heart failure",
                  code="I50.9", tests="NT-proBNP")
    assert units(long) == 80 and long.startswith("IF w0 w1")
    short = render("finalize", presentation="A man with chest pain", questions=2)
    assert short == "ACTION=FINALIZE after 2 questions IF A man with chest pain."


def test_a_card_reads_back_to_the_fields_it_was_written_from():
    text = render("success", findings=FINDINGS, diagnosis="Heart failure, unspecified", code="I50.9",
                  tests=exam_list(["NT-proBNP", "Chest X-ray"]))
    card = read_card(text)
    assert (card.template, card.findings, card.diagnosis, card.code) == ("success", FINDINGS,
                                                                        "Heart failure, unspecified", "I50.9")
    assert card.tests == ("NT-proBNP", "Chest X-ray")
    avoid = read_card(render("correction", findings=FINDINGS, diagnosis="Pneumonia", code="J18.9", tests=exam_list([])))
    assert (avoid.template, avoid.code, avoid.tests) == ("correction", "J18.9", ())
    rule = read_card(render("finalize", presentation="A man with chest pain", questions=3))
    assert (rule.template, rule.findings, rule.questions) == ("finalize", "A man with chest pain", 3)
    early = read_card(render("request_test", findings=FINDINGS, tests=exam_list(["Troponin T"])))
    assert (early.template, early.tests) == ("request_test", ("Troponin T",))


def test_free_wording_and_cards_cut_short_are_not_read():
    assert read_card("Order an ECG early for chest pain.") is None
    text = render("success", findings=" ".join(["pain"] * 90), diagnosis="Angina", code="I20.9", tests="ECG")
    assert read_card(text) is None  # cut inside its findings: the THEN part is gone


def test_the_shown_block_is_appended_and_split_off_again():
    cards = [render("finalize", presentation="A man with chest pain", questions=2), "ACTION=CALL_MDT when unsure."]
    shown = show("The patient says: it hurts.", cards)
    assert shown.startswith("The patient says: it hurts.\n\nExperience memory")
    assert split_shown(shown) == ("The patient says: it hurts.", tuple(cards))
    assert show("plain", []) == "plain" and split_shown("plain") == ("plain", ())


def test_words_are_content_words_only():
    assert words("The 70-year-old man has SHORTNESS of breath, 5400 pg/mL.") == {"year", "old", "man", "shortness",
                                                                                 "breath", "pg", "ml"}


@pytest.mark.parametrize("template", ["success", "correction", "request_test", "finalize"])
def test_each_template_fills_to_a_readable_card(template):
    values = {"findings": FINDINGS, "presentation": "A man with chest pain", "diagnosis": "Angina", "code": "I20.9",
              "tests": exam_list(["ECG"]), "questions": 1}
    assert read_card(render(template, **values)).template == template
