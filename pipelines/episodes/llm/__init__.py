"""The OpenAI-compatible backend for the episode roles (issue 11, section 5).

* ``config``: one :class:`~pipelines.episodes.llm.config.RoleConfig` per role (base URL, model,
  key, sampling, timeout, retries), from an explicit object or ``CLINVERSE_LLM_*`` variables;
* ``egress``: the guard that keeps MIMIC- and SICdb-derived text on loopback or allow-listed hosts;
* ``client``: one ``openai.AsyncOpenAI`` per endpoint, retries with backoff, a semaphore bounding
  the requests in flight, and the bridge that lets the engine's synchronous roles call it;
* ``ledger``: every request's tokens, latency and retries; the run's resource summary (MedEvoEval
  Table 10);
* ``normalise``: the deterministic repair of doctor outputs (switchable off);
* ``roles``: the LLM doctor, patient and consultant (prompts in ``pipelines/episodes/prompts/``);
* ``driver``: :func:`~pipelines.episodes.llm.driver.run_llm_episodes`, many episodes on one loop.

There is no LLM judge: the episode reward is the deterministic ICD-10 block agreement
(pipelines/episodes/judge.py) until the evaluation issue's judge protocol exists.
"""

from pipelines.episodes.controller import PATIENTS
from pipelines.episodes.doctors import DOCTORS

LLM = "llm"  # the name that puts a role on its OpenAI-compatible endpoint
DOCTORS_LLM = (*DOCTORS, LLM)
PATIENTS_LLM = (*PATIENTS, LLM)
CONSULTANTS_LLM = ("offline", LLM)


def llm_roles(doctor: str, patient: str, consultant: str = "offline") -> tuple[str, ...]:
    """The roles of a run that an LLM plays, in role order."""
    return tuple(role for role, name in (("doctor", doctor), ("patient", patient), ("consultant", consultant))
                 if name == LLM)
