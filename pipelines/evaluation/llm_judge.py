"""The LLM judge: an OpenAI-compatible model grades S_diag and the evidence and plan items, in the
place of the offline judge (same :class:`~pipelines.evaluation.judges.Judge` interface).

Requests go through the episodes' :class:`~pipelines.episodes.llm.client.LLMClient` (the ``judge``
role of :class:`~pipelines.episodes.llm.config.LLMConfig`: retries, a bound on requests in flight,
the ledger) and its egress guard: every case is checked before the first request, so MIMIC- or
SICdb-derived text meant for a host that may not receive it raises
:class:`~pipelines.episodes.llm.egress.EgressRefused` and nothing is sent. The prompt is
``pipelines/episodes/prompts/judge.yaml``; the answer is parsed deterministically
(:func:`parse_grades`: the JSON object, its five fields, numbers in range). A failed request or an
unusable answer never stops scoring: the episode gets the offline judge's grades and the reason in
``judge_error``. Under the oracle-block condition a code outside the true block stays at 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from pipelines.episodes.llm.client import HttpClientFactory, LLMClient, LLMFault, Message, Tags
from pipelines.episodes.llm.config import LLMConfig
from pipelines.episodes.llm.ledger import Ledger
from pipelines.episodes.llm.normalise import loads_lenient
from pipelines.episodes.llm.roles import prompts
from pipelines.evaluation.diagnosis import TrueAnswer
from pipelines.evaluation.judges import Grades, OfflineJudge, Submission
from pipelines.evaluation.params import scoring_params

ROLE = "judge"
FIELDS = ("diagnosis_level", "evidence_matched", "evidence_unsupported", "plan_matched", "plan_unsupported")
LEVELS = ("code", "category", "block", "chapter", "none")


class JudgeOutputError(ValueError):
    """An LLM judge's answer that cannot be read as grades; the message says why."""


def _numbered(items: Sequence[str], none: str) -> str:
    return "\n".join(f"{i}. {text}" for i, text in enumerate(items, 1)) or none


def judge_messages(s: Submission) -> list[Message]:
    """The judge's prompt for one submission (it has a final output)."""
    texts, final, manager = prompts(ROLE), s.final, s.reference.manager
    none = texts["none"]
    user = texts["user"].format(
        diagnosis=manager.diagnosis_name, codes=", ".join(manager.acceptable_icd10) or none,
        names=", ".join(manager.acceptable_names) or none, submitted=final.diagnosis, submitted_code=final.icd10,
        evidence_points=_numbered([p.text for p in s.reference.evidence], none),
        management_points=_numbered([p.text for p in s.reference.management], none),
        evidence_items=_numbered(final.evidence, none), plan_items=_numbered(final.plan, none),
        follow_up_items=_numbered(final.follow_up, none), shown="\n".join(s.shown))
    return [{"role": "system", "content": texts["system"].format(judge_json_template=texts["template"])},
            {"role": "user", "content": user}]


def _indices(data: dict, field: str, size: int) -> int:
    values = data[field]
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise JudgeOutputError(f"{field} must be a list of item numbers")
    if any(not 1 <= v <= size for v in values):
        raise JudgeOutputError(f"{field} holds a number outside 1..{size}")
    return len(set(values))


def parse_grades(text: str, s: Submission, levels: dict[str, float]) -> Grades:
    """The grades in an LLM judge's answer; raises :class:`JudgeOutputError` when unusable."""
    try:
        data, _ = loads_lenient(text)
    except ValueError as exc:
        raise JudgeOutputError(str(exc)) from None
    if not isinstance(data, dict) or set(data) != set(FIELDS):
        raise JudgeOutputError(f"the answer must be one JSON object with exactly the fields {', '.join(FIELDS)}")
    level = data["diagnosis_level"]
    if level not in LEVELS:
        raise JudgeOutputError(f"diagnosis_level must be one of {', '.join(LEVELS)}, not {level!r}")
    final, ref = s.final, s.reference
    s_diag = levels.get(level, 0.0)
    if s.oracle_block and not TrueAnswer(ref.manager).agreement(final.icd10)["block"]:
        s_diag = 0.0
    return Grades(s_diag, _indices(data, "evidence_matched", len(ref.evidence)),
                  _indices(data, "evidence_unsupported", len(final.evidence)),
                  _indices(data, "plan_matched", len(ref.management)), _indices(data, "plan_unsupported", len(final.plan)))


class LLMJudge:
    name = "llm"

    def __init__(self, llm: LLMConfig, *, run_id: str = "judge", http_client: HttpClientFactory | None = None,
                 fallback: OfflineJudge | None = None):
        llm.role(ROLE)  # an unconfigured judge fails before anything is graded
        self.llm, self.ledger = llm, Ledger(run_id)
        self._http_client = http_client
        self._fallback = fallback or OfflineJudge()
        self._levels = scoring_params().diagnosis_levels

    def grade(self, submissions: Sequence[Submission]) -> list[Grades]:
        return asyncio.run(self._grade(submissions))

    async def _grade(self, submissions: Sequence[Submission]) -> list[Grades]:
        client = LLMClient(self.llm, self.ledger, http_client=self._http_client)
        base_url = self.llm.role(ROLE).base_url
        for s in submissions:  # refuse before anything is sent
            client.guard.check(base_url, s.reference.origin, ROLE, f", case {s.reference.case_id}")
        try:
            return list(await asyncio.gather(*(self._one(client, s) for s in submissions)))
        finally:
            await client.aclose()

    async def _one(self, client: LLMClient, s: Submission) -> Grades:
        fallback = self._fallback.grade_one(s)
        if s.final is None:  # nothing to grade, nothing to ask
            return fallback
        try:
            completion = await client.complete(ROLE, judge_messages(s),
                                               Tags(s.episode_id, s.reference.case_id, s.reference.origin))
            return parse_grades(completion.text, s, self._levels)
        except (LLMFault, JudgeOutputError) as exc:
            return replace(fallback, error=str(exc)[:500])
