"""What the judge reads of an episode: its recorded trace (an ``episodes`` row and its
``episode_events`` rows, from the warehouse or from an exported JSON line).

* ``turns_t``: the doctor's ASK, REQUEST_TEST and ERROR events (error turns count; CALL_MDT and
  FINALIZE do not: MedEvoEval's T);
* ``tests_e`` / ``invalid_tests``: the episode's examinations within the limit (a panel is one) and
  those not orderable or not done for the patient, as the controller counted them;
* ``elicited``: the units the patient's replies revealed;
* ``returned``: the exams the laboratory physician returned a value for (``exact``, or
  ``predicted``); ``ordered``: every distinct exam name it answered, whatever the answer, except
  requests beyond the limit (``budget_limited``: not done);
* ``revealed``: the texts shown to the doctor after the opening (patient replies, returned results);
* ``final``: the FINALIZE action, or None when the episode did not finalise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pipelines.episodes import actions
from pipelines.episodes.actions import Finalize, ProtocolError

COUNTED = ("ASK", "REQUEST_TEST", "ERROR")


@dataclass(frozen=True)
class Trace:
    episode_id: str
    run_id: str
    case_id: str
    doctor: str
    turns_t: int
    tests_e: int
    invalid_tests: int
    elicited: frozenset[str]
    returned: frozenset[str]
    ordered: frozenset[str]
    revealed: tuple[str, ...]
    final: Finalize | None


def trace_of(episode: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> Trace:
    """The trace of one episode from its ``episodes`` row and its event rows (any order)."""
    turns, elicited, returned, ordered, revealed, final = 0, set(), set(), set(), [], None
    for e in events:
        actor, action = e["actor"], e["action"]
        if actor == "doctor" and action in COUNTED:
            turns += 1
        elif actor == "doctor" and action == "FINALIZE":
            final = _final(e["content"])
        elif actor == "patient" and action == "REPLY":
            elicited.update(e["unit_ids"] or ())
            revealed.append(e["content"])
        elif actor == "lab" and action == "RESULT" and e["match_type"] != "budget_limited":
            ordered.add(e["test_name"])
            if e["returned"] and e["match_type"] in ("exact", "predicted"):
                returned.add(e["test_name"])
                revealed.append(e["content"])
    return Trace(episode["episode_id"], episode["run_id"], episode["case_id"], episode["doctor"], turns,
                 int(episode["n_tests"]), int(episode["n_invalid_tests"]), frozenset(elicited), frozenset(returned),
                 frozenset(ordered), tuple(revealed), final)


def _final(content: str) -> Finalize | None:
    try:
        action = actions.parse(content)
    except ProtocolError:
        return None
    return action if isinstance(action, Finalize) else None
