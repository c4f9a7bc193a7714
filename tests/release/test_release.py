"""`clinverse release` on the session's demo warehouse: the curated tables without the restricted tables,
source identifiers, dates or note references; the scan clean on the release and failing on tampered
copies (an identifier in a text, float or integer cell, a date, a restricted table, a writer that
skips its rewrites), nothing left behind by a failed release; the card counting what the files hold;
the same bytes twice; the data use refusal for MIMIC-labelled cases and the refusal of MIMIC case ids
under the public demo key; restricted tables out of the default query views and in with the flag; and
the scan clean on the real MIMIC-IV demo's tables."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

import schemas
from pipelines.cli import main
from pipelines.release import release as release_module
from pipelines.release import writer
from pipelines.release.identifiers import identifier_rules
from pipelines.release.release import IdentifiersFound, Release, ReleaseRefused, release
from pipelines.release.scan import scan_release
from pipelines.release.spec import release_spec
from pipelines.release.writer import released_frames, write_tables
from pipelines.warehouse import Warehouse
from schemas.staging import BY_TABLE, MEDQA_TABLE

pytestmark = pytest.mark.slow

RESTRICTED = ("case_provenance", "note_sections", "note_discharge", "note_radiology")
NOTE_OR_MEDQA_REF = re.compile(r"[0-9]+-(DS|RR)-[0-9]+|medqa:[0-9a-f]{16}")


@pytest.fixture(scope="module")
def released(demo_home, tmp_path_factory) -> Release:
    return release(Warehouse(demo_home), tmp_path_factory.mktemp("release") / "out")


@pytest.fixture(scope="module")
def provenance(demo_home) -> pl.DataFrame:
    return Warehouse(demo_home).read("case_provenance")


def _parquet(release_dir: Path) -> dict[str, pl.DataFrame]:
    return {p.stem: pl.read_parquet(p) for p in sorted(release_dir.glob("*.parquet"))}


def _tampered(released: Release, tmp_path: Path, table: str, change) -> Path:
    """A copy of the release with ``change`` applied to one table's frame."""
    copy = shutil.copytree(released.out, tmp_path / "tampered")
    path = copy / f"{table}.parquet"
    change(pl.read_parquet(path)).write_parquet(path)
    return copy


def _kinds(folder: Path, demo_home: Path) -> set[tuple[str, str, str]]:
    return {(f.table, f.column, f.kind) for f in scan_release(folder, Warehouse(demo_home)).findings}


def test_the_release_holds_the_curated_tables_without_identifiers_dates_or_note_references(demo_home, released):
    spec = release_spec()
    assert sorted(p.name for p in released.out.iterdir()) == sorted(
        [f"{t.name}.parquet" for t in spec.tables] + ["README.md"])
    assert not list(released.out.parent.glob(".*.partial"))  # the temporary folder was renamed
    frames = _parquet(released.out)
    identifier_names = {name.lower() for name in identifier_rules().columns}
    for name, frame in frames.items():
        assert not schemas.restricted(name)
        assert not identifier_names & {c.lower() for c in frame.columns}, name
        assert not [c for c, dtype in frame.schema.items() if dtype.is_temporal()], name
    assert "index_time" not in frames["cases"].columns and "generator_patient_id" not in frames["profiles"].columns
    for name in ("information_units", "exam_results", "case_rubrics"):
        refs = frames[name]["source_ref"]
        assert not refs.str.contains(NOTE_OR_MEDQA_REF.pattern).any(), name
    refs = set(frames["information_units"]["source_ref"]) | set(frames["exam_results"]["source_ref"])
    assert {"note:discharge", "note:radiology", "medqa:question"} <= refs
    # Unit ids are made anew, and the rubrics point at the released ones.
    warehouse = Warehouse(demo_home)
    units = set(frames["information_units"]["unit_id"])
    assert not units & set(warehouse.read("information_units")["unit_id"])
    unit_refs = frames["case_rubrics"].filter(pl.col("source_ref").str.starts_with("unit:"))["source_ref"]
    assert unit_refs.len() > 0 and set(unit_refs.str.strip_prefix("unit:")) <= units
    # Only the kept cases' rows; excluded candidates are listed, their content is not.
    kept = set(frames["cases"]["case_id"])
    for name in ("information_units", "exam_results", "case_rubrics", "case_exam_targets", "profiles"):
        assert set(frames[name]["case_id"]) <= kept, name
    assert warehouse.read("information_units").filter(~pl.col("case_id").is_in(list(kept))).height > 0
    # Every warehouse table is released, staged source data, or listed with its reason.
    staged = set(BY_TABLE) | {MEDQA_TABLE}
    assert set(warehouse.tables()) - staged - set(frames) <= set(spec.not_released)


def test_the_scan_is_clean_on_the_release_and_looked_for_every_kind(demo_home, released):
    assert released.scan.clean and set(released.scan.files) == {p.name for p in released.out.iterdir()}
    searched = {row["kind"]: row for row in released.scan.searched.iter_rows(named=True)}
    for kind in ("MIMIC-IV subject_id", "MIMIC-IV hadm_id", "MIMIC-IV ICU or ED stay_id", "MIMIC-IV-Note note_id",
                 "MedQA question hash", "keyed patient key"):
        assert searched[kind]["anywhere"] > 0, kind
    assert searched["SICdb CaseID"]["own_case"] > 0  # 4 to 6 digits: looked for in their own case's rows
    assert scan_release(released.out, Warehouse(demo_home)).clean  # on its own, as after the fact


def _first(provenance: pl.DataFrame, released: Release, source: str, column: str) -> dict:
    """The provenance of the first released case of ``source`` with a ``column`` (a note, for a list)."""
    kept = pl.read_parquet(released.out / "cases.parquet")["case_id"]
    rows = provenance.filter((pl.col("source") == source) & pl.col("case_id").is_in(kept.implode()))
    has = pl.col(column).list.len() > 0 if rows.schema[column] == pl.List(pl.Utf8) else pl.col(column).is_not_null()
    return rows.filter(has).sort("case_id").row(0, named=True)


@pytest.mark.parametrize("case", ["subject_id in a unit's text", "SICdb CaseID in its case's presentation",
                                  "note id in an exam value", "MedQA hash glued to a word", "hadm_id as a float",
                                  "hadm_id in an integer column", "a date in a rubric point"])
def test_the_scan_fails_on_a_tampered_release(demo_home, released, provenance, tmp_path, case):
    mimic, sicdb, medqa = (_first(provenance, released, "mimic_iv", "note_ids"),
                           _first(provenance, released, "sicdb", "CaseID"),
                           _first(provenance, released, "medqa", "medqa_hash"))

    def in_row(column, text, case_id=None):
        """Append ``text`` to ``column`` of the first row (of case ``case_id``)."""
        def change(frame):
            target = (pl.col("case_id") == case_id) if case_id else (pl.int_range(pl.len()) == 0)
            return frame.with_columns(pl.when(target).then(pl.col(column) + text).otherwise(pl.col(column)))
        return change

    table, column, kind, change = {
        "subject_id in a unit's text": ("information_units", "text", "MIMIC-IV subject_id",
                                        in_row("text", f" (patient {mimic['subject_id']})")),
        "SICdb CaseID in its case's presentation": ("cases", "presentation", "SICdb CaseID",
                                                    in_row("presentation", f" case {sicdb['CaseID']}",
                                                           sicdb["case_id"])),
        "note id in an exam value": ("exam_results", "value_text", "MIMIC-IV-Note note_id",
                                     lambda f: f.with_columns(value_text=pl.lit(f"see {mimic['note_ids'][0]}"))),
        "MedQA hash glued to a word": ("case_rubrics", "key_point", "MedQA question hash",
                                       in_row("key_point", f" ref_{medqa['medqa_hash'].upper()}")),
        "hadm_id as a float": ("exam_results", "value_num", "MIMIC-IV hadm_id",
                               lambda f: f.with_columns(pl.lit(float(mimic["hadm_id"])).alias("value_num"))),
        "hadm_id in an integer column": ("cases", "admission", "MIMIC-IV hadm_id",
                                         lambda f: f.with_columns(pl.lit(mimic["hadm_id"]).alias("admission"))),
        "a date in a rubric point": ("case_rubrics", "key_point", "a date in text",
                                     in_row("key_point", " on 2150-03-04")),
    }[case]
    assert (table, column, kind) in _kinds(_tampered(released, tmp_path, table, change), demo_home)


def test_the_scan_fails_on_a_restricted_table_in_the_release(demo_home, released, provenance, tmp_path):
    folder = shutil.copytree(released.out, tmp_path / "tampered")
    provenance.write_parquet(folder / "case_provenance.parquet")
    found = _kinds(folder, demo_home)
    assert {("case_provenance", "*", "a restricted table"),
            ("case_provenance", "hadm_id", "a column named like MIMIC-IV hadm_id"),
            ("case_provenance", "hadm_id", "MIMIC-IV hadm_id")} <= found


@pytest.mark.parametrize("mistake", ["the writer skips its rewrites", "the writer adds a restricted table"])
def test_a_writer_mistake_fails_the_release_and_leaves_nothing(demo_home, tmp_path, monkeypatch, capsys, mistake):
    if mistake == "the writer skips its rewrites":
        monkeypatch.setattr(writer, "_rewrite", lambda frame, *_: frame)
        expected = ("information_units.source_ref", "MIMIC-IV-Note note_id")
    else:
        frames = released_frames
        monkeypatch.setattr(release_module, "released_frames", lambda wh, spec: {
            **frames(wh, spec), "case_provenance": wh.read("case_provenance")})
        expected = ("case_provenance.*", "a restricted table")
    out = tmp_path / "out"
    assert main(["release", "--home", str(demo_home), "--out", str(out)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "release not published" in err and all(part in err for part in expected), err
    assert list(tmp_path.iterdir()) == []  # no release, no temporary folder
    with pytest.raises(IdentifiersFound):
        release(Warehouse(demo_home), out)


def _card_rows(card: str, heading: str) -> list[list[str]]:
    """The cells of the rows of the first Markdown table after ``heading``."""
    lines = card[card.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("| "):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_the_card_counts_what_the_files_hold(demo_home, released):
    card = (released.out / "README.md").read_text()
    frames = _parquet(released.out)
    per_table = {row[0]: row[1:] for row in _card_rows(card, "Rows per table and source")}
    sources = ["mimic_iv", "sicdb", "medqa"]
    case_source = frames["cases"].select("case_id", "source")
    for name, frame in frames.items():
        assert per_table[name][0] == f"{frame.height:,}" == f"{released.rows[name]:,}", name
        if "case_id" in frame.columns and name != "excluded_cases":
            counts = dict(frame.join(case_source, on="case_id").group_by("source").len().iter_rows())
            assert per_table[name][1:] == [f"{counts.get(s, 0):,}" for s in sources], name
    assert per_table["excluded_cases"][1:] == [
        f"{frames['excluded_cases'].filter(pl.col('source') == s).height:,}" for s in sources]
    files = {row[0].strip("`"): row[1] for row in _card_rows(card, "## Files")}
    assert files == {f"{name}.parquet": f"{frame.height:,}" for name, frame in frames.items()}
    split = {tuple(row[:3]): row[3] for row in _card_rows(card, "Cases per source, dataset and split")}
    assert split == {tuple(key): f"{n:,}" for *key, n in
                     frames["cases"].group_by("source", "dataset", "split").len().iter_rows()}
    searched = {row[0]: row[1:] for row in _card_rows(card, "Identifiers looked for")}
    assert searched == {kind: [f"{n:,}" for n in counts] for kind, *counts in released.scan.searched.iter_rows()}
    n = frames["cases"].height
    assert f"{n:,} of the {n:,} case ids" in card
    assert "public demo key" in card and "ClinVerse generated demo" in card and "Data use restriction" not in card
    assert Warehouse(demo_home).published_at() in card and "admissions=60" in card
    for table in release_spec().tables:
        for column, why in table.drop.items():
            assert f"| {table.name} | {column} | {why} |" in card


def test_the_same_warehouse_gives_the_same_bytes(demo_home, released, tmp_path):
    again = release(Warehouse(demo_home), tmp_path / "again")
    assert sorted(p.name for p in again.out.iterdir()) == sorted(p.name for p in released.out.iterdir())
    for path in released.out.iterdir():
        assert (again.out / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.fixture
def credentialed(demo_home, tmp_path) -> Path:
    """A copy of the demo warehouse whose MIMIC-IV cases are labelled as the real release."""
    home = shutil.copytree(demo_home, tmp_path / "home", symlinks=True)
    warehouse = Warehouse(home)
    label = pl.when(pl.col("source") == "mimic_iv").then(pl.lit("mimic-iv-2.2")).otherwise("dataset")
    warehouse.write("cases", warehouse.read("cases").with_columns(label.alias("dataset")))
    return home


def test_mimic_labelled_content_needs_the_acknowledgement_and_a_secret_id_key(credentialed, tmp_path, capsys,
                                                                               monkeypatch):
    out = tmp_path / "out"
    assert main(["release", "--home", str(credentialed), "--out", str(out)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "release refused" in err and "--acknowledge-data-use" in err and "PhysioNet" in err
    assert not out.exists()
    # Acknowledged, the MIMIC-IV cases are still refused: their ids are the public demo key's hashes.
    assert main(["release", "--home", str(credentialed), "--out", str(out), "--acknowledge-data-use"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    mimic = Warehouse(credentialed).read("cases").filter(pl.col("source") == "mimic_iv").height
    assert "public demo key" in err and "CLINVERSE_ID_KEY" in err and f"{mimic} case ids of mimic-iv-2.2" in err
    assert not out.exists()
    with pytest.raises(ReleaseRefused):
        release(Warehouse(credentialed), out, acknowledge_data_use=True)
    # As if the build had used a secret key: written, its card carrying the restriction.
    monkeypatch.setattr("pipelines.release.keys.DEMO_ID_KEY", "another-public-key")
    written = release(Warehouse(credentialed), out, acknowledge_data_use=True)
    card = (out / "README.md").read_text()
    assert written.restricted == ["mimic_iv"] and written.scan.clean
    assert "Data use restriction" in card and "PhysioNet Credentialed Health Data License 1.5.0" in card
    assert "No case id of this release is the public demo key's hash" in card


def test_restricted_tables_have_no_default_view_and_the_flag_opens_them(demo_home, capsys):
    warehouse = Warehouse(demo_home)
    assert set(RESTRICTED) <= set(warehouse.tables()) and not set(RESTRICTED) & set(warehouse.query_tables())
    views = "SELECT view_name FROM duckdb_views() WHERE NOT internal"
    with warehouse.connect() as con:
        assert not set(RESTRICTED) & {r[0] for r in con.execute(views).fetchall()}
    with warehouse.connect(restricted=True) as con:
        assert set(RESTRICTED) <= {r[0] for r in con.execute(views).fetchall()}
    with duckdb.connect(str(warehouse.db_path), read_only=True) as con:  # the file for the DuckDB CLI
        assert not set(RESTRICTED) & {r[0] for r in con.execute(views).fetchall()}
    sql = "SELECT count(*) AS n FROM case_provenance"
    assert warehouse.query(sql, restricted=True)["n"].item() == warehouse.rows("case_provenance") > 0
    assert main(["query", "--home", str(demo_home), sql]) == 1
    assert "--restricted" in capsys.readouterr().err
    assert main(["query", "--home", str(demo_home), "--restricted", "--format", "csv",
                 "SELECT count(*) AS n FROM note_sections"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == str(warehouse.rows("note_sections"))


def test_the_scan_is_clean_on_the_real_mimic_demo_tables(real_demo_warehouse, tmp_path):
    """The real MIMIC-IV demo (its real identifiers): the released tables hold none of them. Its build
    used the public demo key, so the release itself is refused."""
    folder = tmp_path / "tables"
    folder.mkdir()
    write_tables(released_frames(real_demo_warehouse), folder)
    report = scan_release(folder, real_demo_warehouse)
    assert report.clean, [f.describe() for f in report.findings]
    searched = {row["kind"]: row["anywhere"] for row in report.searched.iter_rows(named=True)}
    assert searched["MIMIC-IV subject_id"] == 100 and searched["MIMIC-IV hadm_id"] == 275
    with pytest.raises(ReleaseRefused, match="CLINVERSE_ID_KEY"):
        release(real_demo_warehouse, tmp_path / "out", acknowledge_data_use=True)


def test_a_released_table_is_checked_against_its_schema_less_its_dropped_columns(demo_home):
    """writer._conform: the schema's row checks and keys, less the dropped columns (``cases`` passes
    without ``index_time`` and fails with it), then the release key; a repeated key or a failing row
    stops the release with the table and the key or check named."""
    spec = {table.name: table for table in release_spec().tables}
    warehouse = Warehouse(demo_home)
    cases = warehouse.read("cases")
    assert "index_time" in spec["cases"].drop
    kept = writer._conform(spec["cases"], cases.drop("index_time").reverse())
    assert kept["case_id"].to_list() == sorted(cases["case_id"]) and "index_time" not in kept.columns
    with pytest.raises(schemas.ContractError, match="column 'index_time' not in"):  # a dropped column left in
        writer._conform(spec["cases"], cases)
    catalog = warehouse.read("exam_catalog")
    with pytest.raises(schemas.ContractError, match=r"1 value\(s\) of \(exam_name\) occur more than once"):
        writer._conform(spec["exam_catalog"], pl.concat([catalog, catalog.head(1)]))
    with pytest.raises(schemas.ContractError, match="kind"):
        writer._conform(spec["exam_catalog"], catalog.with_columns(kind=pl.lit("not a kind")))
    # A release key the schema does not hold unique: the writer's own check names it and the fix.
    targets = warehouse.read("case_exam_targets")
    loose = dataclasses.replace(spec["case_exam_targets"], key=("case_id",))
    with pytest.raises(writer.ReleaseSpecError, match=r"value\(s\) of its key \(case_id\) occur more than once"):
        writer._conform(loose, targets)
