"""Conformance on the real MIMIC-IV demo (100 patients, 275 admissions): the readers take the
publisher's layout unchanged, the case skeleton maps (almost) every admission, and the labels and
screening rules hold against the raw CSV files."""

import polars as pl

from pipelines import icd
from pipelines.cli import main
from pipelines.warehouse import Warehouse


def test_staging_matches_the_published_row_counts(real_demo_warehouse):
    wh = real_demo_warehouse
    assert wh.rows("mimic_admissions") == 275
    assert wh.rows("mimic_labevents") == 107_727
    assert wh.rows("mimic_diagnoses_icd") == 4_506
    rejects = wh.read("rejects")
    unread = rejects.filter((pl.col("table") != "mimic_diagnoses_icd") & ~pl.col("reason").str.starts_with("implausible"))
    assert unread.height == 0  # every source row was readable (impossible measurements: tests/exams)
    # Secondary codes that map to no ICD-10-CM code are rejected with the reason, not dropped silently.
    coded = rejects.filter(pl.col("table") == "mimic_diagnoses_icd")
    later = pl.col("reason").str.starts_with("superseded by the later coding")
    superseded, unmapped = coded.filter(later), coded.filter(~later)
    assert unmapped.height > 0 and unmapped["reason"].str.contains("left out of the case").all()
    # A patient coded with two kinds of diabetes is told the latest (7 cases on the demo); none keeps two.
    assert superseded.height > 0 and superseded["reason"].str.contains("one kind of diabetes").all()
    diabetes = wh.read("unit_candidates").filter(pl.col("concept").str.contains(r"^icd10:E(0[89]|1[0-3])$"))
    assert diabetes.group_by("case_id").agg(pl.col("concept").n_unique().alias("kinds"))["kinds"].max() == 1
    # the demo ships no chartevents: skipped, staged empty
    assert wh.rows("mimic_chartevents") == 0


def test_every_admission_is_a_candidate_with_valid_category_and_block_or_excluded(real_demo_warehouse):
    skeleton = real_demo_warehouse.read("case_skeleton")
    valid = [
        row for row in skeleton.iter_rows(named=True)
        if icd.is_valid_category(row["primary_icd10_category"] or "")
        and row["primary_icd10_block"] == icd.icd10cm_info(row["primary_icd10"]).block
    ]
    assert len(valid) == skeleton.height >= 150
    assert skeleton.height + real_demo_warehouse.rows("skeleton_exclusions") == 275
    assert set(skeleton["dataset"]) == {"mimic-iv-2.2"}
    assert {"icd10", "icd9_gem_approximate"} <= set(skeleton["icd_origin"])


def test_query_answers_over_the_real_build(real_demo_warehouse, capsys):
    assert main(["query", "--home", str(real_demo_warehouse.home), "--format", "csv",
                 "SELECT (SELECT count(*) FROM case_skeleton) + (SELECT count(*) FROM skeleton_exclusions) AS n"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "275"]


def test_profiles_agree_with_the_record(real_demo_warehouse):
    """Language, marital status and race come from hosp/admissions where it has them; no profile
    condition is unfit for the case's sex or age, in the primary category or denied by its units."""
    from pipelines.profiles.match import profile_violations
    from pipelines.profiles.record import case_record

    wh = real_demo_warehouse
    source, denied = case_record(wh)
    cases, profiles = wh.read("cases"), wh.read("profiles")
    said = source.join(profiles, on="case_id", suffix="_profile").filter(pl.col("language").is_not_null())
    assert said.height >= 0.8 * cases.filter(pl.col("source") == "mimic_iv").height
    assert (said["language"] == said["language_profile"]).all()
    counts = profile_violations(cases, profiles, wh.read("synthea_pool"), source, denied)
    assert not any(counts.values()), counts


def _raw(mimic_demo_dir, table: str) -> pl.DataFrame:
    return pl.read_csv(mimic_demo_dir / "hosp" / f"{table}.csv.gz", schema_overrides={"icd_code": pl.Utf8},
                       try_parse_dates=True)


def _mimic_cases(wh: Warehouse, mimic_demo_dir, table: str = "cases") -> pl.DataFrame:
    """The kept MIMIC-IV cases (or every candidate: ``case_skeleton``) with their raw admission (read
    from the CSV, not the warehouse)."""
    keys = wh.read("case_provenance").select("case_id", "subject_id", "hadm_id")
    return wh.read(table).join(keys, on="case_id").join(
        _raw(mimic_demo_dir, "admissions").select("hadm_id", "admittime", "admission_type"), on="hadm_id")


def test_labels_carry_every_gem_target_and_the_cm_title(real_demo_warehouse, mimic_demo_dir):
    cases = _mimic_cases(real_demo_warehouse, mimic_demo_dir, "case_skeleton")  # labels come with the candidates
    one_to_many = cases.filter(pl.col("icd_origin") == "icd9_gem_one_to_many")
    assert one_to_many.height >= 15
    assert (one_to_many["acceptable_icd10"].list.len() > 1).all()
    assert all(codes[0] == code for codes, code in one_to_many.select("acceptable_icd10", "primary_icd10").iter_rows())
    assert (cases.filter(pl.col("icd_origin") != "icd9_gem_one_to_many")["acceptable_icd10"].list.len() == 1).all()
    for name, code in cases.select("diagnosis_name", "primary_icd10").iter_rows():
        assert name == icd.icd10cm_info(code).title
    # the source wording stays acceptable, and "other postoperative infection" is an infection code
    principal = _raw(mimic_demo_dir, "diagnoses_icd").filter(pl.col("seq_num") == 1).join(
        _raw(mimic_demo_dir, "d_icd_diagnoses"), on=["icd_code", "icd_version"])
    labelled = cases.join(principal.select("hadm_id", "icd_code", "long_title"), on="hadm_id")
    assert all(title in names for title, names in labelled.select("long_title", "acceptable_names").iter_rows())
    assert set(labelled.filter(pl.col("icd_code") == "99859")["primary_icd10"]) <= {"T81.4"}


def test_encounters_that_are_no_diagnostic_problem_are_excluded(real_demo_warehouse, mimic_demo_dir):
    cases = _mimic_cases(real_demo_warehouse, mimic_demo_dir)
    assert not set(cases["admission_type"]) & {"ELECTIVE", "SURGICAL SAME DAY ADMISSION"}
    assert not cases["primary_icd10"].str.contains(r"^Z(38|4[0-9]|5[0-3])").any()
    excluded = real_demo_warehouse.read("excluded_cases").filter(pl.col("stage") == "not_diagnostic")
    for fragment in ("Z51.11", "Z43.2", "admission type ELECTIVE", "admission type SURGICAL SAME DAY ADMISSION"):
        assert excluded["reason"].str.contains(fragment, literal=True).any(), fragment


def test_known_conditions_and_the_cap_per_patient(real_demo_warehouse, mimic_demo_dir):
    cases = _mimic_cases(real_demo_warehouse, mimic_demo_dir)
    assert (cases["index_time"] == cases["admittime"]).all()
    # every category ever coded, with the admission time, straight from the CSV files
    coded = icd.normalise_codes(_raw(mimic_demo_dir, "diagnoses_icd"), "icd_code", "icd_version").join(
        _raw(mimic_demo_dir, "admissions").select("hadm_id", pl.col("admittime").alias("coded_at")), on="hadm_id")
    earlier = cases.join(coded.select("subject_id", "icd10_category", "coded_at"), how="left",
                         left_on=["subject_id", "primary_icd10_category"], right_on=["subject_id", "icd10_category"])
    expected = earlier.group_by("case_id").agg((pl.col("coded_at") < pl.col("admittime")).any().alias("expected"))
    flagged = cases.join(expected, on="case_id")
    assert (flagged["known_condition"] == flagged["expected"]).all()
    assert 0 < cases["known_condition"].sum() < cases.height
    skeleton = real_demo_warehouse.read("case_skeleton")
    assert skeleton.group_by("patient_key").len()["len"].max() == 3
    capped = real_demo_warehouse.read("excluded_cases").filter(pl.col("stage") == "patient_cap")
    assert capped.height > 0 and capped["reason"].str.contains("3 are kept").all()
