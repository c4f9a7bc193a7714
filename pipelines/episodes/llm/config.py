"""Who serves each LLM role: endpoint, model, key and sampling, per role.

One documented way: a :class:`LLMConfig` object, built in code or read from the environment by
:meth:`LLMConfig.from_env`. The variables are settings of scope ``llm`` in ``pipelines.config``'s
one table (the README lists them with their defaults): each role (``doctor``, ``patient``,
``consultant``, ``judge``, ``manager``) reads ``CLINVERSE_LLM_<ROLE>_<NAME>`` and falls back to the shared
``CLINVERSE_LLM_<NAME>`` for its endpoint, model, key, sampling, timeout and retries;
``CLINVERSE_LLM_MAX_IN_FLIGHT``, ``_ALLOWED_HOSTS`` (see egress.py) and ``_NORMALISE`` are run-wide.
A value that cannot be read raises :class:`~pipelines.config.SettingError` naming the variable
it was read from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from pipelines.config import LLM_PREFIX as PREFIX
from pipelines.config import SettingError, settings_of

# judge: pipelines/evaluation/llm_judge.py; manager (memory write-back): pipelines/evaluation/memory/llm_manager.py
ROLES = ("doctor", "patient", "consultant", "judge", "manager")
ENV_ALLOWED_HOSTS = f"{PREFIX}ALLOWED_HOSTS"
MAX_TOKENS = MappingProxyType({"doctor": 1200, "patient": 500, "consultant": 500, "judge": 800,  # MedEvoEval Table 9
                               "manager": 1800})
DEFAULT_MAX_IN_FLIGHT = 16
BACKOFF_CAP_S = 8.0


@dataclass(frozen=True)
class RoleConfig:
    """One role's endpoint and sampling. ``api_key`` never appears in a repr or a run's config."""

    role: str
    base_url: str
    model: str
    api_key: str = field(default="EMPTY", repr=False)
    temperature: float | None = 0.05
    top_p: float | None = None
    max_tokens: int | None = None  # None: the role's Table 9 cap
    seed: int | None = None
    timeout_s: float = 60.0
    max_attempts: int = 3
    backoff_s: float = 0.5

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"no LLM role {self.role!r}; roles: {', '.join(ROLES)}")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{self.role}: base_url must be an http(s) URL with a host, not {self.base_url!r}")
        if not self.model:
            raise ValueError(f"{self.role}: a model name is required")
        if self.timeout_s <= 0 or self.max_attempts < 1 or self.backoff_s < 0:
            raise ValueError(f"{self.role}: timeout_s must be > 0, max_attempts >= 1, backoff_s >= 0")
        if self.max_tokens is None:
            object.__setattr__(self, "max_tokens", MAX_TOKENS[self.role])

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).hostname or ""

    def backoff(self, retry: int) -> float:
        """Delay before retry ``retry`` (1, 2, ...): ``backoff_s`` doubled each time, capped."""
        return min(BACKOFF_CAP_S, self.backoff_s * 2 ** (retry - 1))

    def sampling(self) -> dict[str, Any]:
        """The request's sampling arguments (unset ones left to the provider)."""
        values = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens,
                  "seed": self.seed}
        return {k: v for k, v in values.items() if v is not None}

    def public(self) -> dict[str, Any]:
        """What a run records of this role: everything but the key."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}


@dataclass(frozen=True)
class LLMConfig:
    """The LLM roles of a run and what they share."""

    roles: Mapping[str, RoleConfig] = field(default_factory=dict)
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    allowed_hosts: tuple[str, ...] = ()
    normalise: bool = True

    def __post_init__(self) -> None:
        if self.max_in_flight < 1:
            raise ValueError("max_in_flight must be >= 1")
        for name, role in self.roles.items():
            if name != role.role:
                raise ValueError(f"role config {role.role!r} filed under {name!r}")

    def role(self, name: str) -> RoleConfig:
        if name not in self.roles:
            upper = name.upper()
            raise KeyError(f"no LLM configured for the {name} role: set {PREFIX}{upper}_BASE_URL and "
                           f"{PREFIX}{upper}_MODEL (or the shared {PREFIX}BASE_URL / {PREFIX}MODEL), "
                           "or pass an LLMConfig")
        return self.roles[name]

    def models(self, roles: tuple[str, ...]) -> dict[str, str]:
        """Each role's model; an unconfigured role is an error (see :meth:`role`)."""
        return {name: self.role(name).model for name in roles}

    def with_roles(self, *roles: RoleConfig) -> LLMConfig:
        return replace(self, roles={**self.roles, **{r.role: r for r in roles}})

    def public(self, used: tuple[str, ...]) -> dict[str, Any]:
        return {"roles": {r: self.role(r).public() for r in used}, "max_in_flight": self.max_in_flight,
                "allowed_hosts": list(self.allowed_hosts), "normalise": self.normalise}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMConfig:
        """The roles whose base URL is set in ``environ`` (default ``os.environ``), and the run settings."""
        env = os.environ if environ is None else environ
        roles = {}
        for role in ROLES:
            values = {name: _read(env, name, role) for name in ROLE_SETTINGS}
            if values["base_url"] is None:
                continue
            if values["model"] is None:
                raise SettingError(f"{_variable('model', role)}: a model name is required when "
                                   f"{_variable('base_url', role)} (or {_variable('base_url')}) is set")
            roles[role] = RoleConfig(role, **{k: v for k, v in values.items() if v is not None})
        normalise = _read(env, "normalise")
        return cls(roles, _read(env, "max_in_flight") or DEFAULT_MAX_IN_FLIGHT, _read(env, "allowed_hosts") or (),
                   True if normalise is None else normalise)


_LLM = {s.field: s for s in settings_of("llm")}
ROLE_SETTINGS = tuple(f.name for f in fields(RoleConfig) if f.name != "role")  # the rest are run-wide


def _variable(name: str, role: str | None = None) -> str:
    shared = _LLM[name].env
    return shared if role is None else shared.replace(PREFIX, f"{PREFIX}{role.upper()}_", 1)


def _read(env: Mapping[str, str], name: str, role: str | None = None) -> Any:
    """The setting from the role's variable, else the shared one (None when neither is set)."""
    for variable in ((_variable(name, role),) if role else ()) + (_variable(name),):
        text = env.get(variable, "")
        if text.strip():
            return replace(_LLM[name], env=variable).read(text)
    return None
