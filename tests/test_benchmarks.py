"""The bench's summary of repeated rate measurements (benchmarks/run.py)."""

from benchmarks.run import FULL_MIMIC, best_of, note_work, projection


def test_the_best_reading_is_the_key_and_every_reading_stays_beside_it():
    runs = [{"rate": 176.4, "seed": 0}, {"rate": 218.5, "seed": 1}, {"rate": 172.1, "seed": 2}]
    summary = best_of(runs, "rate")
    assert summary["rate"] == 218.5 and summary["seed"] == 1  # the whole best run, not just its rate
    assert summary["rate_runs"] == [176.4, 218.5, 172.1]  # in the order measured
    assert summary["rate_median"] == 176.4


def _row(admissions: int) -> dict:
    notes = {"discharge_notes": 0, "radiology_reports": 0, "discharge_split_cpu_s": 0.0, "units_cpu_s": 0.0,
             "discharge_exams_cpu_s": 0.0, "radiology_split_cpu_s": 0.0, "radiology_exams_cpu_s": 0.0}
    return {"admissions": admissions, "medqa_questions": admissions // 4, "sicdb_admissions": admissions // 4,
            "lab_rows": 0, "startup_s": 0.0, "note_nlp": notes}


def test_each_source_s_steps_are_projected_by_that_source_s_own_size():
    """MedQA's and SICdb's steps grow with the generated demo (a question and an ICU stay per four
    admissions) but are projected to the real sources' sizes; every other step to MIMIC-IV's."""
    rows = [_row(2_000), _row(32_000)]
    seconds = {"2000": (1.0, 2.0, 3.0), "32000": (31.0, 32.0, 63.0)}  # medqa, sicdb, cases: 1 ms per unit
    assets = {scale: {"medqa_content": {"seconds": m}, "exam_candidates_sicdb_labs": {"seconds": s},
                      "case_references": {"seconds": c}} for scale, (m, s, c) in seconds.items()}
    parts = projection(rows, assets, cores=2)
    assert parts["medqa_s"] == round(FULL_MIMIC["medqa_questions"] * 30.0 / 7_500, 1)
    assert parts["sicdb_s"] == round(FULL_MIMIC["sicdb_admissions"] * 30.0 / 7_500, 1)
    assert parts["admissions_s"] == round(FULL_MIMIC["admissions"] * 60.0 / 30_000, 1)  # MedQA and SICdb left out


def test_each_note_kind_s_exam_step_share_is_projected_by_that_kind_s_notes():
    """The exam step's CPU is timed per note kind: discharge summaries' by MIMIC-IV-Note's discharge
    summaries, radiology reports' by its reports (a report costs less than a summary)."""
    rows = [_row(32_000)]
    rows[0]["note_nlp"] |= {"discharge_notes": 1_000, "radiology_reports": 2_000, "discharge_exams_cpu_s": 2.0,
                            "radiology_exams_cpu_s": 1.0}
    parts = projection(rows, {"32000": {}}, cores=2)
    expected = (FULL_MIMIC["discharge_notes"] * 2.0 / 1_000 + FULL_MIMIC["radiology_reports"] * 1.0 / 2_000) / 2
    assert parts["note_exams_s"] == round(expected, 1)
    assert note_work({"asset_metrics": {"note_sections": {"discharge_notes": 1_000, "radiology_notes": 2_000,
                                                          "discharge_cpu_s": 1.0, "radiology_cpu_s": 0.1},
                                        "unit_candidates_mimic_notes": {"nlp_cpu_s": 2.0},
                                        "exam_candidates_mimic_notes": {"discharge_nlp_cpu_s": 2.0,
                                                                        "radiology_nlp_cpu_s": 0.9}}}) == {
        "discharge_notes": 1_000, "radiology_reports": 2_000, "discharge_split_cpu_s": 1.0, "units_cpu_s": 2.0,
        "discharge_exams_cpu_s": 2.0, "radiology_split_cpu_s": 0.1, "radiology_exams_cpu_s": 0.9,
        "discharge_notes_per_s_per_core": 200.0, "radiology_reports_per_s_per_core": 20_000.0,
        "radiology_reports_judged_per_s_per_core": 2_000.0}
