import subprocess
import sys
from pathlib import Path

import dagster as dg

from pipelines.build_plan import build_selection
from pipelines.definitions import defs

ROOT = Path(__file__).resolve().parents[1]


def test_definitions_load_with_every_stage():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {"mimic_labevents", "note_discharge", "sicdb_cases", "medqa_questions", "case_skeleton"} <= keys
    assert defs.resolve_job_def("build") is not None


def test_jobs_split_the_build_where_partitions_start():
    graph = defs.resolve_asset_graph()
    build = {k.to_user_string() for k in defs.resolve_job_def("build").asset_layer.selected_asset_keys}
    downstream = {k.to_user_string() for k in defs.resolve_job_def("build_downstream").asset_layer.selected_asset_keys}
    assert "case_skeleton" in build and "synthea_pool" not in build and "profiles" not in build
    assert "profiles" in downstream
    assert defs.resolve_job_def("synthea_pool_job").partitions_def is not None
    assert all(graph.get(dg.AssetKey(k)).partitions_def is None for k in build | downstream)


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
