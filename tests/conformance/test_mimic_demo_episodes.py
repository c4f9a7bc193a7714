"""Episodes on the real MIMIC-IV demo build: every test case with each offline doctor, their
accuracy order by cross-validation, the same trace for the same seed, the boundary stress test and
ClinLab against the population median."""

import shutil

import polars as pl
import pytest

from pipelines.cli import main
from pipelines.episodes.clinlab import clinlab_eval
from pipelines.episodes.crossval import accuracy, cross_validate
from pipelines.episodes.runs import RunSpec, run_and_export, run_summary
from pipelines.episodes.store import CaseStore
from pipelines.episodes.stress import stress_rates
from pipelines.warehouse import Warehouse

DOCTORS = ("full_info", "retrieval", "random")
TRACE = ["turn", "actor", "action", "content", "test_name", "match_type", "unit_ids", "self_check", "error"]


@pytest.fixture(scope="module")
def played(real_demo_warehouse, tmp_path_factory) -> Warehouse:
    """A copy of the real build with the three offline doctors run on its test split (as `clinverse
    episodes` runs them, sharing one store so the backends are fitted once)."""
    home = shutil.copytree(real_demo_warehouse.home, tmp_path_factory.mktemp("real-episodes") / "home", symlinks=True)
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    for doctor in DOCTORS:
        run_and_export(warehouse, store, RunSpec(doctor=doctor))
    return warehouse


def test_every_test_case_gets_an_episode_from_each_offline_doctor(played):
    store = CaseStore.from_warehouse(played)
    test_cases = sorted(store.case_ids("test"))
    assert len(test_cases) >= 10  # 14 of the demo's 76 structured-only cases when written (17 of 91 before
    # pipelines/content/diagnostic_tests.csv left out diagnoses that the demo's missing imaging and ECGs establish;
    # 11 since diagnosis_history.csv holds symptom labels to a unit that reports the symptom)
    for doctor in DOCTORS:
        run_id = RunSpec(doctor=doctor).id
        episodes = played.read_partition("episodes", run_id)
        assert sorted(episodes["case_id"]) == test_cases
        assert set(episodes["termination"]) <= {"finalized", "budget_exhausted"}
        assert episodes["n_error_turns"].sum() == 0  # offline doctors always speak the protocol
        assert run_summary(played, store, run_id)["episodes"] == len(test_cases)


AGAIN = 8  # cases replayed for the same-seed check


def test_the_same_seed_gives_the_same_trace(played):
    """The first cases again, as a run of their own: each case's trace is the one the whole run recorded."""
    assert main(["episodes", "--home", str(played.home), "--doctor", "retrieval", "--cases", str(AGAIN),
                 "--run-id", "again"]) == 0

    def trace(run_id: str, cases: pl.DataFrame | None = None) -> pl.DataFrame:
        events = played.read_partition("episode_events", run_id)
        episodes = played.read_partition("episodes", run_id).select("episode_id", "case_id")
        if cases is not None:
            episodes = episodes.join(cases, on="case_id", how="semi")
        return events.join(episodes, on="episode_id").select("case_id", *TRACE).sort("case_id", "turn", "actor",
                                                                                      "content")

    again = trace("again")
    assert again["case_id"].n_unique() == AGAIN
    assert trace(RunSpec(doctor="retrieval").id, again.select("case_id").unique()).equals(again)


def test_the_stress_test_discloses_nothing_dual_layer_with_self_check(real_demo_warehouse):
    rows = real_demo_warehouse.read("stress_test")
    cases = real_demo_warehouse.read("cases").height
    assert rows.height == cases * 6 * 4  # six queries per case under four configurations
    rates = dict(stress_rates(rows).select("configuration", "disclosure_rate").iter_rows())
    assert rates["dual_layer+self_check"] == 0.0
    assert rates["single_layer"] > 0.0


# The ED build leaves the evaluation group out: its clinlab_eval is computed here, as the asset computes it.
@pytest.mark.parametrize(("build", "items", "materialised"), [("real_demo_warehouse", 1000, True),
                                                             ("real_ed_demo_warehouse", 1000, False)])
def test_clinlab_is_ahead_of_the_population_median_on_every_overall_metric(build, items, materialised, request):
    """ClinLab learns from, and is scored on, every candidate admission of its split, kept as a case
    or not (CaseStore.lab_rows): 120 train and 34 test admissions of the real demo, 1,173
    held-out values with or without the ED module. Trained on the kept cases alone, it followed the
    curation's rules: 26 train cases with the ED module once diagnosis_history came, where it
    trailed the median on pooled MAE (9.481 against 9.367 on 264 values)."""
    warehouse = request.getfixturevalue(build)
    frame = warehouse.read("clinlab_eval") if materialised else clinlab_eval(CaseStore.from_warehouse(warehouse))
    overall = {r["predictor"]: r for r in frame.filter(pl.col("exam_name") == "ALL").iter_rows(named=True)}
    model, baseline = overall["clinlab"], overall["population_median"]
    assert model["n"] == baseline["n"] > items
    for metric in ("mape", "median_mape", "mae", "norm_ref_err", "wasserstein"):
        assert model[metric] < baseline[metric], metric
    assert model["anomaly_recall"] > baseline["anomaly_recall"]


@pytest.mark.parametrize(("build", "cases"), [("real_demo_warehouse", 50), ("real_ed_demo_warehouse", 25)])
def test_cross_validated_accuracy_orders_full_info_over_retrieval_over_random(build, cases, request):
    """The accuracy order of the offline doctors over every kept case, by 4-fold cross-validation of
    patients with 3 seeds (pipelines/episodes/crossval.py): the test splits alone hold 11 and 8
    cases, where one case is 0.09 or 0.125 of accuracy (on the ED build's 8: retrieval 0.125,
    random 0.150 over five seeds). When written, without the ED module full_info 0.2632, retrieval
    0.1404, random 0.1053 on 57 cases; with it 0.4333, 0.2222, 0.1556 on 30."""
    store = CaseStore.from_warehouse(request.getfixturevalue(build))
    table = accuracy(cross_validate(store, DOCTORS))
    assert table["cases"].min() == table["cases"].max() == len(store.case_ids()) > cases
    assert table["doctor"].to_list() == list(DOCTORS), table  # best first, no ties
