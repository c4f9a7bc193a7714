"""What the judge grades against: the exams that matter (train split only), the evidence and
management key points, and the offline judge's words."""

from __future__ import annotations

from datetime import datetime

import polars as pl
import pytest
from evaluation_cases import HF, case_id, scoring_frames

import schemas
from pipelines.datafiles import DataFileError
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.exam_targets import exam_weights, ranked_targets
from pipelines.evaluation.params import rubric_params
from pipelines.evaluation.rubrics import build, evidence_points, first_day_prescriptions, management_points
from pipelines.evaluation.text import Words, judge_words, share

ADMIT = datetime(2150, 1, 1, 8)


def _cloned_store(copies: int) -> CaseStore:
    """The hand-made store with ``copies`` more train cases of heart failure (02) and pneumonia (03)."""
    tables = scoring_frames()
    extra = {name: [] for name in ("cases", "information_units", "exam_results", "profiles")}
    for n in range(copies):
        for source in ("02", "03"):
            new = case_id(f"9{n}{source}")
            for name in extra:
                rows = tables[name].filter(pl.col("case_id") == case_id(source)).with_columns(pl.lit(new).alias("case_id"))
                if name == "information_units":
                    rows = rows.with_columns(pl.format("u_{}{}", pl.lit(f"9{n}"), pl.col("unit_id").str.slice(2)).alias("unit_id"))
                extra[name].append(rows)
    for name, parts in extra.items():
        tables[name] = pl.concat([tables[name], *parts])
    return CaseStore(tables)


def test_an_exam_matters_when_its_abnormality_tells_blocks_apart_on_the_train_split():
    store = _cloned_store(2)  # train: 3 heart failure, 3 pneumonia, 1 appendicitis
    weights = exam_weights([store], min_support=3)
    # abnormal: NT-proBNP in the 3 heart failures, white cells in pneumonia and appendicitis (4), the
    # chest X-ray in all 6 but the appendicitis; the CT in 1 case only (too rare); Hemoglobin never
    assert set(weights) == {"NT-proBNP", "White blood cell count", "Chest X-ray"}
    assert all(w > 0 for w in weights.values())
    assert set(exam_weights([store], min_support=5)) == {"Chest X-ray"} and exam_weights([store], 7) == {}


def test_a_case_ranks_its_exams_that_matter_abnormal_first(scoring_store):
    ranked = ranked_targets(scoring_store, {"NT-proBNP": 0.3, "Chest X-ray": 0.2, "Hemoglobin": 0.5})
    # Sodium does not matter
    assert ranked.filter(pl.col("case_id") == HF).select("rank", "exam_name", "abnormal", "weight").rows() == [
        (1, "NT-proBNP", True, 0.3), (2, "Chest X-ray", True, 0.2), (3, "Hemoglobin", False, 0.5)]
    # every kept case, in case order, ranked from 1; each row carries its first result
    assert ranked["case_id"].to_list() == sorted(ranked["case_id"]) and set(ranked["case_id"]) <= set(scoring_store.case_ids())
    assert (ranked.group_by("case_id").agg((pl.col("rank") == pl.int_range(1, pl.len() + 1)).all())["rank"].all())
    first = scoring_store.exam_view(HF).by_name["NT-proBNP"]
    assert ranked.filter(pl.col("case_id") == HF).row(0, named=True)["value_num"] == first.value_num


def test_the_weights_never_read_a_test_case():
    store = _cloned_store(2)
    weights = exam_weights([store], 3)  # every result of the test case 01 turned abnormal: nothing moves
    frames = {t: store.table(t) for t in ("cases", "information_units", "exam_results", "exam_catalog", "profiles")}
    frames["exam_results"] = frames["exam_results"].with_columns(
        pl.when(pl.col("case_id") == HF).then(True).otherwise(pl.col("abnormal")).alias("abnormal"))
    assert exam_weights([CaseStore(frames)], 3) == weights


def test_evidence_points_are_key_units_then_salient_abnormal_exams(scoring_store):
    units, first = scoring_store.units(HF), scoring_store.exam_view(HF).by_name
    abnormal = [first[name] for name in ("NT-proBNP", "Chest X-ray", "Sodium", "Hemoglobin")]
    points = evidence_points(units, abnormal, [], rubric_params())
    assert [p[1] for p in points] == ["key_unit", "key_unit", "abnormal_exam", "abnormal_exam", "abnormal_exam"]
    assert points[2] == ("NT-proBNP: 5400 pg/mL", "abnormal_exam", "exam:NT-proBNP")
    medqa = [{"key_point": "Hemoglobin: 7.4 g/dL", "source_ref": "medqa:ab:1-2", "ordinal": 0}]
    assert evidence_points(units, [], medqa, rubric_params()) == [("Hemoglobin: 7.4 g/dL", "medqa_rubric",
                                                                  "medqa:ab:1-2")]


def test_management_points_are_first_day_treatments_without_routine_prophylaxis_or_home_drugs(scoring_store):
    hours = lambda h: ADMIT.replace(hour=8 + h) if h < 16 else datetime(2150, 1, 2, 8 + h - 24)  # noqa: E731
    prescriptions = pl.DataFrame([
        (1, hours(1), "MAIN", "Furosemide", "IV"),  # the patient's home drug (a medication unit)
        (1, hours(1), "MAIN", "Heparin", "SC"),  # prophylaxis
        (1, hours(2), "MAIN", "Heparin", "IV"),
        (1, hours(3), "MAIN", "Apixaban", "PO"),  # the same class: one point
        (1, hours(2), "MAIN", "Acetaminophen", "PO"),  # routine
        (1, hours(4), "BASE", "Sodium Chloride 0.9%", "IV"),  # not a main drug
        (1, hours(5), "MAIN", "Metolazone", "PO"),
        (1, hours(30), "MAIN", "CefTRIAXone", "IV"),  # after the first 24 hours
        (2, hours(1), "MAIN", "Aspirin", "PO"),  # another admission
    ], schema=["hadm_id", "starttime", "drug_type", "drug", "route"], orient="row")
    provenance = pl.DataFrame({"case_id": [HF], "source": ["mimic_iv"], "hadm_id": [1]})
    admissions = pl.DataFrame({"hadm_id": [1, 2], "admittime": [ADMIT, ADMIT]})
    first_day = first_day_prescriptions(provenance, admissions, prescriptions, rubric_params())
    assert "CefTRIAXone" not in first_day["drug"].to_list() and set(first_day["case_id"]) == {HF}
    points = management_points(scoring_store.units(HF), first_day.iter_rows(named=True), judge_words(), rubric_params())
    assert [p[0] for p in points] == ["Heparin, Apixaban (anticoagulant)", "Metolazone"]
    assert points[0][2] == "mimic_prescriptions:first_24h:heparin apixaban"  # no source key in the reference


def test_build_writes_valid_tables_for_every_source(scoring_store):
    targets, rubrics = build([scoring_store], schemas.empty("medqa_rubric"),
                             first_day_prescriptions(*(pl.DataFrame(schema=s) for s in (
                                 {"case_id": pl.Utf8, "source": pl.Utf8, "hadm_id": pl.Int64},
                                 {"hadm_id": pl.Int64, "admittime": pl.Datetime("us")},
                                 {"hadm_id": pl.Int64, "starttime": pl.Datetime("us"), "drug_type": pl.Utf8,
                                  "drug": pl.Utf8, "route": pl.Utf8})), rubric_params()))
    assert schemas.validate("case_rubrics", rubrics).height == rubrics.height > 0
    assert set(rubrics["kind"]) == {"evidence"} and schemas.validate("case_exam_targets", targets) is not None


def test_build_gives_the_same_tables_whatever_the_cases_per_frame(monkeypatch):
    from pipelines.evaluation import rubrics as module

    store, medqa = _cloned_store(3), schemas.empty("medqa_rubric")
    prescriptions = pl.DataFrame(schema={"case_id": pl.Utf8, "starttime": pl.Datetime("us"), "drug": pl.Utf8,
                                         "route": pl.Utf8})
    whole = build([store], medqa, prescriptions)
    monkeypatch.setattr(module, "CASES_PER_FRAME", 2)  # several parts, the last one short
    parts = build([store], medqa, prescriptions)
    assert len(store.case_ids()) % 2 == 1 and whole[0].height > 0 and whole[1].height > 0
    assert parts[0].equals(whole[0]) and parts[1].equals(whole[1])
    assert schemas.validate("case_rubrics", parts[1]).height == parts[1].height


def test_the_judge_words_fold_synonyms_plurals_and_filler():
    words = judge_words()
    assert words.of("Shortness of breath, worse at night") == words.of("dyspnoea worse night")
    assert words.of("IV antibiotics") == {"antibiotic"} == words.of("Piperacillin-Tazobactam")
    assert words.of("Troponin T 0.80 ng/mL elevated") == {"troponin", "0.8"} and words.key("BNP 5400") == {"bnp"}
    assert words.of("white blood cells") == words.of("WBC") and share(frozenset(), frozenset()) == 1.0


def test_a_phrase_given_to_two_concepts_is_refused():
    with pytest.raises(DataFileError, match="also belongs to"):
        Words({"dyspnea": ["sob"]}, {"sedative": ["SOB"]}, [])
