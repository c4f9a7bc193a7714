import polars as pl

import schemas
from pipelines.content.cases import curate, evidence_counts


def _skeleton(ids):
    base = schemas.empty("case_skeleton")
    rows = [{"case_id": f"c_{i:016x}", "source": "mimic_iv", "dataset": "demo", "split": "train", "age": 60, "sex": "F",
             "diagnosis_name": "Pneumonia", "acceptable_names": [], "primary_icd10": "J18.9",
             "primary_icd10_category": "J18", "primary_icd10_block": "J09-J18", "primary_icd10_chapter": "10",
             "icd_origin": "icd10", "secondary_icd10": [], "patient_key": f"p{i}", "mapping_reason": None,
             "acceptable_icd10": ["J18.9"], "known_condition": False} for i in ids]
    return pl.concat([base, pl.DataFrame(rows, schema=base.schema)])


def test_sufficiency_keeps_cases_with_enough_hidden_units_and_exams():
    skeleton = _skeleton([1, 2, 3, 4])
    ids = skeleton["case_id"].to_list()
    units = pl.DataFrame({"case_id": [ids[0]] * 4 + [ids[1]] * 2 + [ids[2]] * 4 + [ids[3]] * 4,
                          "disclosed": [True, False, False, False] + [False, False] + [False] * 4 + [False] * 4})
    exams = pl.DataFrame({"case_id": [ids[0]] * 3 + [ids[1]] * 3 + [ids[2]] * 2 + [ids[3]] * 3,
                          "exam_name": ["a", "b", "c", "a", "b", "c", "a", "a", "a", "b", "c"]})
    counts = evidence_counts(units.lazy(), exams.lazy())
    presentations = pl.DataFrame({"case_id": ids[:3], "presentation": ["A 60-year-old woman."] * 3})
    prior = pl.DataFrame({"case_id": ["c_00000000000000ff"], "source": ["mimic_iv"], "stage": ["case_skeleton"],
                          "reason": ["no diagnoses_icd row with seq_num = 1"]})
    curated = curate(skeleton, prior, presentations, counts, {"mimic_iv": (3, 3), "sicdb": (3, 3), "medqa": (3, 3)})
    assert curated.cases["case_id"].to_list() == [ids[0]]
    row = curated.cases.row(0, named=True)
    assert (row["n_units"], row["n_exams"], row["presentation"]) == (4, 3, "A 60-year-old woman.")
    reasons = dict(curated.excluded.select("case_id", "reason").iter_rows())
    stages = dict(curated.excluded.select("case_id", "stage").iter_rows())
    assert reasons[ids[1]].startswith("2 hidden information unit(s) (at least 3 required)")
    assert "1 examination(s)" in reasons[ids[2]]
    assert stages[ids[3]] == "presentation" and stages["c_00000000000000ff"] == "case_skeleton"
    assert curated.cases.height + curated.excluded.height == skeleton.height + prior.height
