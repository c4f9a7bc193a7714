"""Materialise the content assets in-process on a small generated demo (MIMIC-IV + notes + SICdb)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipelines.build_plan import build_selection
from pipelines.demo import generate_demo
from pipelines.resources import ClinverseResource
from pipelines.runner import materialize
from pipelines.shards import shard_names
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow
ADMISSIONS = 60
SHARDS = shard_names(4)  # the default: some shards hold no case of a source
LEFT_OUT = ("profiles", "synthea_pool", "stress_test", "clinlab_eval", "case_exam_targets", "case_rubrics")  # need Synthea (the rest read profiles); their own tests cover them


def _build(sources: Path, home: Path) -> dg.ExecuteInProcessResult:
    resource = ClinverseResource(home=str(home), mimic_iv_dir=str(sources / "mimic-iv"),
                                 mimic_note_dir=str(sources / "mimic-iv-note"), sicdb_dir=str(sources / "sicdb"))
    from pipelines.definitions import defs

    selection = build_selection(resource.settings().configured_sources()) - dg.AssetSelection.assets(*LEFT_OUT)
    assets = [a for a in defs.assets if not {k.to_user_string() for k in a.keys} & set(LEFT_OUT)]
    return materialize([*assets, *defs.asset_checks], shards=SHARDS, selection=selection,
                       resources={"clinverse": resource}, raise_on_error=False)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    sources = tmp_path_factory.mktemp("demo-sources")
    generate_demo(sources, ADMISSIONS, seed=0)
    homes = [tmp_path_factory.mktemp("home-a"), tmp_path_factory.mktemp("home-b")]
    first, second = (_build(sources, home) for home in homes)
    return first, second, Warehouse(homes[0]), Warehouse(homes[1])


def _checks(result: dg.ExecuteInProcessResult) -> dict[str, bool]:
    return {f"{e.asset_key.to_user_string()}:{e.check_name}": e.passed
            for e in (ev.event_specific_data for ev in result.all_events if ev.event_type_value == "ASSET_CHECK_EVALUATION")}


def test_content_assets_materialise_and_every_check_passes(builds):
    first, second, _, _ = builds
    assert first.success and second.success
    checks = _checks(first)
    for name in ("information_units:information_units_do_not_leak", "exam_results:exam_results_do_not_leak",
                 "cases:presentations_do_not_leak", "cases:cases_account_for_every_candidate",
                 "information_units:information_units_have_key_facts", "exam_results:exam_results_match_catalog"):
        assert checks.get(name) is True, name
    assert all(checks.values()), [k for k, v in checks.items() if not v]


def test_kept_cases_have_units_of_several_categories_and_every_importance_level(builds):
    _, _, warehouse, _ = builds
    cases = warehouse.read("cases")
    units = warehouse.read("information_units").join(cases.select("case_id"), on="case_id", how="semi")
    assert cases.height > 0 and set(cases["source"]) >= {"mimic_iv"}
    per_case = units.group_by("case_id").agg(pl.col("category").n_unique().alias("n"))
    assert per_case.height == cases.height and per_case["n"].min() >= 3
    assert set(units["importance"]) == {"key", "supporting", "background"}
    exams = warehouse.read("exam_results").join(cases.select("case_id"), on="case_id", how="semi")
    assert set(exams["kind"]) >= {"lab", "vital", "physical_exam", "imaging"}
    catalog = warehouse.read("exam_catalog")
    assert exams.join(catalog, on="exam_name", how="anti").is_empty()
    skeleton = warehouse.read("case_skeleton").height + warehouse.read("skeleton_exclusions").height
    assert cases.height + warehouse.read("excluded_cases").height == skeleton


def test_two_builds_from_the_same_seed_give_the_same_units(builds):
    _, _, a, b = builds
    ids = [w.read("information_units").sort("unit_id").select("unit_id", "importance") for w in (a, b)]
    assert ids[0].height > 0 and ids[0].equals(ids[1])
    assert a.read("cases").sort("case_id").equals(b.read("cases").sort("case_id"))


def test_the_leakage_audits_fail_on_a_leaking_unit_and_report(builds, tmp_path):
    import shutil

    from assets.exams import exam_results_do_not_leak
    from assets.units import information_units_do_not_leak

    _, _, built, _ = builds
    home = tmp_path / "tampered"
    shutil.copytree(built.home, home)
    warehouse = Warehouse(home)
    skeleton = warehouse.read("case_skeleton").filter(pl.col("source") == "mimic_iv").head(1)
    case, name = skeleton.row(0, named=True)["case_id"], skeleton.row(0, named=True)["diagnosis_name"]
    units = warehouse.read("information_units")
    warehouse.write("information_units", units.with_columns(
        pl.when(pl.col("unit_id") == units.filter(pl.col("case_id") == case)["unit_id"][0])
        .then(pl.lit(f"Told it was {name}")).otherwise(pl.col("text")).alias("text")))
    exams = warehouse.read("exam_results")
    warehouse.write("exam_results", exams.with_columns(
        pl.when((pl.col("case_id") == case) & (pl.col("kind") == "lab")).then(pl.lit(f"consistent with {name}"))
        .otherwise(pl.col("value_text")).alias("value_text")))
    resource = ClinverseResource(home=str(home))
    for check in (information_units_do_not_leak, exam_results_do_not_leak):
        outcome = check(clinverse=resource)
        assert not outcome.passed and outcome.metadata["hits_mimic_iv"].value >= 1
