"""Dagster definitions: every asset and check in the ``assets`` package, resources, the
build job (only the configured sources), and a sensor that rebuilds when sources change.

`dagster dev -w workspace.yaml` shows this graph; `clinverse build` materialises it in-process.
"""

from __future__ import annotations

import importlib
import pkgutil

import dagster as dg

import assets as assets_package
from pipelines.build_plan import build_selection, source_fingerprint, split_at_partitions
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


def planned_partitions(key: dg.AssetKey) -> list[str] | None:
    """Partitions a build needs for a partitioned asset, from its module's planner (None: no planner)."""
    for module in _asset_modules():
        planner = getattr(module, "PARTITION_PLANNERS", {}).get(key.to_user_string())
        if planner:
            return planner(Settings.from_env())
    return None


def build_jobs(assets: list[dg.AssetsDefinition]) -> list[dg.UnresolvedAssetJobDefinition]:
    """The build as Dagster jobs, for the UI and schedules: ``build`` (configured sources, cases and
    content), one partitioned job per partitioned asset (``synthea_pool_job``: a backfill over
    the strata the cases need), then ``build_downstream`` (profiles). `clinverse build` runs the same
    three stages in order."""
    partitioned = [key for a in assets if a.partitions_def is not None for key in a.keys]
    selection = build_selection(Settings.from_env().configured_sources())
    before, _, after = split_at_partitions(selection, partitioned)
    return [
        dg.define_asset_job("build", selection=before,
                            description="Configured sources (CLINVERSE_* variables), cases and content."),
        *(dg.define_asset_job(f"{key.to_user_string()}_job", selection=dg.AssetSelection.assets(key),
                              description=f"{key.to_user_string()}, one run per partition.")
          for key in partitioned),
        dg.define_asset_job("build_downstream", selection=after,
                            description="What depends on the partitioned assets (profiles)."),
    ]


@dg.sensor(job_name="build", minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED)
def new_source_data(context: dg.SensorEvaluationContext):
    """Request a rebuild when a configured source directory's files change (new EHR release or extract)."""
    fingerprint = source_fingerprint(Settings.from_env())
    if fingerprint and fingerprint != context.cursor:
        context.update_cursor(fingerprint)
        yield dg.RunRequest(run_key=fingerprint)


def make_definitions() -> dg.Definitions:
    modules = _asset_modules()
    assets = dg.load_assets_from_modules(modules)
    return dg.Definitions(
        assets=assets,
        asset_checks=dg.load_asset_checks_from_modules(modules),
        resources=_resources(),
        jobs=build_jobs(assets),
        sensors=[new_source_data],
    )


defs = make_definitions()
