"""The egress guard: MIMIC- and SICdb-derived text stays on loopback or allow-listed hosts.

The PhysioNet data use agreement forbids sending credentialed data to third-party services. Every
prompt of an episode is derived from its case (the presentation, the patient's units, results,
the transcript), so each request carries the case's :class:`DataOrigin`; a case whose ``source`` is
``mimic_iv`` or ``sicdb`` may go only to a loopback endpoint (127.0.0.0/8, ::1, ``localhost``) or
to a host listed in ``CLINVERSE_LLM_ALLOWED_HOSTS``. MedQA cases and the embedded synthetic demo
(``dataset == 'demo'``) may go anywhere; an unknown source is treated as restricted (fail closed).

Hosts are compared as written, never resolved: a name that happens to resolve to 127.0.0.1 is not
loopback unless it is ``localhost`` or allow-listed. The check runs before a request is built,
so a refused request opens no connection; the driver checks every case and role before a run
starts, and the client checks again before each request. The client's HTTP layer follows no
redirects and ignores proxy variables, so the checked host is the only host contacted.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from pipelines.config import hosts as allowed_hosts
from pipelines.episodes.llm.config import ENV_ALLOWED_HOSTS

RESTRICTED_SOURCES = frozenset({"mimic_iv", "sicdb"})
OPEN_SOURCES = frozenset({"medqa"})
OPEN_DATASETS = frozenset({"demo"})  # the embedded synthetic demo
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


class EgressRefused(PermissionError):
    """A request that would send restricted text to a host that may not receive it."""


@dataclass(frozen=True)
class DataOrigin:
    """Where a case's text comes from (the ``cases`` row's ``source`` and ``dataset``)."""

    source: str | None
    dataset: str | None

    @property
    def restricted(self) -> bool:
        if self.dataset in OPEN_DATASETS:
            return False
        return self.source not in OPEN_SOURCES  # mimic_iv, sicdb, and anything unknown


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 (also IPv4-mapped) and ``localhost``; compared as written, not resolved."""
    host = host.strip().lower().rstrip(".").strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def host_of(base_url: str) -> str:
    return (urlsplit(base_url).hostname or "").lower().rstrip(".")


class EgressGuard:
    def __init__(self, allowed: Iterable[str] = ()):
        self.allowed = frozenset(allowed_hosts(",".join(allowed)))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> EgressGuard:
        return cls(allowed_hosts(environ.get(ENV_ALLOWED_HOSTS)))

    def permits(self, base_url: str, origin: DataOrigin) -> bool:
        host = host_of(base_url)
        return not origin.restricted or is_loopback(host) or host in self.allowed

    def check(self, base_url: str, origin: DataOrigin, role: str, cases: str = "") -> None:
        """Raise :class:`EgressRefused` unless ``origin``'s text may go to ``base_url``."""
        if self.permits(base_url, origin):
            return
        host = host_of(base_url) or base_url
        listed = ", ".join(sorted(self.allowed)) or "empty"
        raise EgressRefused(
            f"egress refused: the {role} role would send text derived from {origin.source} "
            f"(dataset {origin.dataset!r}{cases}) to {host!r}, which is neither a loopback endpoint "
            f"(127.0.0.0/8, ::1, localhost) nor listed in {ENV_ALLOWED_HOSTS} (now {listed}). The PhysioNet "
            f"data use agreement keeps MIMIC-IV and SICdb text off third-party services: serve the model "
            f"on loopback, or add {host!r} to {ENV_ALLOWED_HOSTS} if that host is covered by the agreement. "
            "Nothing was sent.")
