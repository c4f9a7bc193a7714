"""What the doctor read before each decision of a recorded episode: the observations of a replay.

The trace (``episode_events``) records what each role said, not the text the doctor read: a panel's
results are rows without the panel heading, memory cards are ids. A replay gives that text exactly:
the case is reset with the run's settings and seed (``runs.config``), each recorded doctor decision
is played again as the :class:`DiagnosticEpisode` tool call it amounts to (an error turn as an error
turn), and each decision is shown the memory cards the trace says it was shown
(:class:`RecordedMemory`: a run's bank grows while it runs). A replay counts only when it reproduces
every recorded event. The offline roles are deterministic, so every run whose patient and consultant
are offline replays; an LLM patient or consultant does not, and :func:`from_trace` rebuilds the
observations from the recorded replies instead (no panel headings, no memory cards).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import schemas
from pipelines.episodes import actions
from pipelines.episodes.actions import Action, Ask, CallMdt, Finalize, ProtocolError, RequestTest
from pipelines.episodes.engine import Engine, EpisodeOver
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.events import event_rows
from pipelines.episodes.messages import say
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.memory.cards import show

OFFLINE = "offline"
REPLY_ACTORS = ("patient", "lab", "consultant")
Row = Mapping[str, Any]  # an ``episode_events`` row


@dataclass(frozen=True)
class ToolCall:
    """A decision as a call of one of :class:`DiagnosticEpisode`'s tools."""

    name: str
    arguments: dict[str, Any]


def tool_call(action: Action) -> ToolCall:
    match action:
        case Ask(questions):
            return ToolCall("ask", {"questions": list(questions)})
        case RequestTest(names):
            return ToolCall("request_test", {"names": list(names)})
        case CallMdt(question):
            return ToolCall("call_mdt", {"question": question})
        case Finalize(diagnosis, icd10, evidence, plan, follow_up):
            return ToolCall("finalize", {"diagnosis": diagnosis, "icd10": icd10, "evidence": list(evidence),
                                         "plan": list(plan), "follow_up": list(follow_up)})


@dataclass(frozen=True)
class Decision:
    turn: int
    action: str  # ASK | REQUEST_TEST | CALL_MDT | FINALIZE, or ERROR (an unusable output)
    output: str  # the doctor's output as the trace records it
    call: ToolCall | None  # None for an error turn
    observation: str  # what the doctor read after it
    available: tuple[str, ...]  # the actions the engine accepted before it (empty when read off the trace)


@dataclass(frozen=True)
class Observed:
    opening: str
    decisions: tuple[Decision, ...]
    replayed: bool  # the engine's own observations (else the trace's replies)


class RecordedMemory:
    """The memory cards each decision was shown, in decision order, as the trace records them."""

    def __init__(self, shown: Sequence[tuple[str, ...]], texts: Mapping[str, str]):
        self._shown = iter(shown)
        self._texts = texts

    @classmethod
    def of(cls, events: Sequence[Row], texts: Mapping[str, str]) -> RecordedMemory | None:
        """The episode's recorded cards; None when one of them is no longer in ``memory_cards``."""
        shown = [tuple(row["memory_card_ids"]) for row in events if row["actor"] == "doctor"]
        return cls(shown, texts) if all(c in texts for ids in shown for c in ids) else None

    def show(self, observation: str, context: str) -> tuple[str, tuple[str, ...]]:
        ids = next(self._shown, ())
        return show(observation, [self._texts[c] for c in ids]), ids


def replayable(run: Row) -> bool:
    """Whether a ``runs`` row's roles other than the doctor are the deterministic offline ones."""
    return run["patient_simulator"] == OFFLINE and json.loads(run["config"]).get("consultant", OFFLINE) == OFFLINE


def run_settings(store: CaseStore, run: Row, memory: RecordedMemory | None) -> EpisodeSettings:
    """The episode settings a run played under: its preset and every setting (``runs.config``), its seed."""
    episode = dict(json.loads(run["config"])["episode"])
    return EpisodeSettings(store, episode.pop("preset"), run["seed"], memory=memory, **episode)


def available_actions(engine: Engine) -> tuple[str, ...]:
    """The decisions the engine accepts now: only FINALIZE on the last attempt (anything else ends the
    episode), CALL_MDT while the engine's own rule allows it."""
    if engine.tally.turns + 1 == engine.config.action_budget:
        return ("FINALIZE",)
    mdt = engine._not_allowed(CallMdt("")) is None  # the engine's rule itself, so the two cannot drift
    return ("ASK", "REQUEST_TEST", *(("CALL_MDT",) if mdt else ()), "FINALIZE")


def replay(settings: EpisodeSettings, case_id: str, run_id: str, events: Sequence[Row]) -> Observed | None:
    """The episode's decisions with the observations the engine gives them again; None when the replay
    does not reproduce every recorded event (the cases changed since the run)."""
    episode = DiagnosticEpisode(settings)
    opening = episode.reset(case_id=case_id, run_id=run_id)
    engine = episode.engine
    decisions = []
    try:
        for row in (r for r in events if r["actor"] == "doctor"):
            available = available_actions(engine)
            if row["action"] == "ERROR":
                call, observation = None, engine.error_turn(row["content"], row["error"] or "")
            else:
                call = tool_call(actions.parse(row["content"]))
                observation = getattr(episode, call.name)(**call.arguments)
            decisions.append(Decision(row["turn"], row["action"], row["content"], call, observation, available))
    except (ProtocolError, EpisodeOver):
        return None
    columns = list(schemas.get("episode_events").columns)
    recorded = [{c: row[c] for c in columns} for row in events]
    return Observed(opening, tuple(decisions), True) if event_rows(engine.episode_id, engine.events) == recorded \
        else None


def from_trace(events: Sequence[Row]) -> Observed:
    """The decisions with observations rebuilt from the recorded replies (and the controller's
    messages), for an episode that cannot be replayed."""
    turns: dict[int, list[Row]] = {}
    for row in events:
        turns.setdefault(row["turn"], []).append(row)
    opening = _joined([r["content"] for r in turns[0] if r["action"] == "START"], turns[0])
    decisions = []
    for row in (r for r in events if r["actor"] == "doctor"):
        rows = turns[row["turn"]]
        call = None if row["action"] == "ERROR" else tool_call(actions.parse(row["content"]))
        decisions.append(Decision(row["turn"], row["action"], row["content"], call,
                                  _trace_observation(row, call, rows), ()))
    return Observed(opening, tuple(decisions), False)


def _trace_observation(doctor: Row, call: ToolCall | None, rows: Sequence[Row]) -> str:
    end = next((r["content"] for r in rows if r["action"] == "END"), None)
    if end == "finalized" and call is not None:
        return say("finalized", diagnosis=call.arguments["diagnosis"], icd10=call.arguments["icd10"])
    if end is not None:
        return say("budget_exhausted")
    if call is None:
        return _joined([say("error_turn", reason=doctor["error"])], rows)
    return _joined(["\n".join(r["content"] for r in rows if r["actor"] in REPLY_ACTORS)], rows)


def _joined(texts: list[str], rows: Sequence[Row]) -> str:
    """``texts`` with the turn's last-attempt reminder, as the engine appends it."""
    return "\n\n".join([*texts, *(r["content"] for r in rows if r["action"] == "WARN")])
