"""`clinverse build --executor multiprocess`: the same ``build`` job under Dagster's multiprocess
executor, each step in a process of its own that makes the Definitions again from the build's
resource values. It gives the tables an in-process build gives, and fails the way one does."""

import shutil
from pathlib import Path

import dagster as dg
import pytest

from pipelines import runner
from pipelines.cli import build, main
from pipelines.resources import ClinverseResource, SyntheaResource
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow
# Steps of three stages (MIMIC-IV staging tables, the case skeleton, two content producers reading both),
# not the whole graph: each step costs a second or two of Dagster's start-up in its process.
SELECT = "+key:unit_candidates_mimic_structured or +key:exam_candidates_mimic_labs or key:skeleton_exclusions"
UNSET = ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME",
         "CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_MIMIC_ED_DIR", "CLINVERSE_EXECUTOR", "CLINVERSE_MAX_CONCURRENT")


@pytest.fixture(scope="module")
def mimic(tmp_path_factory) -> Path:
    """A 20-admission generated MIMIC-IV, with no other source in the environment; its cases kept
    structured-only (MIMIC-IV alone has no complaint to open a case with)."""
    with pytest.MonkeyPatch.context() as mp:
        for name in UNSET:
            mp.delenv(name, raising=False)
        mp.setenv("CLINVERSE_STRUCTURED_ONLY", "mimic_iv")
        mp.setenv("CLINVERSE_LOG_LEVEL", "WARNING")
        src = tmp_path_factory.mktemp("sources")
        assert main(["demo-data", str(src), "--admissions", "20", "--seed", "2"]) == 0
        yield src / "mimic-iv"


def _clinverse(mimic: Path, home: Path) -> ClinverseResource:
    return ClinverseResource.from_values({"home": str(home), "mimic_iv_dir": str(mimic), "structured_only": "mimic_iv"})


def test_a_multiprocess_build_makes_the_tables_an_in_process_build_makes(mimic, tmp_path):
    reports = {}
    for executor in ("in_process", "multiprocess"):
        reports[executor] = build(_clinverse(mimic, tmp_path / executor), SyntheaResource(), SELECT,
                                  show_progress=False, log_level="WARNING", executor=executor, max_concurrent=2)
    here, there = Warehouse(tmp_path / "in_process"), Warehouse(tmp_path / "multiprocess")
    assert sorted(reports["multiprocess"].succeeded) == sorted(reports["in_process"].succeeded)
    assert reports["multiprocess"].checks == reports["in_process"].checks and all(reports["in_process"].checks.values())
    assert "unit_candidates" in here.tables() and here.tables() == there.tables()
    assert {t: here.content_hash(t) for t in here.tables()} == {t: there.content_hash(t) for t in there.tables()}
    assert here.rows("unit_candidates") > 0
    assert not [p for p in (tmp_path / "multiprocess").iterdir() if p.name.startswith(".dagster-")]  # scratch removed


def test_a_failed_step_in_a_step_process_fails_the_build_with_its_root_cause(mimic, tmp_path):
    broken = tmp_path / "mimic-iv"
    shutil.copytree(mimic, broken)
    patients = broken / "hosp" / "patients.csv.gz"
    patients.write_bytes(patients.read_bytes()[:-40])  # truncated
    with pytest.raises(runner.BuildFailed) as failure:
        build(_clinverse(broken, tmp_path / "home"), SyntheaResource(), "key:mimic_patients", show_progress=False,
              log_level="WARNING", executor="multiprocess", max_concurrent=2)
    message = str(failure.value)
    assert message.startswith("mimic_patients failed: ") and "patients.csv.gz" in message
    assert "CLINVERSE_MIMIC_IV_DIR (--mimic-iv)" in message and "Traceback" not in message
    assert Warehouse(tmp_path / "home").published_at() is None  # nothing published


# -- the runner's multiprocess path on a graph of its own ------------------------------------------

@dg.asset(group_name="first")
def measured() -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": 3})


@dg.asset_check(asset=measured, blocking=True)
def measured_is_empty() -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=False, description="3 rows", metadata={
        "rows": 3, "empty_rows": 0, "examples": dg.MetadataValue.text("row 1\nrow 2\nrow 3\nrow 4")})


@dg.asset(deps=[measured], group_name="second")
def after() -> None:
    pass


def tiny_definitions() -> dg.Definitions:
    """Module level, so that each step process can make it (runner.Processes)."""
    return dg.Definitions(assets=[measured, after], asset_checks=[measured_is_empty],
                          jobs=[dg.define_asset_job("build", selection=dg.AssetSelection.all())])


def test_a_failed_blocking_check_in_a_step_process_fails_the_build_as_in_process(tmp_path):
    outcomes = {}
    for processes in (None, runner.Processes(f"{__name__}:{tiny_definitions.__name__}", {}, max_concurrent=2)):
        seen = []
        with pytest.raises(runner.BuildFailed) as failure:
            runner.run(tiny_definitions(), progress=lambda event, report: seen.append(event.event_type.value),
                       processes=processes, scratch=tmp_path)
        outcomes[processes is None] = (str(failure.value), seen)
    assert outcomes[False] == outcomes[True]  # the same message and the same progress events, in order
    message, seen = outcomes[False]
    # what the check found: its non-zero counts and first examples, so the user need not open the log
    assert message.endswith("; blocking checks failed: measured:measured_is_empty (rows=3; row 1; row 2; row 3)")
    assert seen == ["STEP_START", "ASSET_MATERIALIZATION", "STEP_START", "ASSET_CHECK_EVALUATION", "STEP_FAILURE"]
    assert list(tmp_path.iterdir()) == []  # each run's instance was a temporary of the home, removed
