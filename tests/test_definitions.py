import subprocess
import sys
from datetime import datetime
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from dagster import DagsterEventType

from assets.factories import PER_SHARD, SHARDS, producer_asset, producer_assets
from pipelines import runner
from pipelines.build_plan import (
    build_selection,
    make_definitions,
    new_source_data,
    per_shard_keys,
    source_fingerprint,
)
from pipelines.config import SettingError, Settings
from pipelines.content import producers
from pipelines.content.partitions import Written
from pipelines.content.producers import PRODUCERS, Produced, Producer
from pipelines.definitions import defs
from pipelines.resources import ClinverseResource, SyntheaResource
from pipelines.runner import materialize
from pipelines.sources.registry import SOURCES
from pipelines.warehouse import Warehouse
from schemas.staging import ALL, MEDQA_TABLE

ROOT = Path(__file__).resolve().parents[1]


def _keys(selection) -> set[str]:
    return {k.to_user_string() for k in selection}


def test_definitions_load_with_every_stage():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"mimic_labevents", "note_discharge", "sicdb_cases", "medqa_questions", "case_skeleton"} <= keys
    assert defs.resolve_job_def("build") is not None


def test_one_build_job_holds_every_stage_and_only_the_per_case_steps_are_partitioned_by_shard():
    graph = defs.resolve_asset_graph()
    build = _keys(defs.resolve_job_def("build").asset_layer.selected_asset_keys)
    assert {"case_skeleton", "cases", "synthea_pool", "profiles", "rejects", "leakage_removals", "stress_test",
            "shard_inputs"} <= build
    assert [job.name for job in defs.resolve_all_job_defs() if not job.name.startswith("__")] == ["build", "episodes",
                                                                                                   "evaluate"]
    # Every producer of a candidate table, the note sections and the MedQA views run per subject shard;
    # staging, the skeleton and every cohort-wide step (importance, catalog, cases, ClinLab) are whole.
    per_shard = {key for key in build if graph.get(dg.AssetKey.from_user_string(key)).partitions_def == SHARDS}
    assert per_shard == {*(p.asset for p in PRODUCERS), "note_sections", "medqa_rubric"}
    assert _keys(per_shard_keys(graph)) == per_shard
    assert all(graph.get(dg.AssetKey.from_user_string(key)).partitions_def is None for key in build - per_shard)
    # Episode runs and their scores (one partition per run) and the study (one per protocol) are partitioned
    # otherwise, each in its own job; the study's report is outside the build too.
    partitioned = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).partitions_def is not None}
    runs = {"runs", "episodes", "episode_events", "llm_requests", "memory_cards", "episode_scores"}
    assert partitioned - per_shard == runs | {"stat_tests"}
    assert _keys(defs.resolve_job_def("episodes").asset_layer.selected_asset_keys) == runs
    assert _keys(defs.resolve_job_def("evaluate").asset_layer.selected_asset_keys) == {"stat_tests"}
    assert "evaluation_report" not in build
    assert {k.to_user_string() for k in graph.get(dg.AssetKey("synthea_pool")).parent_keys} == {"cases"}
    assert "synthea_pool" in {k.to_user_string() for k in graph.get(dg.AssetKey("profiles")).parent_keys}


def test_the_job_follows_the_configured_sources(tmp_path):
    only_mimic = make_definitions(Settings(home=tmp_path, locations={"mimic_iv": (tmp_path,)}),
                                  {"clinverse": ClinverseResource(home=str(tmp_path)), "synthea": SyntheaResource()})
    build = _keys(only_mimic.resolve_job_def("build").asset_layer.selected_asset_keys)
    assert "mimic_labevents" in build and "profiles" in build
    assert not build & {"sicdb_cases", "note_discharge", "medqa_questions"}


def test_build_selection_leaves_out_unconfigured_sources():
    graph = defs.resolve_asset_graph()
    selected = {k.to_user_string() for k in build_selection(["mimic_iv"]).resolve(graph)}
    assert "mimic_labevents" in selected and "case_skeleton" in selected
    assert not selected & {"sicdb_cases", "note_discharge", "medqa_questions"}


def test_dagster_cli_validates_the_workspace():
    dagster = Path(sys.executable).with_name("dagster")
    done = subprocess.run([str(dagster), "definitions", "validate", "-w", "workspace.yaml"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_blocking_check_targets_a_known_asset():
    graph = defs.resolve_asset_graph()
    for check in defs.asset_checks or []:
        for spec in check.check_specs:
            assert graph.has(spec.asset_key), spec
            assert isinstance(spec, dg.AssetCheckSpec)


# -- the registries drive the graph ---------------------------------------------------------------

def test_every_registered_producer_is_an_asset_with_its_deps_and_group():
    graph = defs.resolve_asset_graph()
    for p in PRODUCERS:
        node = graph.get(dg.AssetKey(p.asset))
        assert _keys(node.parent_keys) == {*p.reads, "case_skeleton", "case_provenance"}, p.asset
        assert node.group_name == "content"
    produced = {k.to_user_string() for k in graph.get_all_asset_keys() if k.to_user_string().startswith(producers.TABLES)}
    assert produced == {p.asset for p in PRODUCERS}


@pytest.mark.parametrize(("publisher", "table"), [("information_units", "unit_candidates"),
                                                  ("exam_results", "exam_candidates"), ("cases", "presentations")])
def test_each_publisher_depends_on_every_producer_of_its_table(publisher, table):
    parents = _keys(defs.resolve_asset_graph().get(dg.AssetKey(publisher)).parent_keys)
    assert {p.asset for p in PRODUCERS if p.table == table} <= parents


def test_publish_orders_come_from_the_registry():
    from pipelines.exams.results import PARTITION_ORDER
    from pipelines.units.publish import CODED_PRODUCERS, PRODUCER_ORDER

    assert PRODUCER_ORDER == {"mimic_ed": 0, "mimic_notes": 1, "mimic_structured": 2, "sicdb_structured": 3, "medqa": 4}
    assert PARTITION_ORDER == ("mimic_labs", "sicdb_labs", "mimic_vitals", "mimic_ed_vitals", "mimic_microbiology",
                               "mimic_notes", "medqa")
    assert CODED_PRODUCERS == ("mimic_structured", "sicdb_structured")


def test_a_new_registry_entry_yields_an_asset_that_writes_its_partition_or_skips(tmp_path):
    def produce(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
        frame = pl.DataFrame({"case_id": ["c_0000000000000001"], "presentation": ["A man."]})
        return Produced(Written(warehouse.write(p.table, frame, partition=p.partition)), {"made": 1})

    new = Producer("presentations", "sicdb_notes", ("sicdb", "mimic_note"), ("sicdb_cases", "note_discharge"),
                   "a test producer.", produce)
    registry = (*PRODUCERS, new)
    assets = producer_assets("presentations", registry)
    asset = next(a for a in assets if a.key == dg.AssetKey("presentations_sicdb_notes"))
    assert _keys(asset.dependency_keys) == {"sicdb_cases", "note_discharge", "case_skeleton", "case_provenance"}
    assert producers.order("presentations", registry)["sicdb_notes"] == 3
    assert "presentations_sicdb_notes" in producers.assets("presentations", registry)

    warehouse = Warehouse(tmp_path)
    skipped = materialize([producer_asset(new)], resources={"clinverse": ClinverseResource(home=str(tmp_path))})
    metadata = skipped.asset_materializations_for_node("presentations_sicdb_notes")[0].metadata
    assert metadata["skipped"].value == "SICdb and MIMIC-IV-Note not configured" and metadata["rows"].value == 0
    resource = ClinverseResource(home=str(tmp_path), sicdb_dir=str(tmp_path), mimic_note_dir=str(tmp_path))
    made = materialize([producer_asset(new)], resources={"clinverse": resource})
    metadata = made.asset_materializations_for_node("presentations_sicdb_notes")[0].metadata
    assert (metadata["rows"].value, metadata["made"].value) == (1, 1)
    assert warehouse.read_partition("presentations", "sicdb_notes").height == 1


def test_shared_tables_depend_on_every_writer():
    graph = defs.resolve_asset_graph()
    rejects = _keys(graph.get(dg.AssetKey("rejects")).parent_keys)
    assert rejects == {spec.table for spec in ALL} | {MEDQA_TABLE, "case_skeleton", "exam_candidates_mimic_vitals",
                                                      "exam_candidates_mimic_ed_vitals", "unit_candidates_medqa",
                                                      "unit_candidates_mimic_structured"}
    removals = _keys(graph.get(dg.AssetKey("leakage_removals")).parent_keys)
    assert removals == {"unit_candidates_mimic_ed", "unit_candidates_mimic_notes", "exam_candidates_mimic_notes",
                        "unit_candidates_medqa",
                        "exam_candidates_medqa", "presentations_medqa", "information_units"}


def test_the_gathered_table_validates_and_counts_what_its_writers_wrote(tmp_path):
    from assets.sources import rejects

    warehouse = Warehouse(tmp_path)
    row = {"source": "sicdb", "table": "sicdb_cases", "file": "cases.csv", "row_number": 3, "row_key": None,
           "reason": "bad", "raw": "x"}
    warehouse.write("rejects", pl.DataFrame([row]), partition="sicdb_cases")
    warehouse.write("rejects", pl.DataFrame([row, row]), partition="left_over")
    result = dg.materialize([rejects], resources={"clinverse": ClinverseResource(home=str(tmp_path))})
    metadata = result.asset_materializations_for_node("rejects")[0].metadata
    assert (metadata["rows"].value, metadata["rows_sicdb_cases"].value) == (3, 1)
    assert metadata["undeclared"].value == "left_over" and "mimic_labevents" in metadata["absent"].value


def test_every_source_is_a_group_and_a_build_flag():
    from pipelines.cli import parser

    groups = {defs.resolve_asset_graph().get(k).group_name for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert {s.name for s in SOURCES} <= groups
    args = parser().parse_args(["build", *(part for s in SOURCES for part in (s.flag, f"/data/{s.name}"))])
    for source in SOURCES:
        given = getattr(args, source.field)
        assert given == ([f"/data/{source.name}"] if source.layout == "files" else f"/data/{source.name}")


def _digests(home: Path, **digest: str) -> None:
    """Publish a shard_inputs table with these digests (what a run of the inputs leaves)."""
    Warehouse(home).write("shard_inputs", pl.DataFrame(
        [{"shard": shard, "digest": d * 16, "cases": 1, "rows": 1} for shard, d in digest.items()]))


def test_the_sensor_requests_the_inputs_then_only_the_shards_whose_inputs_changed(tmp_path):
    (tmp_path / "cases.csv").write_text("CaseID\n1\n")
    resource = ClinverseResource(home=str(tmp_path / "home"), sicdb_dir=str(tmp_path), shards=3)
    made = make_definitions(resource.settings(), {"clinverse": resource, "synthea": SyntheaResource()})
    instance = dg.DagsterInstance.ephemeral()
    assert new_source_data.job_name == "build"

    def tick(cursor: str | None) -> dg.SensorResult:
        return new_source_data(dg.build_sensor_context(instance=instance, cursor=cursor, definitions=made,
                                                       resources={"clinverse": resource}))

    first = tick(None)  # the sources are new: stage them, make the skeleton and the digests
    [inputs] = first.run_requests
    assert inputs.run_key == f"inputs-{source_fingerprint(resource.settings())}"
    assert _keys(inputs.asset_selection) == {"sicdb_cases", "sicdb_laboratory", "sicdb_d_references", "case_skeleton",
                                             "case_provenance", "skeleton_exclusions", "shard_inputs"}
    [added, removed] = first.dynamic_partitions_requests
    assert (added.partition_keys, removed.partition_keys) == (["s00", "s01", "s02"], [])
    instance.add_dynamic_partitions("shards", ["s00", "s01", "s02", "s03"])  # s03: an earlier shard count's
    assert tick(first.cursor).run_requests == []  # the inputs run has not published digests yet

    _digests(resource.settings().home, s00="a", s01="b", s02="c")
    every = tick(first.cursor)  # a cursor without digests: every shard is new
    [run] = every.run_requests
    assert (run.tags["dagster/asset_partition_range_start"], run.tags["dagster/asset_partition_range_end"]) == ("s00", "s02")
    selected = _keys(run.asset_selection)
    assert {"unit_candidates_sicdb_structured", "exam_candidates_sicdb_labs", "information_units", "cases",
            "clinlab_eval"} <= selected
    assert not selected & {"sicdb_cases", "case_skeleton", "shard_inputs"}
    assert every.dynamic_partitions_requests[1].partition_keys == ["s03"]

    _digests(resource.settings().home, s00="a", s01="x", s02="c")  # a drop of shard s01's patients
    [one] = tick(every.cursor).run_requests
    assert (one.tags["dagster/asset_partition_range_start"], one.tags["dagster/asset_partition_range_end"]) == ("s01", "s01")
    assert _keys(one.asset_selection) == selected and one.run_key != run.run_key
    assert tick(tick(every.cursor).cursor).run_requests == []  # nothing new since


def test_the_full_rebuild_schedule_runs_the_build_job_on_the_configured_cron(monkeypatch):
    monkeypatch.setenv("CLINVERSE_REBUILD_CRON", "30 2 * * 1")
    schedule = make_definitions(Settings.from_values({"home": "/tmp/x"})).resolve_schedule_def("full_rebuild")
    assert schedule.job_name == "build" and schedule.cron_schedule == "30 2 * * 1"
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    with dg.instance_for_test() as instance:
        run = schedule.evaluate_tick(dg.build_schedule_context(instance=instance,
                                                               scheduled_execution_time=datetime(2026, 12, 7, 2, 30)))
        [request] = run.run_requests  # the job as configured, over every shard (registered for it)
        assert (request.tags["dagster/asset_partition_range_start"],
                request.tags["dagster/asset_partition_range_end"]) == ("s00", "s03")
        assert instance.get_dynamic_partitions("shards") == ["s00", "s01", "s02", "s03"]
    monkeypatch.setenv("CLINVERSE_REBUILD_CRON", "every sunday")
    with pytest.raises(SettingError, match="CLINVERSE_REBUILD_CRON"):
        make_definitions(Settings.from_values({"home": "/tmp/x"}))


@pytest.fixture
def automation_defs(tmp_path) -> dg.Definitions:
    resource = ClinverseResource(home=str(tmp_path / "home"))
    return make_definitions(resource.settings(), {"clinverse": resource, "synthea": SyntheaResource()})


def _landed(instance: dg.DagsterInstance, *tables: str, partition: str | None = None) -> None:
    """What a run that wrote ``tables`` (of episode run ``partition``) leaves in the instance."""
    for table in tables:
        instance.report_runless_asset_event(dg.AssetMaterialization(table, partition=partition))


def test_the_automation_sensor_scores_landed_episode_runs_and_refreshes_the_report_once(automation_defs):
    made = automation_defs
    sensor = made.resolve_sensor_def("score_and_report")
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED
    targets = dg.AssetSelection.assets("episode_scores", "evaluation_report")
    assert sensor.asset_selection.resolve(made.resolve_asset_graph()) == targets.resolve(made.resolve_asset_graph())
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("episode_runs", ["run-a", "run-b", "run-c"])
        cursor = None

        def requested() -> dict[str, set]:
            nonlocal cursor
            result = dg.evaluate_automation_conditions(defs=made, instance=instance, asset_selection=targets,
                                                       cursor=cursor)
            cursor = result.cursor
            found = {key: result.get_requested_partitions(dg.AssetKey(key)) for key in ("episode_scores",
                                                                                        "evaluation_report")}
            return {key: partitions for key, partitions in found.items() if partitions}

        _landed(instance, "episodes", "episode_events", partition="run-a")
        assert requested() == {}  # no rubrics yet: the build has not run
        _landed(instance, "case_rubrics", "case_exam_targets")
        assert requested() == {"episode_scores": {"run-a"}}
        assert requested() == {}  # requested once
        _landed(instance, "episodes", "episode_events", "episode_scores", partition="run-b")  # the episodes job scored it
        assert requested() == {}
        _landed(instance, "episodes", partition="run-a")  # a resumed run wrote more episodes
        assert requested() == {"episode_scores": {"run-a"}}
        _landed(instance, "stat_tests", partition="stream")  # one protocol is enough for the report
        assert requested() == {"evaluation_report": {None}}
        assert requested() == {}


def test_the_automation_sensor_scores_the_runs_left_unscored_when_it_is_turned_on(automation_defs):
    scores = dg.AssetSelection.assets("episode_scores")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("episode_runs", ["unscored", "scored", "empty"])
        _landed(instance, "case_rubrics", "case_exam_targets")
        _landed(instance, "episodes", "episode_events", partition="unscored")
        _landed(instance, "episodes", "episode_events", "episode_scores", partition="scored")
        first = dg.evaluate_automation_conditions(defs=automation_defs, instance=instance, asset_selection=scores)
        assert first.get_requested_partitions(dg.AssetKey("episode_scores")) == {"unscored"}
        again = dg.evaluate_automation_conditions(defs=automation_defs, instance=instance, cursor=first.cursor,
                                                  asset_selection=scores)
        assert again.total_requested == 0


# -- the runner: one in-process run, progress from the event stream -------------------------------

@dg.asset(group_name="first")
def upstream() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": 1})


@dg.asset(deps=[upstream], group_name="second")
def downstream() -> dg.MaterializeResult:
    return dg.MaterializeResult()


@dg.asset_check(asset=upstream, blocking=True)
def upstream_is_fine() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=True)


@dg.asset(group_name="first")
def broken() -> None:
    raise ValueError("the cases table has no rows")


def _tiny(*assets, checks=()) -> dg.Definitions:
    return dg.Definitions(assets=list(assets), asset_checks=list(checks),
                          jobs=[dg.define_asset_job("build", selection=dg.AssetSelection.all())])


def test_progress_sees_step_events_in_order_as_they_happen():
    seen = []

    def progress(event, report):
        seen.append((event.event_type, event.step_key, len(report.succeeded)))

    report = runner.run(_tiny(upstream, downstream, checks=[upstream_is_fine]), progress=progress)
    kinds = [(kind, step) for kind, step, _ in seen]
    assert kinds == [
        (DagsterEventType.STEP_START, "upstream"), (DagsterEventType.ASSET_MATERIALIZATION, "upstream"),
        (DagsterEventType.STEP_START, "upstream_upstream_is_fine"),
        (DagsterEventType.ASSET_CHECK_EVALUATION, "upstream_upstream_is_fine"),
        (DagsterEventType.STEP_START, "downstream"), (DagsterEventType.ASSET_MATERIALIZATION, "downstream"),
    ]
    assert [done for _, _, done in seen] == [0, 1, 1, 1, 1, 2]  # the report is updated before each call
    assert report.succeeded == ["upstream", "downstream"] and report.checks == {"upstream:upstream_is_fine": True}
    assert report.groups == {"first": ["upstream"], "second": ["downstream"]}
    assert (report.done("first"), report.done("second")) == (1, 1)


def test_a_selection_runs_only_its_assets():
    report = runner.run(_tiny(upstream, downstream, checks=[upstream_is_fine]), dg.AssetSelection.assets("downstream"))
    assert report.succeeded == ["downstream"] and report.checks == {}


@dg.asset(group_name="first", **PER_SHARD)
def per_shard(context: dg.AssetExecutionContext) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": len(context.partition_keys)})


def test_a_run_over_several_shards_counts_a_per_shard_asset_once_and_runs_every_shard_by_default(tmp_path):
    made = dg.Definitions(assets=[per_shard, downstream], jobs=[dg.define_asset_job("build")],
                          resources={"clinverse": ClinverseResource(home=str(tmp_path), shards=3)})
    assert runner.every_shard(made) == ("s00", "s01", "s02")
    assert runner.every_shard(_tiny(upstream)) == ("s00",)
    report = runner.run(made, dg.AssetSelection.assets("per_shard"))
    assert report.succeeded == ["per_shard"] and report.done("first") == 1  # three materialisations, one asset
    assert report.asset_metrics["per_shard"]["rows"] == 3
    later = runner.run(made, dg.AssetSelection.assets("downstream"), shards=("s01",))
    report.absorb(later)
    assert report.succeeded == ["per_shard", "downstream"]
    assert report.groups == {"first": ["per_shard"], "second": ["downstream"]}


def test_a_producer_s_shards_report_their_rows_and_numbers_summed():
    parts = [Produced(Written(2, "why"), {"cases": 1, "cpu_s": 0.25, "kind": "a"}),
             Produced(Written(3), {"cases": 2, "cpu_s": 0.5, "kind": "b"})]
    assert producers.merged(parts) == Produced(Written(5, "why"), {"cases": 3, "cpu_s": 0.75, "kind": "a"})


def test_a_failed_step_fails_the_build_with_its_root_cause():
    with pytest.raises(runner.BuildFailed) as failure:
        runner.run(_tiny(broken, upstream))
    assert str(failure.value) == "broken failed: ValueError: the cases table has no rows"


def test_loading_the_definitions_leaves_the_statistics_and_learning_libraries_to_the_steps():
    """assets/__init__.py: every process that loads the definitions (a build before its first step,
    a sensor tick, each step process) would pay for scipy.stats, scikit-learn and statsmodels."""
    code = ("import sys, pipelines.definitions; "
            "print(sorted(m for m in ('scipy.stats', 'sklearn', 'statsmodels') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
