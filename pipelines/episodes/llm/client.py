"""One client for every LLM role of a run: the official ``openai.AsyncOpenAI``, retries with
backoff, a bound on requests in flight, the egress guard and the ledger.

:meth:`LLMClient.complete` sends one chat completion for a role. Before anything else the egress
guard checks the role's host against the case's :class:`~pipelines.episodes.llm.egress.DataOrigin`
(a refusal raises :class:`~pipelines.episodes.llm.egress.EgressRefused`: nothing is sent).
Timeouts (the role's ``timeout_s``, for the whole attempt), connection errors and 5xx answers are
retried up to ``max_attempts`` attempts in all, after ``backoff_s``, ``2 * backoff_s``, ... (capped);
4xx answers are not retried. A request that still fails raises :class:`LLMFault`, which the roles
turn into an error turn (doctor) or a fixed non-answer (patient, consultant): an LLM fault never
crashes a run. The SDK's own retries are off so that every attempt is counted here.

One :class:`asyncio.Semaphore` per client bounds the requests in flight across roles and
episodes; it is held only while a request is on the wire, not during backoff. The HTTP layer
follows no redirects and ignores proxy variables, so the guarded host is the only one contacted.

The engine calls the patient and the consultant synchronously inside a step; the driver runs such
steps in a worker thread and :class:`Bridge` hands their requests to the loop's client
(``asyncio.run_coroutine_threadsafe``), so one client, one semaphore and one ledger serve all.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import openai

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.egress import DataOrigin, EgressGuard
from pipelines.episodes.llm.ledger import Ledger, Request

Message = dict[str, str]
HttpClientFactory = Callable[[RoleConfig], Any]  # -> an httpx2.AsyncClient (tests: a mock transport)


class LLMFault(RuntimeError):
    """A request that failed for good: ``kind`` is the ledger status, ``attempts`` how many were made."""

    def __init__(self, role: str, kind: str, attempts: int, detail: str):
        self.role, self.kind, self.attempts, self.detail = role, kind, attempts, detail
        super().__init__(f"the {role} model request failed ({kind}) after {attempts} attempt(s): {detail}")


@dataclass(frozen=True)
class Tags:
    """What a request is for: the episode and case (the ledger), the case's origin (the guard)."""

    episode_id: str
    case_id: str
    origin: DataOrigin
    turn: int | None = None


@dataclass(frozen=True)
class Completion:
    text: str
    request: Request  # its ledger row (the doctor adds what parsing made of the text)


class LLMClient:
    def __init__(self, config: LLMConfig, ledger: Ledger, *, http_client: HttpClientFactory | None = None,
                 sleep: Callable[[float], Any] = asyncio.sleep):
        self.config = config
        self.ledger = ledger
        self.guard = EgressGuard(config.allowed_hosts)
        self._semaphore = asyncio.Semaphore(config.max_in_flight)
        self._http_client = http_client
        self._sleep = sleep
        self._apis: dict[tuple[str, str], openai.AsyncOpenAI] = {}

    def _api(self, role: RoleConfig) -> openai.AsyncOpenAI:
        key = (role.base_url, role.api_key)
        if key not in self._apis:
            # httpx2's pool hands a request a connection in one pass over them; httpx's (the SDK's other
            # default) checks every idle connection against all of them, for every request and answer.
            http = (self._http_client(role) if self._http_client else
                    openai.DefaultAsyncHttpx2Client(timeout=role.timeout_s, follow_redirects=False, trust_env=False))
            self._apis[key] = openai.AsyncOpenAI(api_key=role.api_key, base_url=role.base_url, max_retries=0,
                                                 timeout=role.timeout_s, http_client=http)
        return self._apis[key]

    async def complete(self, role: str, messages: Sequence[Message], tags: Tags) -> Completion:
        """One chat completion for ``role``; raises EgressRefused (nothing sent) or LLMFault."""
        config = self.config.role(role)
        self.guard.check(config.base_url, tags.origin, role, f", case {tags.case_id}")
        api = self._api(config)
        record = self.ledger.open(tags.episode_id, tags.case_id, role, tags.turn, config.model, config.host)
        start = time.perf_counter()
        try:
            for attempt in range(1, config.max_attempts + 1):
                record.attempts, record.retries = attempt, attempt - 1
                kind, detail, response = await self._attempt(api, config, list(messages))
                if kind is None:
                    return Completion(_text(response), _usage(record, response))
                record.status, record.error = kind, detail
                if kind not in ("timeout", "connection_error", "server_error") or attempt == config.max_attempts:
                    raise LLMFault(role, kind, attempt, detail)
                await self._sleep(config.backoff(attempt))
            raise AssertionError("unreachable")  # the loop returns or raises
        finally:
            record.latency_s = time.perf_counter() - start

    async def _attempt(self, api: openai.AsyncOpenAI, config: RoleConfig,
                       messages: list[Message]) -> tuple[str | None, str, Any]:
        async with self._semaphore:
            self.ledger.sending()
            try:
                async with asyncio.timeout(config.timeout_s):
                    # The SDK walks ``messages`` through its typed transform, every member of the message
                    # union for every message: a millisecond or more per request, for messages that are
                    # plain role and content strings already. As extra body they are sent as given.
                    response = await api.chat.completions.create(model=config.model, messages=[],
                                                                 extra_body={"messages": messages},
                                                                 timeout=config.timeout_s, **config.sampling())
                return None, "", response
            except (TimeoutError, openai.APITimeoutError):
                return "timeout", f"no answer within {config.timeout_s:g} s", None
            except openai.APIConnectionError as exc:
                return "connection_error", str(exc) or type(exc).__name__, None
            except openai.APIStatusError as exc:
                kind = "server_error" if exc.status_code >= 500 else "client_error"
                return kind, f"HTTP {exc.status_code}: {exc.message}"[:500], None
            except openai.OpenAIError as exc:
                return "api_error", f"{type(exc).__name__}: {exc}"[:500], None
            finally:
                self.ledger.answered()

    async def aclose(self) -> None:
        for api in self._apis.values():
            await api.close()
        self._apis.clear()


def _text(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    return (getattr(message, "content", None) or "").strip()


def _usage(record: Request, response: Any) -> Request:
    record.status, record.error = "ok", None
    usage = getattr(response, "usage", None)
    if usage is not None:
        record.prompt_tokens = usage.prompt_tokens
        record.completion_tokens = usage.completion_tokens
    return record


class Bridge:
    """The loop's client for a synchronous role running in a worker thread."""

    def __init__(self, client: LLMClient, loop: asyncio.AbstractEventLoop):
        self._client = client
        self._loop = loop

    def complete(self, role: str, messages: Sequence[Message], tags: Tags) -> Completion:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(f"the synchronous {role} role was called on an event loop's thread; the driver runs "
                               "steps that call it in a worker thread")
        future = asyncio.run_coroutine_threadsafe(self._client.complete(role, messages, tags), self._loop)
        return future.result()
