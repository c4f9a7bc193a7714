"""The trainer-facing episode: one class per episode, shaped as TRL's ``environment_factory`` wants.

``DiagnosticEpisode()`` takes no argument and runs on the process-wide settings
(pipelines/episodes/settings.py: :func:`configure`, else ``CLINVERSE_HOME``). A trainer passes
the class and a dataset with a ``case_id`` column; ``reset`` gets each row as keywords. The
public methods ``ask``, ``request_test``, ``call_mdt`` and ``finalize`` are the doctor's tools,
typed and documented for the tool schema; an unusable call is an error turn (it consumes
budget), a call after the end raises :class:`EpisodeOver`. The controller that runs offline
doctors (pipelines/episodes/controller.py) drives this same class.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pipelines.episodes import actions
from pipelines.episodes.actions import Action, ProtocolError
from pipelines.episodes.config import SETTINGS
from pipelines.episodes.engine import Engine, EpisodeOver
from pipelines.episodes.settings import EpisodeSettings, default_settings


class DiagnosticEpisode:
    """A diagnostic episode: a doctor starts from a case's presentation, asks the patient, orders
    examinations, may consult once, and finalises one ICD-10 diagnosis."""

    def __init__(self, settings: EpisodeSettings | None = None):
        self._settings = settings
        self.engine: Engine | None = None
        self._case_id: str | None = None
        self._store = None

    def reset(self, case_id: str, **config: Any) -> str:
        """Start an episode on ``case_id`` and return the opening presentation (with the rules and
        the orderable examinations). ``config`` may hold ``preset``, ``seed``, ``run_id`` and any
        episode setting (``action_budget``, ``test_limit`` ...); other keys, such as the dataset
        columns a trainer passes along, are ignored."""
        settings = self._settings or default_settings()
        self._case_id, self._store = case_id, settings.store
        overrides = {k: v for k, v in config.items() if k in SETTINGS}
        episode_config = settings.config(config.get("preset"), **overrides)
        self.engine = settings.engine(case_id, episode_config, int(config.get("seed", settings.seed)),
                                      config.get("run_id"))
        return self.engine.open()

    def ask(self, questions: list[str]) -> str:
        """Ask the patient one or two questions.

        Args:
            questions: One or two questions for the patient, each about the history or symptoms.

        Returns:
            The patient's replies, one per question.
        """
        return self._step(lambda: actions.ask(questions), {"questions": questions})

    def request_test(self, names: list[str]) -> str:
        """Order examinations by their catalog name, an alias or a panel name (such as CBC or BMP).

        Args:
            names: Names of the examinations to order; a panel counts as one examination.

        Returns:
            One report per examination: value, unit, reference range and abnormal flag, or why
            there is no result.
        """
        return self._step(lambda: actions.request_test(names), {"names": names})

    def call_mdt(self, question: str) -> str:
        """Ask the consultant for a diagnostic review (once, after four questions or one test).

        Args:
            question: What the consultant should review.

        Returns:
            The consultant's advice.
        """
        return self._step(lambda: actions.call_mdt(question), {"question": question})

    def finalize(self, diagnosis: str, icd10: str, evidence: list[str], plan: list[str], follow_up: list[str]) -> str:
        """Submit the final diagnosis; this ends the episode.

        Args:
            diagnosis: One short diagnosis phrase.
            icd10: Its ICD-10-CM code, such as I50.9.
            evidence: The findings that support the diagnosis.
            plan: The management plan.
            follow_up: The follow-up arrangements.

        Returns:
            Confirmation that the diagnosis was recorded.
        """
        return self._step(lambda: actions.finalize(diagnosis, icd10, evidence, plan, follow_up),
                          {"diagnosis": diagnosis, "icd10": icd10, "evidence": evidence, "plan": plan,
                           "follow_up": follow_up})

    def get_reward(self) -> float:
        """The episode's reward: the outcome score S (0.5 diagnosis + 0.3 evidence + 0.2 plan, as
        the offline judge grades the trace) once the warehouse has rubrics; without them 1.0 when
        the final ICD-10 code is in the block of the true diagnosis (or of an acceptable code), else
        0.0. 0.0 before the episode is finalised.

        Returns:
            The reward.
        """
        if self.engine is None:
            return 0.0
        from pipelines.evaluation.reward import outcome_score, store_references  # the evaluation imports the engine

        references = store_references(self._store)
        return self.engine.reward if references is None else outcome_score(self.engine, self._case_id, references)

    def _step(self, build: Callable[[], Action], call: dict[str, Any]) -> str:
        if self.engine is None:
            raise EpisodeOver("no episode is running; call reset(case_id=...) first")
        try:
            action = build()
        except ProtocolError as exc:
            return self.engine.error_turn(json.dumps(call, ensure_ascii=False, default=str), str(exc))
        return self.engine.act(action)
