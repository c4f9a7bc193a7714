"""The doctor's four actions and the reading of its output (MedEvoEval Template B.1 + ``icd10``).

A doctor answers each turn with one JSON object::

    {"action": "ASK|REQUEST_TEST|CALL_MDT|FINALIZE", "utterance": "", "question": "",
     "test_name": "", "rationale": [], "working_diagnoses": [], "needs_mdt": false,
     "diagnosis": [""], "evidence": [], "plan": [], "followup": [], "icd10": ""}

Fields may be left out; fields the template does not have are an error (the template says "do
not add fields"). ``test_name`` may also be a list of names. Anything that cannot become an
action raises :class:`ProtocolError`; the engine turns it into an error turn, which consumes
budget and is counted. No repair happens here: a normaliser belongs in front of this parser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

MAX_QUESTIONS = 2
OUTPUTS_CACHED = 4096  # offline doctors repeat their outputs across episodes (the same questions, tests)
TEMPLATE_FIELDS = frozenset({"action", "utterance", "question", "test_name", "rationale", "working_diagnoses",
                             "needs_mdt", "diagnosis", "evidence", "plan", "followup", "icd10"})
_QUESTION_END = re.compile(r"(?<=\?)\s+")


class ProtocolError(ValueError):
    """A doctor output or tool call that is not a usable action; the message says why."""


def _texts(values: object, field: str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise ProtocolError(f"{field} must be a list of strings")
    return tuple(v.strip() for v in values if v.strip())


@dataclass(frozen=True)
class Ask:
    questions: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.questions:
            raise ProtocolError("ASK needs a non-empty question")
        if len(self.questions) > MAX_QUESTIONS:
            raise ProtocolError(f"ASK takes at most {MAX_QUESTIONS} questions, got {len(self.questions)}")


@dataclass(frozen=True)
class RequestTest:
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.names:
            raise ProtocolError("REQUEST_TEST needs a test_name")


@dataclass(frozen=True)
class CallMdt:
    question: str


@dataclass(frozen=True)
class Finalize:
    diagnosis: str
    icd10: str
    evidence: tuple[str, ...]
    plan: tuple[str, ...]
    follow_up: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.diagnosis.strip():
            raise ProtocolError("FINALIZE needs exactly one diagnosis")
        if not self.icd10.strip():
            raise ProtocolError("FINALIZE needs an icd10 code")


Action = Ask | RequestTest | CallMdt | Finalize


def split_questions(text: str) -> tuple[str, ...]:
    """"Any fever? Any cough?" -> two questions; text without a question mark is one question."""
    return tuple(q.strip() for q in _QUESTION_END.split(text.strip()) if q.strip())


def ask(questions: object) -> Ask:
    return Ask(tuple(q for item in _texts(questions, "questions") for q in split_questions(item)))


def request_test(names: object) -> RequestTest:
    return RequestTest(_texts(names, "names"))


def call_mdt(question: object) -> CallMdt:
    if not isinstance(question, str):
        raise ProtocolError("question must be a string")
    return CallMdt(question.strip())


def finalize(diagnosis: object, icd10: object, evidence: object, plan: object, follow_up: object) -> Finalize:
    for value, field in ((diagnosis, "diagnosis"), (icd10, "icd10")):
        if not isinstance(value, str):
            raise ProtocolError(f"{field} must be a string")
    return Finalize(diagnosis.strip(), icd10.strip(), _texts(evidence, "evidence"), _texts(plan, "plan"),
                    _texts(follow_up, "followup"))


@lru_cache(maxsize=OUTPUTS_CACHED)  # actions are immutable: a repeated output is read once
def parse(text: str) -> Action:
    """One action from a doctor's Template B.1 output."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise ProtocolError(f"output is not one JSON object: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError("output is not one JSON object")
    extra = sorted(set(data) - TEMPLATE_FIELDS)
    if extra:
        raise ProtocolError(f"fields not in the template: {extra}")
    action = data.get("action")
    if action == "ASK":
        question = data.get("question", "")
        if not isinstance(question, str):
            raise ProtocolError("question must be a string")
        return Ask(split_questions(question))
    if action == "REQUEST_TEST":
        return request_test(_texts(data.get("test_name", []), "test_name"))
    if action == "CALL_MDT":
        return call_mdt(data.get("question") or data.get("utterance") or "")
    if action == "FINALIZE":
        diagnoses = _texts(data.get("diagnosis", []), "diagnosis")
        if len(diagnoses) != 1:
            raise ProtocolError(f"FINALIZE needs exactly one diagnosis, got {len(diagnoses)}")
        return finalize(diagnoses[0], data.get("icd10", ""), data.get("evidence", []), data.get("plan", []),
                        data.get("followup", []))
    raise ProtocolError(f"action must be one of ASK, REQUEST_TEST, CALL_MDT, FINALIZE, not {action!r}")


@lru_cache(maxsize=OUTPUTS_CACHED)
def to_json(action: Action) -> str:
    """The action as a Template B.1 object (what an offline doctor emits and an event records)."""
    match action:
        case Ask(questions):
            body = {"action": "ASK", "question": " ".join(questions)}
        case RequestTest(names):
            body = {"action": "REQUEST_TEST", "test_name": names[0] if len(names) == 1 else list(names)}
        case CallMdt(question):
            body = {"action": "CALL_MDT", "question": question}
        case Finalize(diagnosis, icd10, evidence, plan, follow_up):
            body = {"action": "FINALIZE", "diagnosis": [diagnosis], "icd10": icd10, "evidence": list(evidence),
                    "plan": list(plan), "followup": list(follow_up)}
    return json.dumps(body, ensure_ascii=False)
