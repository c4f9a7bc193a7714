"""Dagster resources: thin handles over pipelines.config.Settings and pipelines.warehouse."""

from __future__ import annotations

import dagster as dg

from pipelines.config import Settings
from pipelines.warehouse import Warehouse


class ClinverseResource(dg.ConfigurableResource):
    """Source locations, warehouse home and build parameters.

    Fields left unset fall back to the CLINVERSE_* environment variables (pipelines.config),
    so the CLI, `dagster dev` and `dagster asset materialize` all read the same settings.
    """

    home: str | None = None

    def settings(self) -> Settings:
        settings = Settings.from_env()
        if self.home:
            from dataclasses import replace
            from pathlib import Path

            settings = replace(settings, home=Path(self.home).resolve())
        return settings

    def warehouse(self) -> Warehouse:
        return Warehouse(self.settings().home)
