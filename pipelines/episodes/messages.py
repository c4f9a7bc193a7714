"""The controller's and laboratory physician's phrasing (data/messages.yaml)."""

from __future__ import annotations

from functools import cache
from typing import Any

from pipelines.datafiles import yaml_mapping


@cache
def messages() -> dict[str, Any]:
    return yaml_mapping(__package__, "data/messages.yaml")


def say(key: str, **values: object) -> str:
    """Message ``key`` (dotted for nested, ``lab.result``) filled with ``values``."""
    return _template(key).format(**values)


@cache  # every turn says several messages
def _template(key: str) -> str:
    node: Any = messages()
    for part in key.split("."):
        node = node[part]
    return node
