"""The raw-versus-normalised interface protocol (MedEvoEval Appendix D.1): the same LLM doctor plays
the test split with the normaliser off (N0) and on (N1). A scripted doctor on the loopback server
writes repairable output (a code fence, an action alias, a field alias, a trailing comma) for half
of the cases: raw, every such turn is an error turn and the episode never finalises; normalised,
it finalises with the diagnosis it meant. A second, tidy model writes clean output throughout, so
its two arms agree. The paired statistics are recomputed from the written tables. (An offline
doctor plays the same protocol through the corrupting wrapper: test_protocols_more.py.)"""

from __future__ import annotations

import json
import shutil

import numpy as np
import polars as pl
import pytest
from scipy.stats import wilcoxon
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from pipelines.episodes.llm.config import LLMConfig, RoleConfig
from pipelines.episodes.llm.loopback import FakeOpenAI, Reply, first_user, turn_of
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.protocols import protocols, run_study, study_order
from pipelines.evaluation.stats import paired_table
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow  # the session's demo warehouse

PRESET = "medevoeval"
BUDGET = 10  # the preset's action budget: a raw episode of repairable output spends all of it on errors
MODELS = ("sloppy", "tidy")
SLOPPY, TIDY = (f"N1@{m} vs N0@{m}" for m in MODELS)


def _doctor(store: CaseStore):
    """The scripted doctor: it meets each test case by its presentation, ASKs, orders the first
    catalog exam and finalises with the diagnosis of the case that presentation first belongs to;
    the sloppy model writes all three repairably for every other presentation (:func:`_messy`)."""
    cases = store.case_ids("test")
    meant = {}
    for case_id in cases:
        case = store.case(case_id)
        meant.setdefault(case.presentation, (case.manager.diagnosis_name, case.manager.acceptable_icd10[0]))
    unmet = []

    def respond(body):
        opening = first_user(body)
        found = [p for p in meant if p in opening]
        if not found:
            unmet.append(opening)
            return Reply(status=500)
        diagnosis, code = meant[found[0]]
        exam = body["messages"][0]["content"].split("Available examination catalog: ")[1].split(", ")[0]
        final = {"action": "FINALIZE", "diagnosis": [diagnosis], "icd10": code, "evidence": [found[0]],
                 "plan": ["treat the cause"], "followup": ["review in a week"]}
        if body["model"] == "sloppy" and _messy(store, found[0]):
            script = ["```json\n" + json.dumps({"action": "ASK", "question": "Since when?"}) + "\n```",
                      json.dumps({"action": "order_test", "test": exam}),
                      json.dumps({**{k: v for k, v in final.items() if k != "followup"},
                                  "follow_up": final["followup"]})[:-1] + ",}"]
        else:
            script = [json.dumps({"action": "ASK", "question": "Since when?"}),
                      json.dumps({"action": "REQUEST_TEST", "test_name": exam}), json.dumps(final)]
        return Reply(script[min(turn_of(body), len(script) - 1)])

    return respond, unmet


def _messy(store: CaseStore, presentation: str) -> bool:
    """Every other distinct presentation of the test split (sorted) gets repairable output."""
    distinct = sorted({store.case(c).presentation for c in store.case_ids("test")})
    return distinct.index(presentation) % 2 == 0


@pytest.fixture(scope="module")
def study(demo_home, tmp_path_factory):
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("interface") / "home", symlinks=True)
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    respond, unmet = _doctor(store)
    with FakeOpenAI(respond) as server:
        llm = LLMConfig({"doctor": RoleConfig("doctor", server.base_url, "sloppy", max_attempts=3, backoff_s=0.01)},
                        max_in_flight=4)
        done = run_study(warehouse, store, ["interface"], doctor="llm", preset=PRESET, llm=llm, models=MODELS)
    assert unmet == []
    messy = {c for c in store.case_ids("test") if _messy(store, store.case(c).presentation)}
    return warehouse, done, messy


def _paired(warehouse: Warehouse, done, model: str, column: str) -> tuple[np.ndarray, np.ndarray]:
    """``column`` of N1 and N0 for ``model``, paired by case (scores joined to their episodes)."""
    def arm(label):
        run_id = done.runs[f"{label}@{model}"]
        episodes = warehouse.read_partition("episodes", run_id).select("episode_id", "n_error_turns")
        frame = warehouse.read_partition("episode_scores", run_id).join(episodes, on="episode_id").sort("case_id")
        return frame.with_columns((pl.col("n_error_turns") > 0).alias("any_error_turn"))[column].to_numpy()
    return arm("N1"), arm("N0")


def test_the_interface_protocol_is_two_arms_raw_and_normalised():
    interface = protocols()["interface"]
    assert [(a.label, a.normalise, a.split, a.part) for a in interface.arms] == [("N0", False, "test", "all"),
                                                                                ("N1", True, "test", "all")]
    assert "interface" in study_order(["all"])


def test_models_name_the_llm_doctors_models(demo_home):
    warehouse = Warehouse(demo_home)  # refused before anything is written
    with pytest.raises(ValueError, match="models name the LLM doctor's models"):
        run_study(warehouse, CaseStore.from_warehouse(warehouse), ["interface"], doctor="retrieval", models=["m"])


def test_the_normaliser_removes_the_error_turns_and_the_arms_share_cases(study):
    warehouse, done, messy = study
    n = len(warehouse.read_partition("episodes", done.runs["N0@sloppy"]))
    assert 0 < len(messy) < n
    arms = {row["arm"]: row for row in done.arms.iter_rows(named=True)}
    assert set(arms) == {"N0@sloppy", "N1@sloppy", "N0@tidy", "N1@tidy"}
    assert arms["N0@sloppy"]["error_turns_per_episode"] == pytest.approx(BUDGET * len(messy) / n)
    assert arms["N0@sloppy"]["error_episode_share"] == pytest.approx(len(messy) / n)
    assert {arms[a]["error_turns_per_episode"] for a in ("N1@sloppy", "N0@tidy", "N1@tidy")} == {0.0}
    assert arms["N1@sloppy"]["mean_s"] > arms["N0@sloppy"]["mean_s"]
    assert arms["N1@sloppy"]["mean_u"] > arms["N0@sloppy"]["mean_u"]
    raw = warehouse.read_partition("episodes", done.runs["N0@sloppy"])
    assert set(raw.filter(pl.col("case_id").is_in(list(messy)))["termination"]) == {"budget_exhausted"}
    cases = {label: warehouse.read_partition("episodes", run_id)["case_id"].sort().to_list()
             for label, run_id in done.runs.items()}
    assert len({tuple(c) for c in cases.values()}) == 1  # same cases in every arm
    for label, run_id in done.runs.items():
        runs = warehouse.read_partition("runs", run_id)
        config = json.loads(runs["config"].item())
        assert config["llm"]["normalise"] is label.startswith("N1") and runs["doctor_model"].item() in label


def test_the_paired_statistics_are_recomputed_from_the_written_tables(study):
    warehouse, done, messy = study
    table = warehouse.read_partition("stat_tests", "interface")
    assert table.equals(done.stat_tests)
    assert set(table["family"]) == {"interface_outcomes", "interface_process", "interface_errors"}
    assert set(table["comparison"]) == {SLOPPY, TIDY} and table.height == 2 * 7
    rows = {(r["comparison"], r["endpoint"]): r for r in table.iter_rows(named=True)}
    for endpoint in ("score_s", "utility_u", "n_error_turns"):
        n1, n0 = _paired(warehouse, done, "sloppy", endpoint)
        row = rows[(SLOPPY, endpoint)]
        assert (row["test"], row["n"]) == ("wilcoxon", len(n1))
        assert row["effect"] == pytest.approx((n1 - n0).mean())
        assert row["p_raw"] == pytest.approx(wilcoxon(n1, n0).pvalue)
    assert rows[(SLOPPY, "score_s")]["effect"] > 0 and rows[(SLOPPY, "utility_u")]["effect"] > 0
    assert rows[(SLOPPY, "n_error_turns")]["effect"] == pytest.approx(-BUDGET * len(messy) / len(n1))
    for endpoint in ("strict", "any_error_turn"):
        n1, n0 = _paired(warehouse, done, "sloppy", endpoint)
        row = rows[(SLOPPY, endpoint)]
        assert row["test"] == "mcnemar_exact" and row["effect"] == pytest.approx(n1.mean() - n0.mean())
        assert row["p_raw"] == pytest.approx(mcnemar(paired_table(n1, n0), exact=True).pvalue)
    assert rows[(SLOPPY, "any_error_turn")]["p_raw"] == pytest.approx(2 * 0.5 ** len(messy))
    for family in set(table["family"]):  # Holm over both models' rows of a family
        tested = table.filter((pl.col("family") == family) & pl.col("p_raw").is_not_null())
        assert tested["p_holm"].to_list() == pytest.approx(multipletests(tested["p_raw"].to_list(), method="holm")[1])
    tidy = table.filter(pl.col("comparison") == TIDY)
    assert set(tidy["note"]) == {"every paired difference is zero"} and set(tidy["effect"]) == {0.0}
