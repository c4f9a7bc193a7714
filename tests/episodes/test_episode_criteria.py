"""The diagnostic criteria of the offline doctors: reading reports back, cues and their negation,
conditions ruled out by history, the file's checks, and how the criteria join the nearest-case vote."""

import numpy as np
import pytest

from pipelines.datafiles import DataFileError
from pipelines.episodes.criteria import Evidence, PhraseIndex, candidates, criteria
from pipelines.episodes.knowledge import CRITERIA_WEIGHT
from pipelines.episodes.lab import read, render
from pipelines.episodes.views import ExamResult


def result(name: str, value: float | None, low: float | None, high: float | None, abnormal: bool | None = True,
           text: str | None = None) -> ExamResult:
    return ExamResult(exam_name=name, kind="lab", value_num=value, value_text=text, unit="mEq/L", ref_low=low,
                      ref_high=high, abnormal=abnormal, origin="recorded")


@pytest.mark.parametrize(("r", "direction"), [
    (result("Potassium", 6.4, 3.3, 5.1), "high"),
    (result("Base excess", -6.0, -2.0, 2.0), "low"),
    (result("CSF: Glucose", 30.0, 40.0, None), "low"),  # a name with a colon, a lower bound only
    (result("Lipase", 20.0, None, 60.0, abnormal=False), None),
    (result("Chest X-ray", None, None, None, text="right lower lobe consolidation"), None),
])
def test_a_rendered_report_reads_back_with_its_direction(r, direction):
    reading = read(render(r))
    assert reading is not None
    assert (reading.exam, reading.value, reading.low, reading.high, reading.abnormal) == (
        r.exam_name, r.value_num, r.ref_low, r.ref_high, r.abnormal)
    assert reading.direction == direction


def test_other_lines_are_no_report():
    assert read("I have had a cough for three days") is None
    assert read("") is None


def test_a_cue_counts_unless_the_words_just_before_negate_it():
    phrases = PhraseIndex({"cough": (("cough",),), "chills": (("chills",),), "fever": (("fever",),),
                           "shortness": (("shortness", "of", "breath"),)})
    evidence = Evidence.of("I have had a cough for three days.\nI don't have a fever. Chills at night", phrases)
    assert evidence.says(("cough",))
    assert evidence.says(("chills",))
    assert not evidence.says(("fever",))
    assert not evidence.says(("shortness", "of", "breath"))


def test_a_report_supports_the_conditions_whose_finding_it_meets():
    text = "\n".join(["A 70-year-old man presenting with weakness.", render(result("Potassium", 6.4, 3.3, 5.1)),
                      render(result("Creatinine", 4.1, 0.5, 1.2))])
    found = {c.criterion.code: c for c in candidates(text)}
    assert found["E87.5"].matched == 2  # the weakness and the potassium
    assert found["E87.5"].block == "E70-E88"
    assert found["N17.9"].matched == 2  # creatinine and potassium high
    assert [c.matched for c in candidates(text)] == sorted((c.matched for c in candidates(text)), reverse=True)


def test_evidence_in_other_words_is_scored_as_the_same_evidence():
    report = render(result("Potassium", 6.4, 3.3, 5.1))
    plain = candidates("\n".join(["I feel weakness.", report]))
    styled = candidates("\n".join(["Well, let me think. I feel weakness, I suppose.", report]))
    assert styled == plain and styled[0] is plain[0]  # one scoring of the phrases said and the results read
    later = candidates("\n".join(["I feel weakness.", render(result("Potassium", 6.1, 3.3, 5.1)), report]))
    assert later == plain  # the last report of an exam is the one read


def test_history_that_explains_the_results_away_rules_a_condition_out():
    text = "\n".join(["I am on dialysis", render(result("Creatinine", 9.0, 0.5, 1.2))])
    assert "N17.9" not in {c.criterion.code for c in candidates(text)}


def test_nothing_supported_gives_no_candidate():
    assert candidates("Preferred language: english") == []


def test_every_criterion_names_catalog_exams_and_a_release_code():
    rows = criteria()
    assert len(rows) >= 30
    assert all(c.cues or c.findings for c in rows)
    assert len({c.code for c in rows}) == len(rows)


@pytest.mark.parametrize(("row", "field"), [
    ("J18.9,cough,Chest Xray:abnormal,,pneumonia", "findings"),  # not a catalog name
    ("J18.9,cough,Chest X-ray:raised,,pneumonia", "findings"),  # not a direction
    ("J18.99,cough,,,pneumonia", "code"),  # not a code of the release
    ("J18.9,,,,pneumonia", "findings"),  # nothing to match
])
def test_a_bad_criteria_file_fails_naming_the_field(tmp_path, row, field):
    (tmp_path / "diagnostic_criteria.csv").write_text("code,cues,findings,unless,why\n" + row + "\n")
    with pytest.raises(DataFileError, match=field):
        criteria(tmp_path)


def test_a_distant_neighbour_is_outvoted_by_the_criteria_but_close_precedents_win(store):
    from pipelines.episodes.knowledge import TrainingKnowledge

    knowledge = TrainingKnowledge(store)
    text = "\n".join(["weakness", render(result("Potassium", 6.8, 3.3, 5.1))])
    found = candidates(text)
    assert found[0].criterion.code == "E87.5"
    sims = np.zeros(len(knowledge.codes))
    sims[0] = CRITERIA_WEIGHT / 2  # one distant train case
    lone = knowledge.prediction(sims, found)
    assert (lone.code, lone.block) == ("E87.5", "E70-E88")  # a block the train case does not hold
    assert knowledge.blocks[0] in lone.alternatives
    sims[0] = 2 * CRITERIA_WEIGHT  # a close precedent
    close = knowledge.prediction(sims, found)
    assert (close.code, close.block) == (knowledge.codes[0], knowledge.blocks[0])
