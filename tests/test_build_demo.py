"""The whole graph, in-process, through `clinverse build` on a small generated demo: every
source, every stage (Synthea included, with a one-patient pool per stratum), every check."""

import polars as pl
import pytest

from pipelines.cli import main
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_warehouse(demo_home) -> Warehouse:
    return Warehouse(demo_home)


def test_every_source_yields_cases_and_mimic_cases_carry_notes(demo_warehouse):
    cases = demo_warehouse.read("cases")
    assert set(cases["source"]) == {"mimic_iv", "sicdb", "medqa"}
    with_notes = demo_warehouse.read("case_provenance").filter(pl.col("note_ids").list.len() > 0)
    assert cases.join(with_notes, on="case_id", how="semi").height > 0


def test_every_case_has_one_profile_units_and_exams(demo_warehouse):
    cases = demo_warehouse.read("cases")
    profiles = demo_warehouse.read("profiles")
    assert sorted(profiles["case_id"]) == sorted(cases["case_id"])
    for table in ("information_units", "exam_results"):
        assert cases.join(demo_warehouse.read(table), on="case_id", how="anti").is_empty(), table


def test_considered_records_are_all_accounted_for(demo_warehouse):
    considered = demo_warehouse.rows("case_skeleton") + demo_warehouse.rows("skeleton_exclusions")
    assert demo_warehouse.rows("cases") + demo_warehouse.rows("excluded_cases") == considered
    assert demo_warehouse.rows("rejects") > 0  # the demo plants malformed lab rows


def test_show_prints_kept_cases_and_refuses_unknown_ones(demo_warehouse, capsys):
    home = str(demo_warehouse.home)
    test_ids = demo_warehouse.read("cases").filter(split="test").sort("case_id")["case_id"].to_list()
    assert main(["show", "--home", home, "--split", "test"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[1] for line in out.splitlines() if line.startswith("# ")] == test_ids
    assert main(["show", "--home", home, test_ids[0]]) == 0
    assert capsys.readouterr().out.startswith(f"# {test_ids[0]} ")
    assert main(["show", "--home", home, "c_nope"]) == 2
    assert "no kept case c_nope" in capsys.readouterr().err
    assert main(["show", "--home", home]) == 2


def test_cross_validate_prints_each_doctors_accuracy_and_refuses_bad_arguments(demo_warehouse, capsys):
    home = str(demo_warehouse.home)
    assert main(["cross-validate", "--home", home, "--doctors", "random,full_info", "--folds", "2",
                 "--seeds", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("│")]
    cases = str(demo_warehouse.rows("cases"))
    assert [r.split("│")[1].strip() for r in rows] == ["full_info", "random"]  # best first
    assert all(r.split("│")[2].strip() == cases and len(r.split("│")[5].split()) == 2 for r in rows)
    assert main(["cross-validate", "--home", home, "--doctors", "llm"]) == 2
    assert "unknown offline doctor(s) ['llm']" in capsys.readouterr().err
    assert main(["cross-validate", "--home", home, "--folds", "1"]) == 2
    assert "1 folds: expected 2 to" in capsys.readouterr().err


def test_query_prints_json(demo_warehouse, capsys):
    assert main(["query", "--home", str(demo_warehouse.home), "--format", "json",
                 "SELECT source, count(*) AS n FROM cases GROUP BY source ORDER BY source"]) == 0
    assert '"source": "medqa"' in capsys.readouterr().out
