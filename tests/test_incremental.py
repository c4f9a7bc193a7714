"""Which shards a rebuild re-runs: the digests of each shard's inputs, and `clinverse build
--incremental` after a drop of one shard's admissions (the new patients' rows added to the files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipelines.cli import main
from pipelines.config import DEMO_ID_KEY, Settings
from pipelines.demo.withhold import shard_subjects, withhold
from pipelines.incremental import (
    changed_shards,
    digests,
    misplaced_rows,
    settings_digest,
    shard_inputs,
    span,
)
from pipelines.shards import shard_names
from pipelines.warehouse import Warehouse
from schemas.staging import ALL, MEDQA_TABLE

STAGED = [spec.table for spec in ALL] + [MEDQA_TABLE]
SHARD = "s01"


def _count() -> int:
    """The shard count of the session's demo build (tests/conftest.py: two, unless set)."""
    return Settings.from_env().shards


def test_changed_shards_are_the_new_and_the_different_and_a_run_holds_their_span():
    before = {"s00": "a", "s01": "b", "s02": "c"}
    assert changed_shards(before, {"s00": "a", "s01": "b", "s02": "c"}) == []
    assert changed_shards(before, {"s00": "a", "s01": "x", "s02": "c", "s03": "d"}) == ["s01", "s03"]
    assert changed_shards({}, before) == ["s00", "s01", "s02"]
    names = ("s00", "s01", "s02", "s03")
    assert span(["s01", "s03"], names) == ["s01", "s02", "s03"] and span([], names) == []


def test_the_settings_digest_ignores_where_and_how_fast_but_not_what(tmp_path):
    base = Settings(home=tmp_path, workers=1)
    assert settings_digest(base) == settings_digest(Settings(home=tmp_path / "other", workers=8,
                                                             locations={"sicdb": (tmp_path,)}))
    assert settings_digest(base) != settings_digest(Settings(home=tmp_path, workers=1, exam_window_hours=12))
    assert settings_digest(base) != settings_digest(Settings(home=tmp_path, workers=1, shards=8))


@pytest.fixture
def copied(demo_home, tmp_path) -> Warehouse:
    """A writable copy of the session's demo build (its published tables)."""
    shutil.copytree(Warehouse(demo_home).public_tables.resolve(), tmp_path / "tables")
    return Warehouse(tmp_path)


def _digests(warehouse: Warehouse) -> dict[str, str]:
    return digests(shard_inputs(warehouse, STAGED, Settings(home=warehouse.home, shards=_count())))


def test_a_changed_lab_value_changes_its_patient_s_shard_only_and_a_dictionary_every_shard(copied):
    before = _digests(copied)
    assert list(before) == list(shard_names(_count()))
    assert before == digests(Warehouse(copied.home).read("shard_inputs"))  # what the build wrote
    labs = copied.read("mimic_labevents")
    subject = labs["subject_id"][0]
    shard = next(s for s in before
                 if copied.shard_view(s).read("case_provenance").filter(pl.col("subject_id") == subject).height)
    copied.write("mimic_labevents", labs.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(pl.col("valuenum") + 1).otherwise(pl.col("valuenum")).alias("valuenum")))
    assert changed_shards(before, _digests(copied)) == [shard]
    # the same rows in another order are the same inputs
    copied.write("mimic_labevents", labs.reverse())
    assert _digests(copied) == before
    items = copied.read("mimic_d_labitems")
    copied.write("mimic_d_labitems", items.with_columns(pl.col("label").str.to_uppercase()))
    assert changed_shards(before, _digests(copied)) == list(before)


def test_withholding_a_shard_s_patients_leaves_the_other_rows_as_they_were(demo_home, tmp_path):
    sources = demo_home / "demo-sources"
    subjects = shard_subjects(sources / "mimic-iv", DEMO_ID_KEY, _count(), SHARD)
    left_out = withhold(sources, tmp_path / "before", subjects)
    assert subjects and left_out["mimic-iv/hosp/patients.csv.gz"] == len(subjects)
    assert left_out["mimic-iv/hosp/d_labitems.csv.gz"] == 0 and left_out["sicdb/cases.csv.gz"] == 0
    assert (tmp_path / "before" / ".clinverse-demo").exists()  # the demo's marker: the same dataset label
    full = pl.read_csv(sources / "mimic-iv" / "hosp" / "admissions.csv.gz", infer_schema=False)
    kept = pl.read_csv(tmp_path / "before" / "mimic-iv" / "hosp" / "admissions.csv.gz", infer_schema=False)
    assert kept.equals(full.filter(~pl.col("subject_id").is_in([str(s) for s in subjects])))


@pytest.mark.slow
def test_a_drop_of_one_shard_s_admissions_re_runs_that_shard_and_gives_the_full_build(demo_home, tmp_path,
                                                                                       monkeypatch, capsys):
    """The session's demo build is the full build of the sources; a warehouse built before one shard's
    patients arrived, then rebuilt with --incremental once they have, must equal it."""
    sources = demo_home / "demo-sources"
    withhold(sources, tmp_path / "before", shard_subjects(sources / "mimic-iv", DEMO_ID_KEY, _count(), SHARD))
    monkeypatch.setenv("CLINVERSE_SYNTHEA_POOL_SIZE", "1")  # as the session's build
    monkeypatch.setenv("CLINVERSE_LOG_LEVEL", "WARNING")
    home = tmp_path / "home"

    def build(root: Path, *flags: str) -> str:
        assert main(["build", "--home", str(home), "--mimic-iv", str(root / "mimic-iv"),
                     "--mimic-note", str(root / "mimic-iv-note"), "--mimic-ed", str(root / "mimic-iv-ed"),
                     "--sicdb", str(root / "sicdb"), "--medqa", str(root / "medqa" / "US_demo.jsonl"), *flags]) == 0
        said = capsys.readouterr()
        return said.out + said.err

    build(tmp_path / "before")
    warehouse = Warehouse(home)
    untouched = {p.name: p.stat().st_ino for p in warehouse.table_dir("note_sections").iterdir()}
    said = build(sources, "--incremental")
    assert f"shards with new inputs: {SHARD} of {_count()}; re-running {SHARD}..{SHARD}" in said
    after = {p.name: p.stat().st_ino for p in warehouse.table_dir("note_sections").iterdir()}
    # the other shards' note NLP was not re-run: their files are the ones the first build wrote
    assert {n: i for n, i in after.items() if SHARD not in n} == {n: i for n, i in untouched.items() if SHARD not in n}
    assert any(SHARD in n and untouched.get(n) != i for n, i in after.items())
    full = Warehouse(demo_home)
    assert warehouse.tables() == full.tables()
    assert [t for t in full.tables() if warehouse.content_hash(t) != full.content_hash(t)] == []
    assert f"shards with new inputs: none of {_count()}" in build(sources, "--incremental")


def test_the_shard_check_finds_a_row_in_another_shard_s_file_and_a_file_of_another_shard_count(copied):
    names = shard_names(_count())
    assert misplaced_rows(copied, names) == {}
    units = copied.shard_view("s00").read_partition("unit_candidates", "mimic_structured")
    copied.shard_view("s01").write("unit_candidates", units.head(3), partition="mimic_structured-extra")
    assert misplaced_rows(copied, names) == {"unit_candidates": 3}
    copied.shard_view("s09").write("unit_candidates", units.clear(), partition="mimic_structured")  # another count's
    assert misplaced_rows(copied, names) == {"unit_candidates": 3 + 1}
    skeleton = copied.shard_view("s01").read("case_skeleton")
    copied.shard_view("s01").write("case_skeleton", skeleton.with_columns(pl.lit("p_0000000000000000").alias(
        "patient_key")))  # every patient key now says s00
    assert misplaced_rows(copied, names)["case_skeleton"] == skeleton.height
