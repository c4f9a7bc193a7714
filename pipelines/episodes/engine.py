"""The controller of one episode: budgets, routing, the trace. The only place episodes happen.

Every doctor action attempt is one turn of the action budget B, an unusable one (an error turn)
included. The attempt before the last is answered with a reminder that the next one must be
FINALIZE; a last attempt that is not a FINALIZE ends the episode ``budget_exhausted``. Questions go
to the patient through the self-check, tests to the laboratory physician within the examination
limit E_max, CALL_MDT to the consultant (once, after enough questions or tests). Each turn is
recorded as :class:`~pipelines.episodes.events.Event` rows.

With experience memory (a :class:`Memory`, pipelines/evaluation/memory/), every observation that
precedes a doctor decision carries the cards retrieved for the doctor's context so far, and the
decision's event records their ids (``memory_card_ids``). Without it nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from pipelines.episodes.actions import Action, Ask, CallMdt, Finalize, RequestTest, to_json
from pipelines.episodes.config import EpisodeConfig
from pipelines.episodes.events import Event
from pipelines.episodes.judge import Judge
from pipelines.episodes.lab import LaboratoryPhysician, LabReport, budget_limited
from pipelines.episodes.messages import say
from pipelines.episodes.patient import Patient
from pipelines.episodes.self_check import SelfCheck, respond


class EpisodeOver(RuntimeError):
    """An action after the episode ended (TRL feeds the message back to the model)."""


class Consultant(Protocol):
    def advise(self, question: str, transcript: Sequence[str]) -> str: ...


class Memory(Protocol):
    def show(self, observation: str, context: str) -> tuple[str, tuple[str, ...]]:
        """The observation with the cards for ``context`` (what the doctor has learnt) appended,
        and the ids of the cards shown."""
        ...


@dataclass
class Tally:
    turns: int = 0
    n_questions: int = 0
    n_tests: int = 0
    n_invalid_tests: int = 0
    n_error_turns: int = 0
    mdt_calls: int = 0


class Engine:
    def __init__(self, episode_id: str, presentation: str, opening: str, config: EpisodeConfig, patient: Patient,
                 lab: LaboratoryPhysician, consultant: Consultant, self_check: SelfCheck | None, judge: Judge,
                 memory: Memory | None = None):
        self.episode_id = episode_id
        self.presentation = presentation  # what the doctor starts from (the whole case under ``vignette``)
        self.config = config
        self.tally = Tally()
        self.events: list[Event] = []
        self.transcript: list[str] = [presentation]  # what the doctor has learnt, in order (rules left out)
        self.termination: str | None = None
        self.final: Finalize | None = None
        self._patient, self._lab, self._consultant = patient, lab, consultant
        self._self_check, self._judge = self_check, judge
        self._opening = opening
        self._memory = memory
        self._shown: tuple[str, ...] = ()  # the cards shown for the doctor's next decision

    @property
    def done(self) -> bool:
        return self.termination is not None

    @property
    def reward(self) -> float:
        return self._judge.reward(self.final)

    def open(self) -> str:
        self._record(Event(0, "controller", "START", self._opening))
        return self._recall(self._remind(self._opening))

    # -- doctor turns ----------------------------------------------------------------------
    def act(self, action: Action) -> str:
        self._require_open()
        problem = self._not_allowed(action)
        if problem:
            return self.error_turn(to_json(action), problem)
        self.tally.turns += 1
        if self.tally.turns == self.config.action_budget and not isinstance(action, Finalize):
            self.tally.n_error_turns += 1
            self._record(Event(self.tally.turns, "doctor", "ERROR", to_json(action), error=say("not_final")))
            return self._end("budget_exhausted", say("budget_exhausted"))
        match action:
            case Ask():
                return self._observe(self._ask(action))
            case RequestTest():
                return self._observe(self._request(action))
            case CallMdt():
                return self._observe(self._call_mdt(action))
            case Finalize():
                self.final = action
                self._record(Event(self.tally.turns, "doctor", "FINALIZE", to_json(action)))
                return self._end("finalized", say("finalized", diagnosis=action.diagnosis, icd10=action.icd10))

    def error_turn(self, raw: str, reason: str) -> str:
        """An unusable doctor output: it consumes a turn and is counted."""
        self._require_open()
        self.tally.turns += 1
        self.tally.n_error_turns += 1
        self._record(Event(self.tally.turns, "doctor", "ERROR", raw, error=reason))
        if self.tally.turns >= self.config.action_budget:
            return self._end("budget_exhausted", say("budget_exhausted"))
        return self._recall(self._remind(say("error_turn", reason=reason)))

    def _not_allowed(self, action: Action) -> str | None:
        config, tally = self.config, self.tally
        if isinstance(action, RequestTest) and len(action.names) > config.tests_per_request:
            return say("too_many_tests", limit=config.tests_per_request, count=len(action.names))
        if isinstance(action, CallMdt):
            if tally.mdt_calls >= config.mdt_calls:
                return say("mdt_not_allowed", reason=say("mdt_used"))
            if tally.n_questions < config.mdt_min_questions and tally.n_tests < config.mdt_min_tests:
                return say("mdt_not_allowed", reason=say("mdt_too_early", questions=config.mdt_min_questions,
                                                         tests=config.mdt_min_tests))
        return None

    def _ask(self, action: Ask) -> str:
        turn = self.tally.turns
        self.tally.n_questions += len(action.questions)
        self._record(Event(turn, "doctor", "ASK", to_json(action)))
        replies = []
        for question in action.questions:
            reply = respond(self._patient, question, self._self_check)
            self._record(Event(turn, "patient", "REPLY", reply.text, unit_ids=reply.unit_ids,
                               self_check=reply.self_check))
            replies.append(reply.text)
        return "\n".join(replies)

    def _request(self, action: RequestTest) -> str:
        turn = self.tally.turns
        self._record(Event(turn, "doctor", "REQUEST_TEST", to_json(action), test_name="; ".join(action.names)))
        reports = [self._lookup(name) for name in action.names]
        for report in reports:
            for item in report.items:
                self._record(Event(turn, "lab", "RESULT", item.text, test_name=item.test_name,
                                   match_type=item.match_type, returned=item.returned))
        return "\n".join(r.text for r in reports)

    def _lookup(self, name: str) -> LabReport:
        if self.tally.n_tests >= self.config.test_limit:
            return budget_limited(name, self.config.test_limit)
        self.tally.n_tests += 1
        report = self._lab.lookup(name)
        self.tally.n_invalid_tests += report.invalid
        return report

    def _call_mdt(self, action: CallMdt) -> str:
        turn = self.tally.turns
        self.tally.mdt_calls += 1
        self._record(Event(turn, "doctor", "CALL_MDT", to_json(action)))
        advice = self._consultant.advise(action.question or say("default_mdt_question"), self.transcript)
        self._record(Event(turn, "consultant", "REPLY", advice))
        return advice

    # -- bookkeeping -------------------------------------------------------------------------
    def _observe(self, text: str) -> str:
        """What the doctor reads after a turn: the answer, kept in the transcript, and the reminder."""
        self.transcript.append(text)
        return self._recall(self._remind(text))

    def _remind(self, text: str) -> str:
        """``text`` with the last-attempt reminder when the next attempt is the last."""
        if self.tally.turns + 1 != self.config.action_budget:
            return text
        warning = say("last_attempt")
        self._record(Event(self.tally.turns, "controller", "WARN", warning))
        return f"{text}\n\n{warning}"

    def _recall(self, text: str) -> str:
        """``text`` with the memory cards for the doctor's next decision (none without memory)."""
        if self._memory is None:
            return text
        text, self._shown = self._memory.show(text, "\n".join(self.transcript))
        return text

    def _end(self, termination: str, message: str) -> str:
        self.termination = termination
        self._record(Event(self.tally.turns, "controller", "END", termination))
        self.transcript.append(message)
        return message

    def _record(self, event: Event) -> None:
        if event.actor == "doctor" and self._shown:
            event = replace(event, memory_card_ids=self._shown)
        self.events.append(event)

    def _require_open(self) -> None:
        if self.done:
            raise EpisodeOver(f"the episode is over ({self.termination}); reset it to start another")
