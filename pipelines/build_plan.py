"""The build as Dagster sees it: one job over the configured sources and everything downstream,
the sensor that requests it when sources change, the schedule of a periodic full rebuild, and the
Definitions holding them with the resources.

:func:`make_definitions` is called once per process: by ``pipelines.definitions`` for
`dagster dev` (settings and resources from the environment), and by `clinverse build` with the
settings its flags give (and under the multiprocess executor by every step process, from the same
values: :func:`definitions_from_values`). There is one job, ``build``, holding every stage from
staging to ``synthea_pool`` and ``profiles`` (nothing is partitioned), so the UI and the CLI run
the same thing.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from collections.abc import Mapping
from pathlib import Path

import dagster as dg

import assets as assets_package
from assets.episodes import EPISODE_GROUP, episodes_job
from assets.study import STUDY_GROUP, evaluate_job
from pipelines import config
from pipelines.config import Settings
from pipelines.resources import ClinverseResource, resources_from_env, resources_from_values
from pipelines.sources.registry import NAMES as SOURCE_GROUPS
from pipelines.sources.registry import SOURCES

JOB = "build"


def build_selection(sources: list[str]) -> dg.AssetSelection:
    """Every asset but the staging groups of the sources not configured, the episode runs and the study."""
    unconfigured = [g for g in SOURCE_GROUPS if g not in sources]
    selection = dg.AssetSelection.all() - dg.AssetSelection.groups(EPISODE_GROUP, STUDY_GROUP)
    if unconfigured:
        selection = selection - dg.AssetSelection.groups(*unconfigured)
    return selection


def source_fingerprint(settings: Settings) -> str:
    """A digest of the configured source files' names, sizes and modification times."""
    digest = hashlib.sha256()
    files: list[Path] = []
    for source in SOURCES:
        for where in settings.paths(source.name):
            if source.layout == "directory":
                files += sorted(where.rglob("*.csv*")) if where.is_dir() else []
            elif where.is_file():
                files.append(where)
    for f in files:
        stat = f.stat()
        digest.update(f"{f}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16] if files else ""


@dg.sensor(job_name=JOB, minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED)
def new_source_data(context: dg.SensorEvaluationContext, clinverse: ClinverseResource):
    """Request a rebuild when a configured source directory's files change (new EHR release or extract)."""
    fingerprint = source_fingerprint(clinverse.settings())
    if fingerprint and fingerprint != context.cursor:
        context.update_cursor(fingerprint)
        yield dg.RunRequest(run_key=fingerprint)


# Libraries the steps import where they use them, so that loading the definitions does not wait for
# them (simple-icd-10-cm parses its XML for about 3 s; spaCy and medspaCy; matplotlib). The
# multiprocess executor's forkserver preloads them once, as it does the asset modules: step
# processes fork with them loaded instead of each paying for them.
STEP_LIBRARIES = ("simple_icd_10_cm", "pipelines.notes.sections", "pipelines.notes.units", "pipelines.notes.findings",
                  "pipelines.report.plots")


def asset_module_names() -> tuple[str, ...]:
    """Every module of the ``assets`` package (helpers hold no assets, so loading them adds none)."""
    return tuple(f"{assets_package.__name__}.{m.name}" for m in pkgutil.iter_modules(assets_package.__path__))


def full_rebuild(cron: str) -> dg.ScheduleDefinition:
    """The ``build`` job on ``cron`` (CLINVERSE_REBUILD_CRON), whatever changed: reference files and
    code change too, and the sensor sees only the sources. Off until turned on in the UI, like the sensor."""
    return dg.ScheduleDefinition(name="full_rebuild", cron_schedule=cron, job_name=JOB,
                                 default_status=dg.DefaultScheduleStatus.STOPPED,
                                 description="A full rebuild of the configured sources and everything downstream.")


def asset_modules() -> list:
    return [importlib.import_module(name) for name in asset_module_names()]


def make_definitions(settings: Settings | None = None,
                     resources: Mapping[str, dg.ConfigurableResource] | None = None) -> dg.Definitions:
    """Every asset and check, the resources, the ``build`` job (the sources of ``settings``) and the sensor.

    Without arguments, both come from the environment (what `dagster dev` loads): the settings are
    read and validated now, and the resources get each variable as ``dg.EnvVar``.
    """
    if settings is None:
        settings = Settings.from_env()
    if resources is None:
        resources = resources_from_env()
    modules = asset_modules()
    job = dg.define_asset_job(
        JOB, selection=build_selection(settings.configured_sources()),
        description="The configured sources (CLINVERSE_* variables), cases, content, the Synthea pool and profiles.")
    return dg.Definitions(
        assets=dg.load_assets_from_modules(modules),
        asset_checks=dg.load_asset_checks_from_modules(modules),
        resources=dict(resources),
        jobs=[job, episodes_job, evaluate_job],
        sensors=[new_source_data],
        schedules=[full_rebuild(config.rebuild_cron())],
    )


def definitions_from_values(resources: Mapping[str, Mapping[str, object]]) -> dg.Definitions:
    """:func:`make_definitions` from the resources' field values (``pipelines.resources.resource_values``):
    how each step process of a multiprocess build (``pipelines.runner.Processes``) makes the build's own."""
    made = resources_from_values(resources)
    return make_definitions(made["clinverse"].settings(), made)
