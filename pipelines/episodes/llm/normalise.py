"""The deterministic normaliser of doctor outputs: repairs that a person would call obvious.

A model's output goes through :func:`normalise` before the strict Template B.1 parser
(pipelines/episodes/actions.py) when the run's ``normalise`` switch is on; with it off the raw
text meets the parser, for the raw-versus-normalised comparison. The repairs, each recorded by a
short label in the request's ledger row:

* JSON: a code fence (``fence``), text around the object (``surrounding_text``), a one-element
  list around it (``unwrapped_list``), trailing commas (``trailing_comma``), single-quoted strings
  (``single_quotes``), Python's ``True``/``False``/``None`` (``python_literal``);
* fields: a known alias of a template field (``field:follow_up->followup``), fields the template
  lacks dropped (``dropped:[...]``), a list of questions joined (``question_list``), an ASK whose
  question sits in ``utterance`` (``question_from_utterance``);
* the action: case and known aliases (``action:order_test->REQUEST_TEST``, data/normaliser.yaml);
* test names: a name that maps to exactly one orderable name, by the canonical name's key, or by
  a catalog alias, the exam vocabulary (:func:`pipelines.exams.vocabulary.resolve`) or a panel
  (:func:`~pipelines.exams.vocabulary.panel_name`) (``test:Hgb->Hemoglobin``); an ambiguous or
  unknown name is left for the laboratory physician to refuse;
* the ICD-10 code: case, spaces and the missing dot (``icd10:i509->I50.9``).

Nothing is guessed: no action is invented, no diagnosis chosen among several, no test picked
among candidates. Output that still is no JSON object stays unusable, and the engine records an
error turn.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.actions import TEMPLATE_FIELDS
from pipelines.episodes.views import ExamCatalog
from pipelines.exams.catalog import name_key
from pipelines.exams.vocabulary import panel_name, resolve

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_ICD10 = re.compile(r"^([A-Z][0-9][0-9A-Z])\.?([0-9A-Z]{1,4})?$")
_LITERALS = {"True": "true", "False": "false", "None": "null"}


@cache
def _aliases() -> dict[str, dict[str, str]]:
    data = yaml_mapping("pipelines.episodes", "data/normaliser.yaml", ("actions", "fields"))
    return {kind: {_fold(alias): target for target, aliases in table.items() for alias in [target, *aliases]}
            for kind, table in data.items()}


def _fold(text: str) -> str:
    return re.sub(r"[\s-]+", "_", str(text).strip().lower())


@dataclass(frozen=True)
class Normalised:
    """``text``: what the parser reads (None: no JSON object could be recovered, ``error`` says why)."""

    text: str | None
    repairs: tuple[str, ...]
    error: str | None = None


# ----------------------------------------------------------------------------------------- JSON


def _object_span(text: str) -> tuple[int, int] | None:
    """The first balanced ``{...}`` in ``text`` (quotes of either kind respected)."""
    start = text.find("{")
    while start != -1:
        depth, quote, i = 0, None, start
        while i < len(text):
            ch = text[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return start, i + 1
            i += 1
        start = text.find("{", start + 1)
    return None


def _repair_tokens(text: str) -> tuple[str, set[str]]:
    """Single-quoted strings to JSON strings, trailing commas dropped, Python literals to JSON."""
    out: list[str] = []
    fixes: set[str] = set()
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j, body = i + 1, []
            while j < n and text[j] != ch:
                if text[j] == "\\" and j + 1 < n:
                    body.append("'" if (ch == "'" and text[j + 1] == "'") else text[j:j + 2])
                    j += 2
                    continue
                body.append('\\"' if (ch == "'" and text[j] == '"') else text[j])
                j += 1
            if ch == "'":
                fixes.add("single_quotes")
            out.append('"' + "".join(body) + '"')
            i = j + 1
            continue
        if ch == ",":
            k = i + 1
            while k < n and text[k].isspace():
                k += 1
            if k < n and text[k] in "}]":
                fixes.add("trailing_comma")
                i += 1
                continue
        if ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            if word in _LITERALS:
                fixes.add("python_literal")
                word = _LITERALS[word]
            out.append(word)
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out), fixes


def loads_lenient(raw: str) -> tuple[Any, list[str]]:
    """A JSON object recovered from ``raw``, and the repairs it took; raises ValueError if none."""
    repairs: list[str] = []
    text = raw.strip()
    fenced = _FENCE.search(text)
    if fenced:
        repairs.append("fence")
        if text[: fenced.start()].strip() or text[fenced.end():].strip():
            repairs.append("surrounding_text")
        text = fenced.group(1).strip()
    try:
        return json.loads(text), repairs
    except (json.JSONDecodeError, TypeError):
        pass
    span = _object_span(text)
    if span is None:
        raise ValueError("no JSON object in the output")
    if (text[: span[0]].strip() or text[span[1]:].strip()) and "surrounding_text" not in repairs:
        if text[: span[0]].strip().endswith("[") and text[span[1]:].strip().startswith("]"):
            repairs.append("unwrapped_list")
        else:
            repairs.append("surrounding_text")
    body = text[span[0]: span[1]]
    try:
        return json.loads(body), repairs
    except json.JSONDecodeError:
        pass
    fixed, fixes = _repair_tokens(body)
    try:
        value = json.loads(fixed, strict=False)
    except json.JSONDecodeError:
        try:  # last resort for Python-literal dicts the tokenizer could not mend
            value = ast.literal_eval(body)
            fixes = {"python_literal"}
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ValueError(f"the output's object is not repairable JSON ({type(exc).__name__})") from None
    return value, repairs + sorted(fixes)


# -------------------------------------------------------------------------------------- test names


class TestNames:
    """Maps a requested test name to the one orderable name it can only mean, if there is one."""

    __test__ = False  # not a pytest class

    def __init__(self, orderable: Sequence[str], catalog: ExamCatalog | None = None):
        self._orderable = frozenset(orderable)
        self._by_key: dict[str, str] = {name_key(n): n for n in orderable}
        self._by_alias: dict[str, set[str]] = {}
        for key, names in (catalog.alias_keys.items() if catalog else ()):
            for name in names:
                if name in self._orderable:
                    self._by_alias.setdefault(key, set()).add(name)

    def map(self, name: str) -> str | None:
        if name in self._orderable:
            return name
        key = name_key(name)
        if key in self._by_key:
            return self._by_key[key]
        candidates = set(self._by_alias.get(key, ()))
        for found in (resolve(name), panel_name(name)):
            if found in self._orderable:
                candidates.add(found)
        return candidates.pop() if len(candidates) == 1 else None


@lru_cache(maxsize=16)  # every episode of a run orders from the same names: they are read once
def test_names(orderable: tuple[str, ...], catalog: ExamCatalog | None = None) -> TestNames:
    """The :class:`TestNames` of ``orderable`` and ``catalog``."""
    return TestNames(orderable, catalog)


# ------------------------------------------------------------------------------------- the action


def _icd10(code: str) -> str:
    compact = re.sub(r"\s+", "", code).upper()
    match = _ICD10.match(compact)
    if not match:
        return code.strip()
    return match.group(1) + (f".{match.group(2)}" if match.group(2) else "")


def _names(value: Any) -> Iterable[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def normalise(raw: str, tests: TestNames | None = None) -> Normalised:
    """``raw`` repaired into a Template B.1 object, with what was repaired; see the module notes."""
    try:
        data, repairs = loads_lenient(raw or "")
    except ValueError as exc:
        return Normalised(None, (), str(exc))
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
        if "unwrapped_list" not in repairs:
            repairs.append("unwrapped_list")
    if not isinstance(data, dict):
        return Normalised(None, tuple(repairs), "the output is not one JSON object")
    fields = _aliases()["fields"]
    out: dict[str, Any] = {}
    dropped = []
    for key, value in data.items():
        folded = _fold(key)
        target = folded if folded in TEMPLATE_FIELDS else fields.get(folded)
        if target is None or (target != key and (target in data or target in out)):
            dropped.append(str(key))
            continue
        if target != key:
            repairs.append(f"field:{key}->{target}")
        out[target] = value
    if dropped:
        repairs.append(f"dropped:{sorted(dropped)}")
    action = out.get("action")
    if isinstance(action, str):
        canonical = _aliases()["actions"].get(_fold(action))
        if canonical and canonical != action:
            repairs.append(f"action:{action}->{canonical}")
            out["action"] = canonical
    question = out.get("question")
    if isinstance(question, list) and all(isinstance(q, str) for q in question):
        out["question"] = " ".join(q.strip() for q in question if q.strip())
        repairs.append("question_list")
    if out.get("action") == "ASK" and not str(out.get("question") or "").strip() and \
            isinstance(out.get("utterance"), str) and out["utterance"].strip():
        out["question"] = out["utterance"].strip()
        repairs.append("question_from_utterance")
    names = _names(out.get("test_name"))
    if tests is not None and names is not None:
        mapped = []
        for name in names:
            found = tests.map(name.strip())
            if found is not None and found != name:
                repairs.append(f"test:{name}->{found}")
            mapped.append(found or name)
        out["test_name"] = mapped[0] if isinstance(out["test_name"], str) else mapped
    if isinstance(out.get("icd10"), str):
        code = _icd10(out["icd10"])
        if code != out["icd10"]:
            repairs.append(f"icd10:{out['icd10']}->{code}")
            out["icd10"] = code
    return Normalised(json.dumps(out, ensure_ascii=False), tuple(repairs))
