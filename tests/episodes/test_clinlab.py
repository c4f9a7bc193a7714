"""ClinLab: leave-one-out training without the diagnosis, the predict policy, replace_fraction, and
its evaluation against the population median (hand-made frames: fast; the demo: slow)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr
from sklearn.ensemble import HistGradientBoostingRegressor

import schemas
from pipelines.episodes.clinlab import ClinLab, clinlab_eval
from pipelines.episodes.clinlab.evaluation import _wasserstein, held_out_items
from pipelines.episodes.clinlab.labs import NUMERIC_LAB_ROWS, CaseLabs, numeric_labs
from pipelines.episodes.clinlab.model import (
    DEMOGRAPHICS,
    _beats,
    _fewest_good_rounds,
    _fit_one,
    _informative,
    _partners,
    default_settings,
    design,
)
from pipelines.episodes.config import preset
from pipelines.episodes.lab import LaboratoryPhysician, no_prediction, replaced
from pipelines.episodes.roles import ClinicalState, LatentPatient
from pipelines.episodes.settings import EpisodeSettings
from pipelines.episodes.store import CaseStore, LabRows
from pipelines.episodes.views import ExamResult

# Small regressors, so the fast tests fit in about a second.
FAST = {"regressor": {"loss": "absolute_error", "max_iter": 30, "learning_rate": 0.1, "max_depth": 2,
                      "min_samples_leaf": 5}}
STYLE = json.dumps({"verbosity": "moderate", "anxiety": "calm", "cooperativeness": "cooperative", "recall": "fair"})
DIAGNOSES = [("Heart failure, unspecified", "I50.9", "I50", "I30-I5A", "09"),
             ("Pneumonia, unspecified organism", "J18.9", "J18", "J09-J18", "10")]
# name -> (unit, ref_low, ref_high)
LABS = {"Hemoglobin": ("g/dL", 12.0, 16.0), "Hematocrit": ("%", 36.0, 46.0), "Sodium": ("mEq/L", 135.0, 145.0),
        "Chloride": ("mEq/L", 96.0, 106.0), "Potassium": ("mEq/L", 3.5, 5.1), "NT-proBNP": ("pg/mL", 0.0, 125.0),
        "Lipase": ("IU/L", 0.0, 60.0)}


def lab_frames(n_train: int = 80, n_test: int = 20) -> dict[str, pl.DataFrame]:
    """Cases whose labs hang together (Hct ~ 3 Hgb, Cl ~ Na - 37), one pure-noise lab (Potassium),
    one set by the diagnosis alone (NT-proBNP), one too rare for a model (Lipase)."""
    rng = np.random.default_rng(0)
    cases, units, exams, profiles = [], [], [], []
    for i in range(n_train + n_test):
        cid = f"c_{i:016x}"
        name, code, category, block, chapter = DIAGNOSES[i % 2]
        cases.append({"case_id": cid, "source": "mimic_iv", "dataset": "demo", "split": "train" if i < n_train else
                      "test", "age": 20 + (i * 7) % 70, "sex": "MF"[i % 3 == 0], "presentation": "A patient.",
                      "diagnosis_name": name, "acceptable_names": [name], "primary_icd10": code,
                      "primary_icd10_category": category, "primary_icd10_block": block,
                      "primary_icd10_chapter": chapter, "icd_origin": "icd10", "secondary_icd10": [],
                      "n_units": 1, "n_exams": 0, "structured_only": False})
        units.append({"case_id": cid, "unit_id": f"u_{i:016x}", "ordinal": 0, "category": "chief_complaint",
                      "text": "tired", "negated": False, "importance": "key", "disclosed": True, "source_ref": "t"})
        profiles.append({"case_id": cid, "openness": 0.5, "conscientiousness": 0.5, "extraversion": 0.5,
                         "agreeableness": 0.5, "neuroticism": 0.5, "speech_style": STYLE})
        hgb = round(rng.normal(13, 2), 1)
        sodium = round(rng.normal(138, 4))
        values = {"Hemoglobin": hgb, "Hematocrit": round(3 * hgb + rng.normal(0, 0.8), 1), "Sodium": sodium,
                  "Chloride": round(sodium - 37 + rng.normal(0, 1.5)), "Potassium": round(rng.normal(4.2, 0.5), 1),
                  "NT-proBNP": round(float(rng.lognormal(8 if code == "I50.9" else 4, 0.3)))}
        if i < 5:
            values["Lipase"] = 40.0
        for exam, value in values.items():
            unit, low, high = LABS[exam]
            if exam == "Hemoglobin" and i % 16 == 1:  # another unit: not comparable, so never used
                unit, value, low, high = "g/L", value * 10, low * 10, high * 10
            exams.append({"case_id": cid, "exam_name": exam, "kind": "lab", "value_num": float(value),
                          "value_text": str(value), "unit": unit, "ref_low": low, "ref_high": high,
                          "abnormal": not low <= value <= high, "offset_hours": 1.0, "origin": "recorded",
                          "source_ref": "t"})
        exams.append({"case_id": cid, "exam_name": "Chest X-ray", "kind": "imaging", "value_num": None,
                      "value_text": "Clear lungs.", "unit": None, "ref_low": None, "ref_high": None, "abnormal": False,
                      "offset_hours": 1.0, "origin": "recorded", "source_ref": "t"})
    catalog = [{"exam_name": n, "kind": "lab", "aliases": [], "n_cases": 1} for n in [*LABS, "Troponin T"]]
    catalog.append({"exam_name": "Chest X-ray", "kind": "imaging", "aliases": ["CXR"], "n_cases": 1})
    return {"cases": pl.DataFrame(cases), "information_units": pl.DataFrame(units),
            "exam_results": pl.DataFrame(exams, infer_schema_length=None), "profiles": pl.DataFrame(profiles),
            "exam_catalog": pl.DataFrame(catalog, schema={"exam_name": pl.Utf8, "kind": pl.Utf8,
                                                          "aliases": pl.List(pl.Utf8), "n_cases": pl.Int32})}


@pytest.fixture(scope="module")
def frames():
    return lab_frames()


@pytest.fixture(scope="module")
def lab_store(frames):
    return CaseStore(frames)


@pytest.fixture(scope="module")
def clinlab(lab_store):
    return ClinLab.fit(lab_store, **FAST)


def state_of(case, exams=None):
    return ClinicalState(case.age, case.sex, case.patient, exams or case.exams)


def test_each_lab_model_takes_age_sex_and_other_labs_only(clinlab, frames):
    assert sorted(clinlab.models) == ["Chloride", "Hematocrit", "Hemoglobin", "NT-proBNP", "Potassium", "Sodium"]
    lab_names = set(frames["exam_results"].filter(pl.col("kind") == "lab")["exam_name"])
    for name, model in clinlab.models.items():
        assert model.feature_names[:2] == DEMOGRAPHICS
        assert name not in model.features and set(model.features) <= lab_names - {name}
        assert not set(model.feature_names) & (set(frames["cases"].columns) - {"age", "sex"})  # no diagnosis
        if model.regressor is not None:
            assert model.regressor.n_features_in_ == len(model.feature_names)


def test_the_numpy_forest_gives_exactly_what_sklearn_predicts(clinlab, lab_store):
    from pipelines.episodes.clinlab.model import design
    from pipelines.episodes.clinlab.trees import Forest

    cases = [clinlab.inputs(state_of(lab_store.case(c))) for c in lab_store.case_ids()]
    rng = np.random.default_rng(1)
    fitted = [m for m in clinlab.models.values() if m.regressor is not None]
    assert fitted
    for model in fitted:
        x = design(cases, model.features)
        x[rng.random(x.shape) < 0.3] = np.nan  # missing values follow each node's learnt side
        x = np.vstack([x, np.full((1, x.shape[1]), np.nan), x.max(axis=0, initial=0, where=~np.isnan(x)) + 1e6])
        assert np.array_equal(Forest(model.regressor).predict(x), model.regressor.predict(x))
        assert np.array_equal(model.forest.predict(x[:1]), model.regressor.predict(x[:1]))


def test_a_labs_own_value_never_reaches_its_model(clinlab, lab_store):
    case = lab_store.case(lab_store.case_ids("test")[0])
    recorded = next(r for r in case.exams.results if r.exam_name == "Hematocrit")
    absurd = tuple(r if r is not recorded else replace(r, value_num=999.0) for r in case.exams.results)
    removed = tuple(r for r in case.exams.results if r is not recorded)
    served = [clinlab("Hematocrit", state_of(case, replace(case.exams, results=results)))
              for results in (case.exams.results, absurd, removed)]
    assert served[0] == served[1] == served[2]


def test_leave_one_out_learns_from_other_labs_but_cannot_copy_the_target(clinlab, lab_store):
    items = held_out_items(lab_store, clinlab).with_columns(error=(pl.col("predicted") - pl.col("recorded")).abs())
    mae = {(name, predictor): value for name, predictor, value
           in items.group_by("exam_name", "predictor").agg(pl.col("error").mean()).rows()}
    assert mae["Hematocrit", "clinlab"] < 0.6 * mae["Hematocrit", "population_median"]  # Hct ~ 3 Hgb
    # a masked target would be copied exactly; pure noise and a diagnosis-only marker stay hard
    assert mae["Potassium", "clinlab"] > 0.8 * mae["Potassium", "population_median"]
    assert mae["NT-proBNP", "clinlab"] > 0.8 * mae["NT-proBNP", "population_median"]


def _panel(n: int = 60) -> list[CaseLabs]:
    """A panel recorded whole: "Z count" tracks "A total" (named last, so a tie by name puts it
    last); "B noise" and "C noise" tell nothing; "D sparse" tracks the total but is recorded in a
    third of the cases; "E pair" in only 6, which is too few to judge."""
    rng = np.random.default_rng(3)
    cases = []
    for i in range(n):
        total = float(rng.normal(10, 3))
        values = {"A total": total, "B noise": float(rng.normal()), "C noise": float(rng.normal()),
                  "Z count": total * 0.6 + float(rng.normal(0, 0.5))}
        if i % 3 == 0:
            values["D sparse"] = total + float(rng.normal(0, 0.5))
        if i < 6:
            values["E pair"] = total
        cases.append(CaseLabs(50, "F", values))
    return cases


def test_partners_are_the_labs_that_tell_most_not_the_first_names_of_a_panel():
    """A panel's labs are all recorded together, so ranking partners by co-recording alone picked
    them by name: the real MIMIC-IV demo modelled the absolute neutrophil count from basophils and
    bicarbonate, not from the white count, and ClinLab trailed the median with the ED module."""
    cases = _panel()
    names = sorted({n for c in cases for n in c.values})
    informative = _informative(names, cases, min_co_recorded=10)
    own = names.index("A total")
    assert _partners(names, informative[own], own, 1) == ("Z count",)
    # the sparse partner tells as much where present, but about a third of the cases only
    assert _partners(names, informative[own], own, 2) == ("Z count", "D sparse")
    assert informative[own, names.index("E pair")] == 0.0  # 6 cases together: too few
    assert informative[own, own] == pytest.approx(1.0)  # itself; _partners never offers it


def test_informative_is_the_rank_correlation_over_the_cases_recording_both_times_coverage():
    cases = _panel()
    names = sorted({n for c in cases for n in c.values})
    informative = _informative(names, cases, min_co_recorded=10)
    a, d = names.index("A total"), names.index("D sparse")
    both = [c for c in cases if "D sparse" in c.values]
    rho = spearmanr([c.values["A total"] for c in both], [c.values["D sparse"] for c in both]).statistic
    # ranks are taken over each lab's own cases, so over the co-recorded ones they agree up to ties
    assert informative[a, d] == pytest.approx(abs(rho) * len(both) / len(cases), abs=0.02)
    assert informative[d, a] == pytest.approx(abs(rho), abs=0.02)  # every case with D records A


def test_a_heavy_tailed_lab_is_predicted_at_its_conditional_median():
    """A skewed lab (modelled in log space) is fitted to its conditional median: about half the
    values lie above the prediction. Weighted by 1 / |value| as well, the fit sat far below it
    (NT-proBNP's pooled MAE behind the population median's on a generated 5,000-admission build)."""
    rng = np.random.default_rng(1)
    marker = rng.uniform(0, 2, 600)
    cases = [CaseLabs(50, "F", {"Marker": float(m), "Peptide": float(np.exp(5 + m + rng.normal(0, 0.8)))})
             for m in marker]
    model = _fit_one("Peptide", ("Marker",), cases, default_settings() | FAST)
    assert model.log and model.regressor is not None
    predicted = np.exp(model.forest.predict(design(cases, model.features)))
    above = np.mean([c.values["Peptide"] > p for c, p in zip(cases, predicted)])
    assert 0.4 < above < 0.6


def test_a_log_space_lab_is_fitted_without_weights(monkeypatch):
    """Weights of 1 would send sklearn down its weighted path (a weighted percentile in Python per
    leaf and round) for the same model: a log-space lab's fits get none, a weighted lab's get its."""
    given = []
    fit = HistGradientBoostingRegressor.fit
    monkeypatch.setattr(HistGradientBoostingRegressor, "fit",
                        lambda self, x, y, sample_weight=None: given.append(sample_weight) or fit(self, x, y, sample_weight))
    rng = np.random.default_rng(1)
    skewed = [CaseLabs(50, "F", {"Marker": float(m), "Peptide": float(np.exp(5 + m + rng.normal(0, 0.8)))})
              for m in rng.uniform(0, 2, 300)]
    assert _fit_one("Peptide", ("Marker",), skewed, default_settings() | FAST).log
    assert given and all(w is None for w in given)
    given.clear()
    assert not _fit_one("Count", ("Marker",), _count_lab(0.3), default_settings() | FAST).log
    assert given and all(w is not None for w in given)


def _count_lab(marker_noise: float) -> list[CaseLabs]:
    """A platelet-like count (20 to 600, not skewed) and a marker that tracks it up to ``marker_noise``."""
    rng = np.random.default_rng(2)
    level = rng.uniform(0, 1, 300)
    return [CaseLabs(50, "F", {"Marker": float(v + rng.normal(0, marker_noise)), "Count": float(round(20 + 580 * v))})
            for v in level]


def test_a_weighted_fit_that_costs_absolute_error_is_served_the_median():
    """Weighted by 1 / |value|, a wide lab's fit sits below its median. With a loose marker that fit
    still beats the weighted median in CV, but errs more than the median in the lab's unit (pooled MAE
    behind the population median's on the real MIMIC-IV demo, from platelet counts): it gets no
    model. A marker that tracks the count closely does earn one."""
    settings = default_settings() | FAST
    assert _fit_one("Count", ("Marker",), _count_lab(0.7), settings).regressor is None
    informed = _fit_one("Count", ("Marker",), _count_lab(0.3), settings)
    assert not informed.log and informed.regressor is not None


def test_a_model_must_beat_the_median_beyond_the_noise_in_absolute_and_relative_error():
    y = np.array([1.0, 10.0, 100.0, 0.0])
    assert _beats(y, np.full(4, 10.0), y)
    # less absolute error but more relative error (the small values missed): not better
    assert not _beats(np.array([5.0, 10.0, 100.0, 0.0]), np.array([1.0, 10.0, 60.0, 0.0]), y)
    # less relative error but more absolute error (the large value missed): not better
    assert not _beats(np.array([1.0, 10.0, 40.0, 0.0]), np.array([3.0, 10.0, 90.0, 0.0]), y)
    # a zero target counts for the absolute error only
    assert not _beats(np.array([1.0, 10.0, 100.0, 5.0]), y, y)
    # ahead on average in both, by less than a standard error of the paired gain (+2, -1, +2, -1): noise
    y = np.array([10.0, 20.0, 30.0, 40.0])
    assert not _beats(np.array([23.0, 26.0, 27.0, 24.0]), np.full(4, 25.0), y)
    assert _beats(np.array([12.0, 21.0, 29.0, 38.0]), np.full(4, 25.0), y)


def test_the_fewest_rounds_within_one_standard_error_of_the_least_error_are_chosen():
    """Rounds are rows, training rows columns. Round 3 errs least (0.55); round 2 (0.56) is within
    one paired standard error of it (0.017), round 1 (0.60) is not (0.029): 2 rounds, not 3. Picked
    as the least of many noisy CV errors, the count overfitted glucose on the real MIMIC-IV demo's
    33 training cases with the ED module (pooled MAE behind the population median's)."""
    errors = np.array([[1.0, 1.0, 1.0, 1.0], [0.6, 0.7, 0.5, 0.6], [0.55, 0.62, 0.5, 0.57], [0.5, 0.6, 0.5, 0.6]])
    assert _fewest_good_rounds(errors) == 2
    assert _fewest_good_rounds(errors[[0, 3]]) == 1


def test_no_round_is_chosen_unless_the_least_error_beats_the_start_by_a_standard_error():
    # 0.95 against 1.0, but the paired gain (0.5, -0.4, 0.5, -0.4) is noise: the median
    assert _fewest_good_rounds(np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 1.4, 0.5, 1.4]])) == 0
    assert _fewest_good_rounds(np.array([[1.0, 1.0, 1.0, 1.0], [1.1, 1.0, 1.2, 1.0]])) == 0  # worse


def test_the_overall_wasserstein_weighs_the_labs_distances_and_does_not_pool_their_values():
    """Lab A predicted at its low value, lab B at its high one: pooled, the predictions spread exactly
    like the recorded values (distance 0), lab by lab each is 1 away. Lab C is predicted exactly;
    lab D's recorded values do not vary (no standardised values) and is left out."""
    items = pl.DataFrame({"exam_name": ["A", "A", "B", "B", "C", "C", "C", "C", "D"],
                          "z_recorded": [-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, None],
                          "z_predicted": [-1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 1.0, None]})
    assert _wasserstein(items) == pytest.approx((2 * 1.0 + 2 * 1.0 + 4 * 0.0) / 8)
    assert _wasserstein(items.filter(exam_name="A")) == pytest.approx(1.0)
    assert _wasserstein(items.filter(exam_name="D")) is None


def test_units_reference_ranges_and_rare_labs(clinlab, lab_store):
    hgb = clinlab.stats["Hemoglobin"]
    assert (hgb.unit, hgb.ref_low, hgb.ref_high, hgb.decimals) == ("g/dL", 12.0, 16.0, 1)
    assert hgb.n == 80 - 5  # the values in g/L do not count
    assert "Lipase" not in clinlab.models and "Chest X-ray" not in clinlab.stats
    items = held_out_items(lab_store, clinlab)
    assert items.filter(exam_name="Hemoglobin")["recorded"].max() < 40  # no test value in g/L is scored


def test_clinlab_learns_and_is_scored_on_every_candidate_admission_of_its_split(frames):
    """Cases the curation excluded keep their recorded results: ClinLab trains on the train split's
    skeleton candidates, kept or not, and is scored on the test split's; no test value is learnt."""
    kept = frames["cases"].filter(pl.col("case_id").str.slice(-1).is_in(list("02468ace")))  # half of each split
    store = CaseStore(frames | {"cases": kept, "case_skeleton": frames["cases"].select("case_id", "split", "age",
                                                                                          "sex")})
    kept_only = CaseStore(frames | {"cases": kept})
    train, test = store.lab_rows("train"), store.lab_rows("test")
    assert (train.people.height, test.people.height) == (80, 20)
    assert kept_only.lab_rows("train").people["case_id"].to_list() == kept.filter(split="train")["case_id"].to_list()
    sodium = _first_by_case(train)
    assert ClinLab.fit(store, **FAST).stats["Sodium"].median == np.median([f["Sodium"].value_num for f in sodium.values()])
    assert ClinLab.fit(kept_only, **FAST).stats["Sodium"].n == 40
    items = held_out_items(store, ClinLab.fit(store, **FAST))
    assert items.filter(exam_name="Sodium", predictor="clinlab").height == 20


def test_the_rows_filter_of_numeric_labs_keeps_what_numeric_labs_keeps(frames):
    """ClinLab's admissions hold only their numeric labs (NUMERIC_LAB_ROWS, on the rows), exactly
    what numeric_labs keeps of a view's first results: not a text lab, a vital or an image."""
    cid = frames["cases"]["case_id"]
    more = pl.DataFrame([
        {"case_id": cid[0], "exam_name": "Urine protein", "kind": "lab", "value_num": None, "value_text": "NEG"},
        {"case_id": cid[1], "exam_name": "Heart rate", "kind": "vital", "value_num": 92.0, "value_text": "92"},
        {"case_id": cid[2], "exam_name": "Troponin T", "kind": "lab", "value_num": None, "value_text": "<0.01"},
        {"case_id": cid[2], "exam_name": "Troponin T", "kind": "lab", "value_num": 0.3, "value_text": "0.3"},
    ]).with_columns(offset_hours=pl.Series([0.5, 0.5, 0.5, 2.0]))  # the text troponin comes first
    exams = pl.concat([frames["exam_results"], more], how="diagonal_relaxed")
    store = CaseStore(frames | {"exam_results": exams})
    for split in ("train", "test"):
        everything = _first_by_case(store.lab_rows(split))
        assert any(set(first) != set(numeric_labs(first)) for first in everything.values())
        chosen = _first_by_case(store.lab_rows(split, NUMERIC_LAB_ROWS))
        assert chosen == {case_id: numeric_labs(first) for case_id, first in everything.items()}


def _first_by_case(rows: LabRows) -> dict[str, dict[str, ExamResult]]:
    """Each admission of ``rows`` with its first results as :class:`ExamResult`, by exam name."""
    first: dict[str, dict[str, ExamResult]] = {case_id: {} for case_id in rows.people["case_id"]}
    for case_id, *result in rows.results.iter_rows():
        first[case_id][result[0]] = ExamResult(*result)
    return first


def test_fit_is_deterministic(lab_store, clinlab):
    again = ClinLab.fit(lab_store, **FAST)
    assert {n: m.features for n, m in again.models.items()} == {n: m.features for n, m in clinlab.models.items()}
    assert held_out_items(lab_store, again).equals(held_out_items(lab_store, clinlab))


def test_a_lab_recorded_in_more_cases_than_the_cap_is_fitted_on_a_seeded_sample(lab_store, monkeypatch):
    """Past ``max_train_rows`` a lab's model sees a seeded sample of its training cases, in their
    order; its unit, range and median still come from every case."""
    from pipelines.episodes.clinlab import model

    seen: dict[str, list[CaseLabs]] = {}
    fit_one = model._fit_one

    def recorded(name, features, rows, settings):
        seen[name] = rows
        return fit_one(name, features, rows, settings)

    monkeypatch.setattr(model, "_fit_one", recorded)
    capped = ClinLab.fit(lab_store, max_train_rows=40, **FAST)
    train = lab_store.lab_rows("train")
    everyone = [(age, sex, _first_by_case(train)[case_id]) for case_id, age, sex in train.people.iter_rows()]
    for name, rows in seen.items():
        inputs = (CaseLabs.of(age, sex, numeric_labs(first), capped.stats) for age, sex, first in everyone)
        recorded = [c for c in inputs if name in c.values]
        assert len(rows) == min(40, len(recorded)) and capped.stats[name].n == len(recorded)
        order = [recorded.index(r) for r in rows]
        assert order == sorted(order)
    assert len(seen["Sodium"]) == 40 and capped.stats["Sodium"].n == 80
    first = dict(seen)
    seen.clear()
    ClinLab.fit(lab_store, max_train_rows=40, **FAST)
    assert seen == first
    with pytest.raises(ValueError, match="max_train_rows must be at least min_train_rows"):
        ClinLab.fit(lab_store, max_train_rows=10, **FAST)


def test_the_models_are_the_same_fitted_in_two_worker_processes(lab_store, clinlab):
    two = ClinLab.fit(lab_store, workers=2, **FAST)
    assert list(two.models) == list(clinlab.models)
    assert held_out_items(lab_store, two).equals(held_out_items(lab_store, clinlab))


def test_predict_policy_serves_a_flagged_prediction_where_nothing_is_recorded(clinlab, lab_store):
    case = lab_store.case(lab_store.case_ids("test")[1])
    without_sodium = tuple(r for r in case.exams.results if r.exam_name != "Sodium")
    exams = replace(case.exams, results=without_sodium)
    latent = LatentPatient(replace(case, exams=exams))
    physician = LaboratoryPhysician(exams, preset("clinverse"), latent, clinlab)
    (item,) = physician.lookup("sodium").items
    assert (item.match_type, item.returned, item.result.origin) == ("predicted", True, "predicted")
    assert item.result.unit == "mEq/L" and item.result.value_num == round(item.result.value_num)
    assert item.result.abnormal == (not 135 <= item.result.value_num <= 145)
    assert "Sodium:" in item.text and "mEq/L" in item.text
    assert physician.lookup("Troponin T").items[0].match_type == "not_in_case"  # no model: no prediction
    assert physician.lookup("Hematocrit").items[0].match_type == "exact"  # recorded: looked up
    null = LaboratoryPhysician(exams, preset("clinverse", unrecorded="null"), latent, clinlab)
    assert null.lookup("sodium").items[0].match_type == "not_in_case"


def test_replace_fraction_picks_items_per_seed():
    keys = [(f"c_{i:016x}", exam) for i in range(300) for exam in LABS]
    picked = {seed: {k for k in keys if replaced(seed, *k, 0.1)} for seed in (7, 8)}
    assert picked[7] == {k for k in keys if replaced(7, *k, 0.1)}  # the same seed, the same items
    assert picked[7] != picked[8]
    assert 0.07 < len(picked[7]) / len(keys) < 0.13
    assert picked[7] <= {k for k in keys if replaced(7, *k, 0.2)}
    assert not any(replaced(7, *k, 0.0) for k in keys)


def test_replace_fraction_serves_recorded_labs_as_masked_predictions(clinlab, lab_store):
    seen = []

    def spy(exam, state):
        seen.append((exam, {r.exam_name for r in state.exams.results}))
        return clinlab(exam, state)

    def served(seed):
        out = {}
        for case_id in lab_store.case_ids("test"):
            case = lab_store.case(case_id)
            physician = LaboratoryPhysician(case.exams, preset("clinverse", replace_fraction=0.2),
                                            LatentPatient(case), spy, seed)
            out |= {(case_id, i.test_name): i for name in clinlab.models for i in physician.lookup(name).items}
        return out

    first, again, other = served(7), served(7), served(8)
    predicted = {k for k, i in first.items() if i.match_type == "predicted"}
    assert predicted == {k for k, i in again.items() if i.match_type == "predicted"}
    assert predicted != {k for k, i in other.items() if i.match_type == "predicted"}
    assert 0 < len(predicted) < len(first) / 2
    assert predicted == {k for k in first if replaced(7, *k, 0.2)}
    assert all(first[k].result.origin == "predicted" for k in predicted)
    assert all(first[k].result.origin == "recorded" for k in set(first) - predicted)
    assert all(exam not in names for exam, names in seen)  # leave-one-out: the value it replaces is gone
    case = lab_store.case(lab_store.case_ids("test")[0])
    physician = LaboratoryPhysician(case.exams, preset("clinverse", replace_fraction=0.99), LatentPatient(case), spy)
    assert physician.lookup("CXR").items[0].match_type == "exact"  # only numeric lab values are replaced


def test_episode_settings_take_the_predictor_and_refuse_replacement_without_one(clinlab, lab_store):
    with pytest.raises(ValueError, match="replace_fraction needs a trained predictor"):
        EpisodeSettings(lab_store, "clinverse", predictor=no_prediction, replace_fraction=0.1)
    # Unset, the predictor is ClinLab where the preset predicts, and nothing where it does not.
    assert isinstance(EpisodeSettings(lab_store, "clinverse").predictor, ClinLab)
    assert EpisodeSettings(lab_store, "medevoeval").predictor is no_prediction
    with pytest.raises(ValueError, match="replace_fraction must be in"):
        preset("clinverse", replace_fraction=1.5)
    settings = EpisodeSettings(lab_store, "clinverse", predictor=clinlab, replace_fraction=0.1)
    assert settings.config().replace_fraction == 0.1 and preset("medevoeval").replace_fraction == 0.0


def test_eval_frame_conforms_to_the_schema(frames, clinlab):
    frame = clinlab_eval(frames, clinlab)
    schemas.validate("clinlab_eval", frame)
    assert frame.columns == list(schemas.get("clinlab_eval").columns)
    by_predictor = {p: dict(zip(g["exam_name"], g["n"])) for (p,), g in frame.group_by("predictor")}
    assert by_predictor["clinlab"] == by_predictor["population_median"]  # the same items for both
    assert by_predictor["clinlab"]["ALL"] == sum(n for name, n in by_predictor["clinlab"].items() if name != "ALL")
    assert set(by_predictor["clinlab"]) == {"ALL", *clinlab.models}


@pytest.mark.slow
def test_clinlab_beats_the_population_median_on_every_overall_metric_on_the_demo(demo_home):
    frame = clinlab_eval(CaseStore.from_home(demo_home))
    schemas.validate("clinlab_eval", frame)
    overall = {row["predictor"]: row for row in frame.filter(exam_name="ALL").iter_rows(named=True)}
    ours, median = overall["clinlab"], overall["population_median"]
    assert ours["n"] == median["n"] > 100
    for metric in ("mape", "median_mape", "mae", "norm_ref_err", "wasserstein"):
        assert ours[metric] < median[metric], (metric, ours, median)
    assert ours["anomaly_recall"] > median["anomaly_recall"], (ours, median)


def test_a_lab_served_its_median_scores_alike_for_both_predictors(clinlab, lab_store):
    """The baseline predicts the median at the lab's recorded precision, as ClinLab serves it: an
    even count of one-decimal values has a median such as 4.25, which ClinLab reports as 4.2."""
    stats = replace(clinlab.stats["Potassium"], median=4.25)
    served = ClinLab(clinlab.stats | {"Potassium": stats},
                     clinlab.models | {"Potassium": replace(clinlab.models["Potassium"], regressor=None, forest=None)})
    items = held_out_items(lab_store, served).filter(exam_name="Potassium")
    by_predictor = {p: g["predicted"].to_list() for (p,), g in items.group_by("predictor")}
    assert by_predictor["clinlab"] == by_predictor["population_median"] == [4.2] * 20


def test_lab_stats_count_units_ranges_and_precision_from_the_rows():
    """One lab: its unit is the most common unit key ("mg/dL" and "MG/DL " are one), a tie of
    spellings or of ranges goes to the smallest; the median, precision and count are its values' in
    that unit; another unit's values are missing for case_labs."""
    from pipelines.episodes.clinlab.labs import case_labs, in_unit, lab_stats

    rows = pl.DataFrame({
        "case_id": ["a", "b", "c", "d", "e", "f", "g"],
        "exam_name": ["Urea"] * 7,
        "kind": ["lab"] * 7,
        "value_num": [10.0, 12.5, 30.0, 14.25, 5.0, 6.0, 7.0],
        "value_text": None, "unit": ["mg/dL", "MG/DL ", "mg/dL", "MG/DL ", "mmol/L", "mmol/L", "mmol/L"],
        "ref_low": [None, 3.0, None, None, 2.0, 2.0, 2.0], "ref_high": [5.0, 5.0, None, None, 8.0, 8.0, 8.0],
        "abnormal": [True] * 7, "origin": ["recorded"] * 7,
    }, schema_overrides={"value_text": pl.Utf8})
    stats = lab_stats(rows, max_decimals=6)["Urea"]
    assert (stats.unit, stats.ref_low, stats.ref_high) == ("MG/DL ", 3.0, 5.0)
    assert (stats.median, stats.decimals, stats.n) == (13.375, 2, 4)
    unitless = rows.head(2).with_columns(exam_name=pl.lit("Ratio"), unit=pl.lit(None, pl.Utf8))  # no unit: one key
    assert (lab_stats(unitless, 6)["Ratio"].unit, lab_stats(unitless, 6)["Ratio"].n) == (None, 2)
    people = pl.DataFrame({"case_id": ["a", "e", "z"], "age": [40, 50, 60], "sex": ["F", "M", "F"]})
    assert case_labs(people, in_unit(rows, {"Urea": stats})) == [
        CaseLabs(40, "F", {"Urea": 10.0}), CaseLabs(50, "M", {}), CaseLabs(60, "F", {})]
