"""The language of memory cards (``data/memory_cards.yaml``): how a card is written from its
template and cut to 80 units, how retrieved cards are shown to the doctor, and how a doctor reads
them back from the observation text it is given.

Writing and reading use the same templates: :func:`read_card` turns a template into a pattern
(its words literal, each ``{field}`` a group), so an offline doctor reads a card the way a model
would read its sentence, from the text alone. A card that follows no template (an LLM manager's
free wording, a card cut short) reads as None: the offline doctor passes over it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from string import Formatter

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from pipelines.datafiles import Record, yaml_mapping

PACKAGE, FILE = "pipelines.evaluation", "data/memory_cards.yaml"
# template -> its memory_type, and the fields it may use
CONDITIONS = ("findings", "presentation")  # a card's condition: the findings, or the presentation alone
TEMPLATES = {"success": ("success", {"diagnosis", "code", "tests"}),
             "correction": ("correction", {"diagnosis", "code", "tests"}),
             "request_test": ("rule", {"tests"}),
             "finalize": ("rule", {"questions"})}
SEPARATOR = "\n\n"  # between an observation and the memory block
_WORD = re.compile(r"[a-z][a-z]+")


@dataclass(frozen=True)
class CardSettings:
    max_units: int
    top_k: int
    findings_units: int
    paid_importance: frozenset[str]
    test_separator: str
    no_tests: str
    templates: dict[str, str]
    shown: str
    card: str


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in Formatter().parse(template) if field is not None}


@cache
def card_settings() -> CardSettings:
    fields = ("max_units", "top_k", "findings_units", "paid_importance", "test_separator", "no_tests", "templates",
              "shown", "card")
    record = Record(FILE, "", yaml_mapping(PACKAGE, FILE, fields))
    templates = record.sub("templates")
    templates.only(TEMPLATES)
    texts = {name: templates.text(name) for name in TEMPLATES}
    for name, text in texts.items():
        condition = _fields(text) & set(CONDITIONS)
        if len(condition) != 1 or not _fields(text) - condition <= TEMPLATES[name][1]:
            raise templates.error(name, f"use one of {{findings}} or {{presentation}} and only the fields "
                                        f"{sorted(TEMPLATES[name][1])}")
    shown, card = record.text("shown"), record.text("card")
    if _fields(shown) != {"cards"} or _fields(card) != {"rule_text"}:
        raise record.error("shown", "`shown` holds exactly {cards}, `card` exactly {rule_text}")
    importance = record.get("paid_importance")
    if not isinstance(importance, list) or not set(importance) <= {"key", "supporting", "background"}:
        raise record.error("paid_importance", "expected a list of key, supporting, background")
    return CardSettings(record.integer("max_units", lo=1), record.integer("top_k", lo=1),
                        record.integer("findings_units", lo=1), frozenset(importance),
                        record.text("test_separator"), record.text("no_tests"), texts, shown, card)


def truncate(text: str, units: int | None = None) -> str:
    """``text`` as at most ``units`` (default ``max_units``) whitespace-separated units."""
    return " ".join(text.split()[: card_settings().max_units if units is None else units])


def units(text: str) -> int:
    return len(text.split())


def render(template: str, **values: object) -> str:
    """Card ``template`` (a name in :data:`TEMPLATES`) filled with ``values``, cut to ``max_units``."""
    return truncate(card_settings().templates[template].format(**values))


def exam_list(names: list[str] | tuple[str, ...]) -> str:
    s = card_settings()
    return s.test_separator.join(names) if names else s.no_tests


# ---------------------------------------------------------------------------------- showing


def show(observation: str, rule_texts: list[str]) -> str:
    """The observation with the cards' block appended (unchanged when there is no card)."""
    if not rule_texts:
        return observation
    s = card_settings()
    lines = "\n".join(s.card.format(rule_text=text) for text in rule_texts)
    return f"{observation}{SEPARATOR}{s.shown.format(cards=lines)}"


def _pattern(template: str, tail: bool = False) -> re.Pattern[str]:
    """``template`` as a pattern: its literal text escaped, each field a lazy named group."""
    parts = [re.escape(literal) + (f"(?P<{field}>.+?)" if field is not None else "")
             for literal, field, _, _ in Formatter().parse(template)]
    return re.compile(("" if not tail else re.escape(SEPARATOR)) + "".join(parts) + (r"\Z" if tail else ""),
                      re.DOTALL)


@cache
def _shown_pattern() -> re.Pattern[str]:
    return _pattern(card_settings().shown, tail=True)


@cache
def _card_pattern() -> re.Pattern[str]:
    return _pattern(card_settings().card)


def split_shown(observation: str) -> tuple[str, tuple[str, ...]]:
    """The observation without its memory block, and the rule texts of the cards in the block."""
    found = _shown_pattern().search(observation)
    if found is None:
        return observation, ()
    lines = (_card_pattern().fullmatch(line) for line in found["cards"].splitlines())
    return observation[: found.start()], tuple(m["rule_text"] for m in lines if m)


# ---------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class ReadCard:
    """What a card says, as a reader makes it out: the template it follows and its fields."""

    template: str
    findings: str
    diagnosis: str | None = None
    code: str | None = None
    tests: tuple[str, ...] = ()
    questions: int | None = None


@cache
def _readers() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, _pattern(text)) for name, text in card_settings().templates.items())


def read_card(rule_text: str) -> ReadCard | None:
    """The card's fields, or None when it follows none of the templates."""
    s = card_settings()
    for name, pattern in _readers():
        found = pattern.fullmatch(rule_text)
        if found is None:
            continue
        values = found.groupdict()
        tests = values.get("tests")
        questions = values.get("questions")
        if questions is not None and not questions.isdigit():
            continue
        condition = values.get("findings") or values["presentation"]
        return ReadCard(name, condition, values.get("diagnosis"), values.get("code"),
                        () if tests in (None, s.no_tests) else tuple(tests.split(s.test_separator)),
                        int(questions) if questions is not None else None)
    return None


def words(text: str) -> frozenset[str]:
    """The content words of a text (lower case, letters only, English stop words left out): what a
    reader compares a card's findings with what it has heard."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in ENGLISH_STOP_WORDS)
