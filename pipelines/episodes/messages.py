"""The controller's and laboratory physician's phrasing (data/messages.yaml)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import yaml


@cache
def messages() -> dict[str, Any]:
    return yaml.safe_load(files(__package__).joinpath("data/messages.yaml").read_text())


def say(key: str, **values: object) -> str:
    """Message ``key`` (dotted for nested, ``lab.result``) filled with ``values``."""
    node: Any = messages()
    for part in key.split("."):
        node = node[part]
    return node.format(**values)
