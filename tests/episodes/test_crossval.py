"""Cross-validation folds of patients (CaseStore.folds) and the cross-validated doctor accuracy."""

import polars as pl
import pytest
from episode_cases import frames

from pipelines.episodes.crossval import accuracy, cross_validate
from pipelines.episodes.store import CaseStore

DOCTORS = ("full_info", "retrieval", "random")


@pytest.fixture(scope="module")
def skeleton_store() -> CaseStore:
    """The five hand-made cases with a skeleton: cases 02 and 03 are one patient, and each patient has
    a further candidate admission the curation excluded (``x`` + its key)."""
    tables = frames()
    cases = tables["cases"].select("case_id", "source", "split", "age", "sex")
    patient = pl.col("case_id").str.slice(-2).replace({"03": "02"})
    kept = cases.with_columns(patient_key=patient)
    excluded = kept.with_columns(case_id=pl.col("case_id") + "x")
    return CaseStore(tables | {"case_skeleton": pl.concat([kept, excluded])})


def _splits(store: CaseStore) -> dict[str, str]:
    return dict(store.table("case_skeleton").select("case_id", "split").rows())


def test_every_kept_case_is_tested_in_exactly_one_fold_and_patients_stay_whole(skeleton_store):
    folds = skeleton_store.folds(2)
    tested = [case for fold in folds for case in fold.case_ids("test")]
    assert sorted(tested) == skeleton_store.case_ids()  # once each
    for fold in folds:
        assert sorted(fold.case_ids("test") + fold.case_ids("train")) == skeleton_store.case_ids()
        splits = _splits(fold)
        assert dict(fold.cases.select("case_id", "split").rows()).items() <= splits.items()
        assert all(splits[c] == splits[c + "x"] for c in fold.case_ids())  # an excluded admission goes with its patient
        second, third = (c for c in fold.case_ids() if c[-2:] in ("02", "03"))
        assert splits[second] == splits[third]  # one patient, one side
        assert set(fold.lab_rows("test").people["case_id"]) == {c for c, s in splits.items() if s == "test"}
    assert sorted(len(f.case_ids("test")) for f in folds) == [2, 3]  # four patients dealt round-robin
    assert [f.case_ids("test") for f in skeleton_store.folds(2)] == [f.case_ids("test") for f in folds]  # stable


def test_folds_need_two_to_as_many_patients_as_have_kept_cases(skeleton_store):
    for k in (1, 5):
        with pytest.raises(ValueError, match="expected 2 to 4"):
            skeleton_store.folds(k)
    without_skeleton = CaseStore(frames())
    assert len(without_skeleton.folds(5)) == 5  # each case its own patient
    assert sorted(c for f in without_skeleton.folds(5) for c in f.case_ids("test")) == without_skeleton.case_ids()


def test_cross_validation_plays_every_case_once_per_doctor_and_seed(skeleton_store):
    rewards = cross_validate(skeleton_store, DOCTORS, folds=2, seeds=(1, 2))
    cases = skeleton_store.case_ids()
    assert rewards.height == len(DOCTORS) * 2 * len(cases)
    assert rewards.group_by("doctor", "seed").agg(pl.col("case_id").sort()).select(
        pl.col("case_id").list.join(",")).unique().item() == ",".join(cases)
    assert set(rewards["reward"].unique()) <= {0.0, 1.0}
    assert rewards.equals(cross_validate(skeleton_store, DOCTORS, folds=2, seeds=(1, 2)))  # deterministic


def test_accuracy_is_the_mean_over_cases_of_each_cases_mean_over_seeds():
    rewards = pl.DataFrame({"doctor": ["a"] * 6 + ["b"] * 2, "fold": [0, 0, 0, 0, 1, 1, 0, 1],
                            "seed": [1, 2, 1, 2, 1, 2, 1, 1],
                            "case_id": ["c1", "c1", "c2", "c2", "c3", "c3", "c1", "c3"],
                            "reward": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]},
                           schema_overrides={"fold": pl.Int32})
    table = accuracy(rewards)
    assert table["doctor"].to_list() == ["b", "a"]  # best first
    a = table.filter(doctor="a").row(0, named=True)
    assert (a["cases"], a["episodes"], a["accuracy"]) == (3, 6, 0.5)  # (0.5 + 1 + 0) / 3
    assert a["fold_accuracy"] == [0.75, 0.0]
