"""TRL's ``GRPOTrainer(environment_factory=...)`` over the one episode engine.

The trainer builds one :class:`~pipelines.episodes.environment.DiagnosticEpisode` per rollout with
no argument, calls ``reset(**row)`` with the rollout's dataset row and appends the opening it
returns to the row's last prompt message, offers the episode's other public methods (``ask``,
``request_test``, ``call_mdt``, ``finalize``; TRL keeps ``reset`` and ``get_reward`` back) as tools,
their schemas read off the signatures and Google-style docstrings, and hands the episodes to the
reward functions. This module gives the rows (:func:`episode_dataset`) and the reward function
(:func:`episode_reward`); ``configure`` points every no-argument episode at the same warehouse::

    configure(home)  # pipelines.episodes.settings; or set CLINVERSE_HOME
    trainer = GRPOTrainer(model, reward_funcs=episode_reward, environment_factory=DiagnosticEpisode,
                          train_dataset=Dataset.from_list(episode_dataset(home)))

``reset`` is deterministic per case: the episode seed comes from the run seed and the case id, so
every member of a GRPO group (one row repeated) meets the same patient with the same answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.environment import DiagnosticEpisode
from pipelines.episodes.store import CaseStore
from pipelines.warehouse import Warehouse

SPLITS = ("train", "test")


@cache
def tool_instruction() -> str:
    """What a tool-calling doctor reads before the opening (prompts.yaml)."""
    return yaml_mapping("pipelines.training", "prompts.yaml")["tool_doctor"]


def episode_dataset(source: Path | str | Warehouse, split: str = "train",
                    limit: int | None = None) -> list[dict[str, Any]]:
    """One row per case of ``split`` (the train split unless the test split is asked for), in
    case id order, at most ``limit``: the ``case_id`` that ``reset`` reads and a conversational
    ``prompt`` (one user message, the tool instruction, which TRL completes with the opening)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    warehouse = source if isinstance(source, Warehouse) else Warehouse(source)
    case_ids = sorted(CaseStore.from_warehouse(warehouse).case_ids(split))[:limit]
    prompt = tool_instruction() + "\n\n"
    return [{"case_id": case_id, "prompt": [{"role": "user", "content": prompt}]} for case_id in case_ids]


def episode_reward(environments: Sequence[DiagnosticEpisode], **_: Any) -> list[float]:
    """The reward function: each rollout's episode reward (the outcome score S once the warehouse
    has rubrics; see :meth:`DiagnosticEpisode.get_reward`). TRL passes the rollouts' episodes as
    ``environments`` beside the prompts and completions, which it ignores."""
    return [environment.get_reward() for environment in environments]
