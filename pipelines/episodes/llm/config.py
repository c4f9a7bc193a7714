"""Who serves each LLM role: endpoint, model, key and sampling, per role.

One documented way: a :class:`LLMConfig` object, built in code or read from the environment by
:meth:`LLMConfig.from_env`. Each role (``doctor``, ``patient``, ``consultant``) reads
``CLINVERSE_LLM_<ROLE>_<FIELD>`` and falls back to the shared ``CLINVERSE_LLM_<FIELD>``:

=====================  ===========================================================  ==============
field                  meaning                                                      default
=====================  ===========================================================  ==============
``BASE_URL``           OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8000/v1``  (role unset)
``MODEL``              model name the endpoint serves                               (required)
``API_KEY``            bearer key (local servers accept any)                        ``EMPTY``
``TEMPERATURE``        sampling temperature (MedEvoEval Table 9)                    0.05
``TOP_P``              nucleus sampling                                             provider's
``MAX_TOKENS``         completion cap (Table 9: doctor 1200, patient/consultant 500)  per role
``SEED``               sampling seed sent with each request                         none
``TIMEOUT_S``          per-request timeout, seconds                                 60
``MAX_ATTEMPTS``       attempts per request (timeouts, connection errors, 5xx)      3
``BACKOFF_S``          first retry delay, doubled per retry (capped at 8 s)         0.5
=====================  ===========================================================  ==============

Run-wide: ``CLINVERSE_LLM_MAX_IN_FLIGHT`` (requests in flight at once, default 16),
``CLINVERSE_LLM_ALLOWED_HOSTS`` (comma-separated hosts that may receive MIMIC/SICdb-derived text
besides loopback; see egress.py) and ``CLINVERSE_LLM_NORMALISE`` (``1``/``0``: repair doctor
outputs before parsing, default ``1``). A value that cannot be read raises
:class:`~pipelines.config.SettingError` naming the variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from pipelines.config import SettingError

ROLES = ("doctor", "patient", "consultant")
PREFIX = "CLINVERSE_LLM_"
ENV_MAX_IN_FLIGHT = f"{PREFIX}MAX_IN_FLIGHT"
ENV_ALLOWED_HOSTS = f"{PREFIX}ALLOWED_HOSTS"
ENV_NORMALISE = f"{PREFIX}NORMALISE"
MAX_TOKENS = MappingProxyType({"doctor": 1200, "patient": 500, "consultant": 500})  # MedEvoEval Table 9
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
            read = _reader(env, role)
            base_url = read("BASE_URL", str)
            if base_url is None:
                continue
            model = read("MODEL", str)
            if model is None:
                raise SettingError(f"{PREFIX}{role.upper()}_MODEL: a model name is required when "
                                   f"{PREFIX}{role.upper()}_BASE_URL (or {PREFIX}BASE_URL) is set")
            values = {name: read(key, kind) for name, key, kind in _FIELDS}
            roles[role] = RoleConfig(role, base_url, model, **{k: v for k, v in values.items() if v is not None})
        return cls(roles, _global(env, ENV_MAX_IN_FLIGHT, int) or DEFAULT_MAX_IN_FLIGHT,
                   allowed_hosts(env.get(ENV_ALLOWED_HOSTS)), _flag(env, ENV_NORMALISE, True))


_FIELDS = (("api_key", "API_KEY", str), ("temperature", "TEMPERATURE", float), ("top_p", "TOP_P", float),
           ("max_tokens", "MAX_TOKENS", int), ("seed", "SEED", int), ("timeout_s", "TIMEOUT_S", float),
           ("max_attempts", "MAX_ATTEMPTS", int), ("backoff_s", "BACKOFF_S", float))


def allowed_hosts(text: str | None) -> tuple[str, ...]:
    """``"a.example, B.example"`` -> ``("a.example", "b.example")`` (lower case, blanks dropped)."""
    return tuple(h.strip().lower().rstrip(".").strip("[]") for h in (text or "").split(",") if h.strip())


def _convert(variable: str, text: str, kind: Callable[[str], Any]) -> Any:
    try:
        return kind(text.strip())
    except ValueError:
        example = {int: "3", float: "0.5"}.get(kind, "text")
        raise SettingError(f"{variable}: cannot read {text!r}; write a {kind.__name__}, e.g. {example}") from None


def _reader(env: Mapping[str, str], role: str) -> Callable[[str, Callable[[str], Any]], Any]:
    def read(key: str, kind: Callable[[str], Any]) -> Any:
        for variable in (f"{PREFIX}{role.upper()}_{key}", f"{PREFIX}{key}"):
            text = env.get(variable, "")
            if text.strip():
                return _convert(variable, text, kind)
        return None

    return read


def _global(env: Mapping[str, str], variable: str, kind: Callable[[str], Any]) -> Any:
    text = env.get(variable, "")
    return _convert(variable, text, kind) if text.strip() else None


def _flag(env: Mapping[str, str], variable: str, default: bool) -> bool:
    text = env.get(variable, "").strip().lower()
    if not text:
        return default
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise SettingError(f"{variable}: cannot read {text!r}; write 1 or 0, e.g. 1")
