"""The LLM-backed roles: doctor, observable patient and consultant, prompts from
``pipelines/episodes/prompts/*.yaml`` (MedEvoEval's Prompts B.1, B.2 and B.4 and their templates).

* :class:`LLMDoctor` is asynchronous: the driver awaits :meth:`LLMDoctor.act` once per turn and
  gets a :class:`DoctorTurn`, an action or the reason the output is unusable (an error turn).
  Its output goes through the normaliser first unless the run switches it off.
* :class:`LLMPatient` and :class:`LLMConsultant` are synchronous facades the engine calls inside
  a step, like their offline twins; they reach the loop's client through a
  :class:`~pipelines.episodes.llm.client.Bridge`. The patient is built from the patient view
  only and its replies meet the self-check as any patient's do; refusals come from the offline
  voice (no request). A failed request gives a fixed non-answer, never invented content.

The LLM judge (its prompt ``prompts/judge.yaml``) lives with the scores:
pipelines/evaluation/llm_judge.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from pipelines.datafiles import yaml_mapping
from pipelines.episodes import actions
from pipelines.episodes.actions import Action, ProtocolError
from pipelines.episodes.doctors import Opening
from pipelines.episodes.engine import Tally
from pipelines.episodes.llm.client import Bridge, LLMClient, LLMFault, Message, Tags
from pipelines.episodes.llm.normalise import loads_lenient, normalise, test_names
from pipelines.episodes.patient import PatientReply
from pipelines.episodes.views import ExamCatalog, PatientView, require_view
from pipelines.episodes.voice import Voice
from pipelines.exams.vocabulary import panels

STYLE_TRAITS = ("verbosity", "anxiety", "cooperativeness", "recall")


@cache
def prompts(role: str) -> dict[str, Any]:
    """The prompt file of ``role`` (doctor, patient, consultant)."""
    return yaml_mapping("pipelines.episodes", f"prompts/{role}.yaml")


def _system(content: str) -> Message:
    return {"role": "system", "content": content}


def _user(content: str) -> Message:
    return {"role": "user", "content": content}


def _assistant(content: str) -> Message:
    return {"role": "assistant", "content": content}


# ------------------------------------------------------------------------------------------ doctor


@dataclass(frozen=True)
class DoctorTurn:
    """What one doctor output became: an action, or the reason it is unusable (``error``)."""

    raw: str
    action: Action | None
    error: str | None
    repairs: tuple[str, ...] = ()


def doctor_system_prompt(opening: Opening) -> str:
    config, texts = opening.config, prompts("doctor")
    tests_rule = texts["tests_one"] if config.tests_per_request == 1 else texts["tests_many"].format(
        tests_per_request=config.tests_per_request, panels=", ".join(panels()) if config.panels else "none")
    return texts["system"].format(tests_rule=tests_rule, mdt_min_questions=config.mdt_min_questions,
                                  mdt_min_tests=config.mdt_min_tests, action_budget=config.action_budget,
                                  test_limit=config.test_limit, doctor_json_template=texts["template"],
                                  available_test_catalog=", ".join(opening.catalog))


class LLMDoctor:
    privileged = False

    def __init__(self, client: LLMClient, tags: Tags, *, normalise_outputs: bool = True,
                 catalog: ExamCatalog | None = None):
        self._client = client
        self._tags = tags
        self._normalise = normalise_outputs
        self._catalog = catalog
        self._messages: list[Message] = []
        self._carry: str | None = None  # an observation whose request failed, said again next turn

    def begin(self, opening: Opening) -> None:
        self._config = opening.config
        self._messages = [_system(doctor_system_prompt(opening))]
        self._tests = test_names(opening.catalog, self._catalog) if self._normalise else None

    async def act(self, observation: str, tally: Tally) -> DoctorTurn:
        """The doctor's next output for ``observation``; raises LLMFault when the request fails."""
        config, texts = self._config, prompts("doctor")
        if self._carry is not None:
            observation, self._carry = f"{self._carry}\n\n{observation}", None
        turn = tally.turns + 1
        self._messages.append(_user(texts["user"].format(
            observation=observation, turn=turn, action_budget=config.action_budget, n_questions=tally.n_questions,
            n_tests=tally.n_tests, test_limit=config.test_limit, mdt_called=texts["mdt_called"][tally.mdt_calls > 0])))
        try:
            completion = await self._client.complete("doctor", self._messages, replace(self._tags, turn=turn))
        except LLMFault:
            self._messages.pop()  # no assistant message to pair it with: say it again next turn
            self._carry = observation
            raise
        self._messages.append(_assistant(completion.text))
        result = self.read(completion.text)
        completion.request.repairs = list(result.repairs)
        completion.request.parsed = result.action is not None
        return result

    def read(self, raw: str) -> DoctorTurn:
        """``raw`` through the normaliser (when on) and the Template B.1 parser."""
        text, repairs = raw, ()
        if self._normalise:
            normalised = normalise(raw, self._tests)
            if normalised.text is None:
                return DoctorTurn(raw, None, normalised.error, normalised.repairs)
            text, repairs = normalised.text, normalised.repairs
        try:
            return DoctorTurn(raw, actions.parse(text), None, repairs)
        except ProtocolError as exc:
            return DoctorTurn(raw, None, str(exc), repairs)


# ----------------------------------------------------------------------------------------- patient


def patient_system_prompt(view: PatientView) -> str:
    view = require_view(view, PatientView, "LLMPatient")
    texts = prompts("patient")
    style = view.profile.speech_style
    facts = "\n".join(texts["fact"].format(number=i, category=u.category.replace("_", " "), text=u.text)
                      for i, u in enumerate(view.units, start=1))
    p = view.profile
    return texts["system"].format(
        style=", ".join(texts["style"][trait][getattr(style, trait)] for trait in STYLE_TRAITS),
        openness=p.openness, conscientiousness=p.conscientiousness, extraversion=p.extraversion,
        agreeableness=p.agreeableness, neuroticism=p.neuroticism, facts=facts or "(none)")


class LLMPatient:
    """The observable patient played by a model, from the patient view only."""

    def __init__(self, view: PatientView, bridge: Bridge, tags: Tags, seed: int):
        view = require_view(view, PatientView, "LLMPatient")
        self._units = view.units
        self._voice = Voice(view.profile.speech_style, seed)
        self._bridge, self._tags = bridge, tags
        self._messages: list[Message] = [_system(patient_system_prompt(view))]

    def reply(self, question: str) -> PatientReply:
        texts = prompts("patient")
        asked = _user(texts["user"].format(question=question))
        try:
            completion = self._bridge.complete("patient", [*self._messages, asked], self._tags)
        except LLMFault:
            return PatientReply(texts["no_answer"], ())
        self._messages += [asked, _assistant(completion.text)]
        text, unit_ids, parsed = self._read(completion.text)
        completion.request.parsed = parsed
        return PatientReply(text, unit_ids)

    def refusal(self) -> str:
        return self._voice.refusal()

    def _read(self, raw: str) -> tuple[str, tuple[str, ...], bool]:
        """The utterance and the hidden units it used; plain text when the model gave no JSON."""
        try:
            data, _ = loads_lenient(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("utterance"), str):
            text = raw.strip() if raw.strip() and "{" not in raw else ""
            return text or self._voice.unknown(), (), False
        numbers = data.get("facts") or []
        chosen = []
        for n in numbers if isinstance(numbers, list) else []:
            try:
                index = int(n) - 1
            except (TypeError, ValueError):
                continue
            if 0 <= index < len(self._units) and not self._units[index].disclosed:
                chosen.append(self._units[index].unit_id)
        text = data["utterance"].strip() or self._voice.unknown()
        return text, tuple(dict.fromkeys(chosen)), True


# -------------------------------------------------------------------------------------- consultant


def render_advice(raw: str) -> str:
    """The consultant's JSON as the advice text the doctor reads (the raw text if it is no JSON)."""
    texts = prompts("consultant")
    try:
        data, _ = loads_lenient(raw)
    except ValueError:
        return raw.strip() or texts["unavailable"]
    if not isinstance(data, dict):
        return raw.strip() or texts["unavailable"]
    render = texts["render"]
    lines = []
    opinion = data.get("consult_opinion") or data.get("utterance")
    if isinstance(opinion, str) and opinion.strip():
        lines.append(render["opinion"].format(text=opinion.strip()))
    for field in ("working_diagnoses", "key_evidence_for", "key_evidence_against", "missing_points",
                  "recommended_question", "recommended_diagnosis"):
        value = data.get(field)
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        items = [str(i).strip() for i in items if str(i).strip()]
        if items:
            lines.append(render[field].format(items="; ".join(items)))
    if isinstance(data.get("confidence"), (int, float)) and not isinstance(data["confidence"], bool):
        lines.append(render["confidence"].format(value=f"{float(data['confidence']):.2f}"))
    return "\n".join(lines) or texts["unavailable"]


class LLMConsultant:
    """The consultant played by a model; it reads the doctor's question and transcript only."""

    def __init__(self, bridge: Bridge, tags: Tags):
        self._bridge, self._tags = bridge, tags

    def advise(self, question: str, transcript: Sequence[str]) -> str:
        texts = prompts("consultant")
        messages = [_system(texts["system"].format(consultant_json_template=texts["template"])),
                    _user(texts["user"].format(question=question, transcript_items=len(transcript),
                                               transcript="\n\n".join(transcript)))]
        try:
            completion = self._bridge.complete("consultant", messages, self._tags)
        except LLMFault:
            return texts["unavailable"]
        advice = render_advice(completion.text)
        completion.request.parsed = advice != completion.text.strip()
        return advice
