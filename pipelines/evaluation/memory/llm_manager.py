"""The LLM manager: an OpenAI-compatible model writes an episode's memory cards in the place of the
offline templates (same :class:`~pipelines.evaluation.memory.manager.Manager` interface).

Requests go through the episodes' :class:`~pipelines.episodes.llm.client.LLMClient` (the
``manager`` role of :class:`~pipelines.episodes.llm.config.LLMConfig`: retries, the ledger) and its
egress guard: :meth:`LLMManager.check` refuses a run's restricted cases before anything is sent,
and every request is checked again. The prompt is ``pipelines/episodes/prompts/manager.yaml``; the
answer is parsed deterministically (:func:`parse_cards`: one JSON object, 1 to ``max_cards`` cards,
each a known ``memory_type`` whose text has that type's shape). A failed request or an unusable
answer never stops a run: the offline manager's cards stand in, and the reason is kept in
:attr:`LLMManager.errors` (the ledger marks the answer unparsed).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable

import polars as pl

from pipelines.episodes.llm.client import HttpClientFactory, LLMClient, LLMFault, Message, Tags
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.llm.egress import DataOrigin, EgressGuard
from pipelines.episodes.llm.ledger import Ledger
from pipelines.episodes.llm.normalise import loads_lenient
from pipelines.episodes.llm.roles import prompts
from pipelines.evaluation.memory.bank import Draft
from pipelines.evaluation.memory.cards import card_settings, truncate
from pipelines.evaluation.memory.manager import OfflineManager, ScoredEpisode, paid_tests
from schemas.memory_cards import MEMORY_TYPES

ROLE = "manager"
FIELDS = ("memory_type", "rule_text", "search_text")


class ManagerOutputError(ValueError):
    """An LLM manager's answer that cannot be read as cards; the message says why."""


def _listed(items: Iterable[str], none: str) -> str:
    return ", ".join(items) or none


def manager_messages(e: ScoredEpisode) -> list[Message]:
    """The manager's prompt for one scored episode."""
    texts, trace, final = prompts(ROLE), e.trace, e.trace.final
    none, paid = texts["none"], paid_tests(e)
    verdict = texts["verdicts"]["unfinished" if final is None else "right" if e.right else "wrong"]
    user = texts["user"].format(
        shown="\n".join((e.reference.presentation, *trace.revealed)),
        questions=sum(1 for r in e.events if r["actor"] == "patient" and r["action"] == "REPLY"),
        ordered=_listed(sorted(trace.ordered), none), paid=_listed(paid, none),
        wasted=_listed(sorted(trace.ordered - set(paid)), none), diagnosis=final.diagnosis if final else none,
        code=final.icd10 if final else none, verdict=verdict, s_diag=f"{e.score['s_diag']:.2f}",
        score_s=f"{e.score['score_s']:.2f}", utility_u=f"{e.score['utility_u']:.3f}")
    system = texts["system"].format(max_cards=texts["max_cards"], max_units=card_settings().max_units,
                                    manager_json_template=texts["template"])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_cards(text: str) -> list[Draft]:
    """The cards in an LLM manager's answer, each cut to ``max_units``; raises
    :class:`ManagerOutputError` when the answer is unusable."""
    texts = prompts(ROLE)
    try:
        data, _ = loads_lenient(text)
    except ValueError as exc:
        raise ManagerOutputError(str(exc)) from None
    cards = data.get("cards") if isinstance(data, dict) and set(data) == {"cards"} else None
    if not isinstance(cards, list) or not 1 <= len(cards) <= texts["max_cards"]:
        raise ManagerOutputError(f"the answer must be one JSON object {{\"cards\": [...]}} with 1 to "
                                 f"{texts['max_cards']} cards")
    drafts = []
    for i, card in enumerate(cards, 1):
        if not isinstance(card, dict) or set(card) != set(FIELDS) or not all(isinstance(card[f], str) for f in FIELDS):
            raise ManagerOutputError(f"card {i} must have exactly the text fields {', '.join(FIELDS)}")
        kind, rule = card["memory_type"], truncate(card["rule_text"])
        if kind not in MEMORY_TYPES:
            raise ManagerOutputError(f"card {i}: memory_type must be one of {', '.join(MEMORY_TYPES)}, not {kind!r}")
        if not re.match(texts["shapes"][kind], rule):
            raise ManagerOutputError(f"card {i}: a {kind} card must read {texts['shapes'][kind]!r}")
        drafts.append(Draft(kind, rule, truncate(card["search_text"])))
    return drafts


class LLMManager:
    name = "llm"

    def __init__(self, llm: LLMConfig, *, run_id: str = "manager", http_client: HttpClientFactory | None = None,
                 fallback: OfflineManager | None = None):
        llm.role(ROLE)  # an unconfigured manager fails before anything is played
        self.llm, self.run_id = llm, run_id
        self.ledger = Ledger(run_id)
        self.errors: list[tuple[str, str]] = []  # (episode_id, why its offline cards stand in)
        self._http_client = http_client
        self._fallback = fallback or OfflineManager()

    def check(self, origins: Iterable[tuple[str, DataOrigin]]) -> None:
        """Refuse before anything is sent if a case's text may not go to the manager's host."""
        guard, base_url = EgressGuard(self.llm.allowed_hosts), self.llm.role(ROLE).base_url
        for case_id, origin in origins:
            guard.check(base_url, origin, ROLE, f", case {case_id}")

    def cards(self, e: ScoredEpisode) -> list[Draft]:
        return asyncio.run(self._cards(e))

    async def _cards(self, e: ScoredEpisode) -> list[Draft]:
        client = LLMClient(self.llm, self.ledger, http_client=self._http_client)
        try:
            completion = await client.complete(ROLE, manager_messages(e),
                                               Tags(e.trace.episode_id, e.trace.case_id, e.reference.origin))
        except LLMFault as exc:
            return self._stand_in(e, exc)
        finally:
            await client.aclose()
        try:
            drafts = parse_cards(completion.text)
        except ManagerOutputError as exc:
            completion.request.parsed = False
            return self._stand_in(e, exc)
        completion.request.parsed = True
        return drafts

    def _stand_in(self, e: ScoredEpisode, problem: Exception) -> list[Draft]:
        self.errors.append((e.trace.episode_id, str(problem)[:500]))
        return self._fallback.cards(e)

    def requests(self) -> pl.DataFrame:
        """The ledger rows of the requests since the last call (a run writes them with each batch)."""
        frame, self.ledger = self.ledger.frame(), Ledger(self.run_id)
        return frame
