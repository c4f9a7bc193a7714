"""Dagster definitions: every asset and check in the ``assets`` package, resources, the
build job (only the configured sources), and a sensor that rebuilds when sources change.

`dagster dev -w workspace.yaml` shows this graph; `clinverse build` materialises it in-process.
"""

from __future__ import annotations

import importlib
import pkgutil

import dagster as dg

import assets as assets_package
from pipelines.build_plan import build_selection, source_fingerprint
from pipelines.config import Settings
from pipelines.resources import ClinverseResource


def _asset_modules() -> list:
    return [
        importlib.import_module(f"{assets_package.__name__}.{m.name}")
        for m in pkgutil.iter_modules(assets_package.__path__)
        if not m.name.startswith("_")
    ]


def _resources() -> dict:
    resources: dict = {"clinverse": ClinverseResource()}
    for module in _asset_modules():
        resources.update(getattr(module, "RESOURCES", {}))
    return resources


def partitions_for(key: dg.AssetKey) -> list[str]:
    """Partitions a build needs for a partitioned asset: its module's planner, else all."""
    for module in _asset_modules():
        planner = getattr(module, "PARTITION_PLANNERS", {}).get(key.to_user_string())
        if planner:
            return planner(Settings.from_env())
    asset = make_definitions().resolve_assets_def(key)
    return list(asset.partitions_def.get_partition_keys())


def build_job() -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        "build",
        selection=build_selection(Settings.from_env().configured_sources()),
        description="Materialise the sources configured by CLINVERSE_* variables and everything downstream.",
    )


@dg.sensor(job_name="build", minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED)
def new_source_data(context: dg.SensorEvaluationContext):
    """Request a rebuild when a configured source directory's files change (new EHR release or extract)."""
    fingerprint = source_fingerprint(Settings.from_env())
    if fingerprint and fingerprint != context.cursor:
        context.update_cursor(fingerprint)
        yield dg.RunRequest(run_key=fingerprint)


def make_definitions() -> dg.Definitions:
    modules = _asset_modules()
    return dg.Definitions(
        assets=dg.load_assets_from_modules(modules),
        asset_checks=dg.load_asset_checks_from_modules(modules),
        resources=_resources(),
        jobs=[build_job()],
        sensors=[new_source_data],
    )


defs = make_definitions()
