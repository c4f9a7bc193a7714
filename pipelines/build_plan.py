"""The build as Dagster sees it: one job over the configured sources and everything downstream,
the selections of an incremental rebuild (:data:`INPUTS`, then :func:`after_inputs` for the changed
shards), the sensor that requests them when sources change, the schedule of a periodic full rebuild,
the automation sensor that scores episode runs and refreshes the report, and the Definitions holding
them with the resources.

:func:`make_definitions` is called once per process: by ``pipelines.definitions`` for
`dagster dev` (settings and resources from the environment), and by `clinverse build` with the
settings its flags give (and under the multiprocess executor by every step process, from the same
values: :func:`definitions_from_values`). There is one job, ``build``, holding every stage from
staging to ``synthea_pool`` and ``profiles``, its per-case steps partitioned by subject shard
(``assets.factories.SHARDS``); a run covers a range of shards (a full build: all of them), so the UI,
the sensor, the schedule and the CLI run the same thing.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import pkgutil
from collections.abc import Mapping
from pathlib import Path

import dagster as dg
from dagster._core.definitions.assets.graph.base_asset_graph import (
    BaseAssetGraph as AssetGraph,
)

import assets as assets_package
from assets.episodes import EPISODE_GROUP, episodes_job
from assets.factories import SHARDS, register_shards, shard_tags
from assets.study import STUDY_GROUP, evaluate_job
from pipelines import config, incremental
from pipelines.config import Settings
from pipelines.incremental import changed_shards, digests, span
from pipelines.resources import (
    ClinverseResource,
    resources_from_env,
    resources_from_values,
)
from pipelines.shards import shard_names
from pipelines.sources.registry import NAMES as SOURCE_GROUPS
from pipelines.sources.registry import SOURCES
from pipelines.warehouse import Warehouse

JOB = "build"


def build_selection(sources: list[str]) -> dg.AssetSelection:
    """Every asset but the staging groups of the sources not configured, the episode runs and the study."""
    unconfigured = [g for g in SOURCE_GROUPS if g not in sources]
    selection = dg.AssetSelection.all() - dg.AssetSelection.groups(EPISODE_GROUP, STUDY_GROUP)
    if unconfigured:
        selection = selection - dg.AssetSelection.groups(*unconfigured)
    return selection


# What decides which shards a rebuild re-runs: the staging, the case skeleton (its three tables are
# written together) and the digest of every shard's inputs (pipelines.incremental).
INPUTS = dg.AssetSelection.assets("shard_inputs").upstream() | dg.AssetSelection.assets("skeleton_exclusions")


def per_shard_keys(graph: AssetGraph) -> list[dg.AssetKey]:
    """The assets partitioned by subject shard (``assets.factories.SHARDS``), in graph order."""
    return [key for key in graph.toposorted_asset_keys if graph.get(key).partitions_def == SHARDS]


def after_inputs(graph: AssetGraph) -> dg.AssetSelection:
    """What a rebuild runs once it knows the changed shards: the per-shard assets (for those shards)
    and everything downstream of them, the cohort-wide steps that read every shard."""
    return dg.AssetSelection.assets(*per_shard_keys(graph)).downstream() - INPUTS


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
def new_source_data(context: dg.SensorEvaluationContext, clinverse: ClinverseResource) -> dg.SensorResult:
    """Keep the warehouse up to date with the configured source directories, in two steps.

    When their files change (a new release, a new drop of admissions: the fingerprint of names, sizes
    and times), request a run of the inputs (staging, the case skeleton, ``shard_inputs``). When the
    published ``shard_inputs`` then differ from the digests of the last request, request one run of the
    per-case steps of the changed shards (their span) and the cohort-wide steps after them: a drop of
    one shard's admissions re-runs that shard. The cursor holds the fingerprint and the digests; with
    none (a sensor just turned on) every shard counts as changed. The shards of the build's count are
    registered as the ``shards`` partitions (and any other count's removed)."""
    settings = clinverse.settings()
    names = shard_names(settings.shards)
    cursor = json.loads(context.cursor) if context.cursor else {}
    requests = []
    fingerprint = source_fingerprint(settings)
    if fingerprint and fingerprint != cursor.get("sources"):
        requests.append(dg.RunRequest(run_key=f"inputs-{fingerprint}", asset_selection=_job_keys(context, INPUTS),
                                      tags=shard_tags(names)))
        cursor["sources"] = fingerprint
    elif (published := digests(Warehouse(settings.home).read_or_empty(incremental.TABLE))) and (
            published != cursor.get("shards")):
        rerun = span(changed_shards(cursor.get("shards", {}), published), names)
        if rerun:
            key = hashlib.sha256(json.dumps(published, sort_keys=True).encode()).hexdigest()[:16]
            graph = context.repository_def.asset_graph
            requests.append(dg.RunRequest(run_key=f"shards-{key}", tags=shard_tags(rerun),
                                          asset_selection=_job_keys(context, after_inputs(graph))))
        cursor["shards"] = published
    known = context.instance.get_dynamic_partitions(SHARDS.name)
    return dg.SensorResult(run_requests=requests, cursor=json.dumps(cursor), dynamic_partitions_requests=[
        dg.AddDynamicPartitionsRequest(SHARDS.name, [n for n in names if n not in known]),
        dg.DeleteDynamicPartitionsRequest(SHARDS.name, [k for k in known if k not in names])])


# Declarative automation where it serves: after the runs people start themselves (an episode run, an
# evaluation protocol), so that their scores and the report follow without anyone asking. The build
# itself is the sensor's: its cohort-wide steps must run once after every changed shard, in one run.
score_and_report = dg.AutomationConditionSensorDefinition(
    "score_and_report", target=dg.AssetSelection.assets("episode_scores", "evaluation_report"),
    default_status=dg.DefaultSensorStatus.STOPPED, minimum_interval_seconds=60,
    description="Scores each episode run whose episodes landed, and rewrites the evaluation report after a "
                "protocol's results change (the assets' automation conditions). Off until turned on in the UI.")


def _job_keys(context: dg.SensorEvaluationContext, selection: dg.AssetSelection) -> list[dg.AssetKey]:
    """The assets of ``selection`` that the ``build`` job holds (the configured sources' only)."""
    repository = context.repository_def
    held = repository.get_job(JOB).asset_layer.selected_asset_keys
    return sorted(selection.resolve(repository.asset_graph) & held)


# Libraries the steps import where they use them, so that loading the definitions does not wait for
# them (simple-icd-10-cm parses its XML for about 3 s; spaCy and medspaCy; matplotlib). The
# multiprocess executor's forkserver preloads them once, as it does the asset modules: step
# processes fork with them loaded instead of each paying for them.
STEP_LIBRARIES = ("simple_icd_10_cm", "pipelines.notes.sections", "pipelines.notes.units", "pipelines.notes.findings",
                  "pipelines.report.plots")


def asset_module_names() -> tuple[str, ...]:
    """Every module of the ``assets`` package (helpers hold no assets, so loading them adds none)."""
    return tuple(f"{assets_package.__name__}.{m.name}" for m in pkgutil.iter_modules(assets_package.__path__))


def full_rebuild(cron: str, shards: int) -> dg.ScheduleDefinition:
    """The ``build`` job on ``cron`` (CLINVERSE_REBUILD_CRON) over every shard, whatever changed:
    reference files and code change too, and the sensor sees only the sources. Off until turned on in
    the UI, like the sensor."""
    names = shard_names(shards)

    @dg.schedule(name="full_rebuild", cron_schedule=cron, job_name=JOB, default_status=dg.DefaultScheduleStatus.STOPPED,
                 description="A full rebuild of the configured sources and everything downstream, every shard.")
    def _full_rebuild(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        register_shards(context.instance, names)
        return dg.RunRequest(tags=shard_tags(names))

    return _full_rebuild


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
        sensors=[new_source_data, score_and_report],
        schedules=[full_rebuild(config.rebuild_cron(), settings.shards)],
    )


def definitions_from_values(resources: Mapping[str, Mapping[str, object]]) -> dg.Definitions:
    """:func:`make_definitions` from the resources' field values (``pipelines.resources.resource_values``):
    how each step process of a multiprocess build (``pipelines.runner.Processes``) makes the build's own."""
    made = resources_from_values(resources)
    return make_definitions(made["clinverse"].settings(), made)
