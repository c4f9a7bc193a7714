"""The update, static-versus-dynamic, interface (offline) and ClinLab protocols
(pipelines/evaluation/protocols.py, update.py; pipelines/episodes/corrupt.py, shift.py, vignette.py):
BWT and the window views on hand-made frames, the corrupting wrapper's seeded share and its path
through the normaliser on a scripted doctor, the shift's phrase table, the new episode settings,
and each protocol played on a copy of the session's demo warehouse with a few cases and three
stages, its statistics recomputed from the written tables."""

from __future__ import annotations

import json
import shutil

import numpy as np
import polars as pl
import pytest
from scipy.stats import wilcoxon
from statsmodels.stats.contingency_tables import mcnemar

from assets.study import PROTOCOLS
from pipelines.episodes import actions
from pipelines.episodes.actions import Ask, CallMdt, Finalize, ProtocolError, RequestTest, to_json
from pipelines.episodes.config import preset
from pipelines.episodes.corrupt import CorruptedDoctor, corruptions
from pipelines.episodes.doctors import Opening
from pipelines.episodes.lab import render
from pipelines.episodes.llm.normalise import TestNames, normalise
from pipelines.episodes.shift import Shift, shifts
from pipelines.episodes.store import CaseStore
from pipelines.evaluation.protocols import protocols, run_study, study_order
from pipelines.evaluation.stats import paired_table
from pipelines.evaluation.update import bwt, check_windows, window_of, with_views
from pipelines.warehouse import Warehouse

PRESET = "medevoeval"
STAGES = 3
WINDOWS = {"pre": (0.0, 0.4), "update": (0.4, 0.6), "post": (0.6, 1.0)}
TEST = "Troponin T"
CLEAN = [Ask(("Any fever?",)), RequestTest((TEST,)), CallMdt("Which diagnosis fits best?"),
         Finalize("Sepsis, unspecified organism", "A41.9", ("Fever",), ("Treat the cause",), ("Review",))]


# --------------------------------------------------------------------------- BWT and windows


def test_windows_split_ten_stages_four_two_four_and_three_one_each():
    assert [window_of(s, 10, WINDOWS) for s in range(10)] == ["pre"] * 4 + ["update"] * 2 + ["post"] * 4
    assert [window_of(s, 3, WINDOWS) for s in range(3)] == ["pre", "update", "post"]
    with pytest.raises(ValueError, match="update without a stage"):
        check_windows(WINDOWS, 2)


def test_bwt_averages_stage_means_of_the_earlier_stages():
    # G1 (online) and G1K (final snapshot) on cases a, b (stage 0), c (stage 1) and d (stage 2, the last)
    frame = pl.DataFrame({"condition": ["G1"] * 4 + ["G1K"] * 4, "case_id": list("abcd") * 2,
                          "stage": [0, 0, 1, 2] * 2, "score_s": [0.2, 0.4, 0.6, 0.5, 0.3, 0.7, 0.5, 0.9]})
    value, stages = bwt(frame, "score_s", "G1K", "G1")
    # A_{K,0} - A_{0,0} = 0.5 - 0.3 = 0.2, A_{K,1} - A_{1,1} = 0.5 - 0.6 = -0.1; the last stage is left out
    assert stages == 2 and value == pytest.approx((0.2 - 0.1) / 2)
    # the record-level mean (Table 24's effect) weighs the two-case stage twice: (0.1 + 0.3 - 0.1) / 3
    assert value != pytest.approx((0.1 + 0.3 - 0.1) / 3)
    assert np.isnan(bwt(frame.filter(pl.col("stage") == 2), "score_s", "G1K", "G1")[0])


def test_every_episode_gets_its_window_view_and_bwt_arms_their_earlier_view():
    episodes = pl.DataFrame({"episode_id": [f"e{i}" for i in range(6)], "run_id": ["r0"] * 3 + ["r1"] * 3,
                             "condition": ["G0"] * 3 + ["G1"] * 3, "doctor_model": [None] * 3 + ["m"] * 3,
                             "stage": [0, 1, 2] * 2, "arm": ["G0"] * 3 + ["G1@m"] * 3})
    viewed = with_views(episodes, "arm", WINDOWS, STAGES, earlier=("G1",))
    by_episode = viewed.group_by("episode_id").agg(pl.col("arm").sort()).sort("episode_id")["arm"].to_list()
    assert by_episode == [["G0", "G0/pre"], ["G0", "G0/update"], ["G0", "G0/post"],
                          ["G1/earlier@m", "G1/pre@m", "G1@m"], ["G1/earlier@m", "G1/update@m", "G1@m"],
                          ["G1/post@m", "G1@m"]]


# ------------------------------------------------------------------------------ corruption


def _opening() -> Opening:
    return Opening("opening", "A 50-year-old man.", (TEST,), preset(PRESET))


class _Scripted:
    """An inner doctor that writes the four clean actions in turn."""

    privileged = False

    def begin(self, opening: Opening) -> None:
        self.turn = 0

    def act(self, observation: str) -> str:
        self.turn += 1
        return to_json(CLEAN[(self.turn - 1) % len(CLEAN)])


def _played(share: float, normalise_outputs: bool, seed: int, turns: int = 40) -> list[str]:
    doctor = CorruptedDoctor(_Scripted(), share, normalise_outputs, None, seed)
    doctor.begin(_opening())
    return [doctor.act("") for _ in range(turns)]


def _parsed(text: str):
    try:
        return actions.parse(text)
    except ProtocolError:
        return None


def test_a_seeded_share_of_turns_is_corrupted_the_same_way_for_the_same_seed():
    table = corruptions()
    fates = [table.fate(seed, turn, 0.3)[0] for seed in range(200) for turn in range(1, 21)]
    corrupted = [f for f in fates if f is not None]
    assert len(corrupted) / len(fates) == pytest.approx(0.3, abs=0.03)
    assert corrupted.count("unrepairable") / len(corrupted) == pytest.approx(table.beyond_repair, abs=0.04)
    assert _played(0.3, False, seed=5) == _played(0.3, False, seed=5) != _played(0.3, False, seed=6)
    assert _played(0.0, False, seed=5) == [to_json(CLEAN[t % 4]) for t in range(40)]


def test_raw_outputs_fail_where_corrupted_and_normalised_only_where_beyond_repair():
    seed, share = 3, 0.5
    fates = [corruptions().fate(seed, turn, share)[0] for turn in range(1, 41)]
    raw = [_parsed(t) for t in _played(share, False, seed)]
    normalised = [_parsed(t) for t in _played(share, True, seed)]
    for turn, (fate, r, n) in enumerate(zip(fates, raw, normalised)):
        clean = CLEAN[turn % 4]
        assert (n == clean) if fate != "unrepairable" else n is None, (turn, fate)
        assert (r == clean) if fate is None else r != clean, (turn, fate)
    assert sum(r is None for r in raw) > sum(n is None for n in normalised) == fates.count("unrepairable") > 0


def test_every_repairable_corruption_is_undone_by_the_normaliser_and_no_other():
    tests = TestNames((TEST,))
    for action in CLEAN:
        body = json.loads(to_json(action))
        for corruption in corruptions().repairable:
            text = corruption.write(body)
            if text is not None:
                assert _parsed(normalise(text, tests).text) == action, corruption.kind
                assert _parsed(text) != action, corruption.kind
        for corruption in corruptions().unrepairable:
            repaired = normalise(corruption.write(body), tests)
            assert repaired.text is None or _parsed(repaired.text) is None, corruption.kind
    kinds = {c.kind for c in corruptions().repairable}
    assert {"fence", "action_alias", "field_alias", "test_name_case", "trailing_comma"} <= kinds


# -------------------------------------------------------------------- shift and settings


def test_the_wording_shift_rewords_whole_phrases_longest_first_keeping_a_capital():
    shift = Shift("t", "", {"chest pain": "chest tightness", "pain": "ache", "atrial fibrillation": "a flutter"})
    assert shift.reword("Chest pain and pain; atrial fibrillation, painful, chest-pain") == \
        "Chest tightness and ache; a flutter, painful, chest-pain"
    assert shifts()["wording"].reword("A 56-year-old woman presenting with chest pain.") == \
        "A 56-year-old woman presenting with chest tightness."


def test_the_condition_settings_are_checked():
    assert preset(PRESET, vignette=True, action_budget=1).vignette
    with pytest.raises(ValueError, match="one action, its FINALIZE"):
        preset(PRESET, vignette=True)
    with pytest.raises(ValueError, match="shift_cases are played under a shift"):
        preset(PRESET, shift_cases=["c1"])
    with pytest.raises(ValueError, match="shift must be none or one of"):
        preset(PRESET, shift="accent")
    with pytest.raises(ValueError, match="corrupt_share must be in"):
        preset(PRESET, corrupt_share=1.5)
    assert preset(PRESET, shift="wording", shift_cases=["c1"]).shift_cases == ("c1",)


def test_the_new_protocols_are_data_and_the_study_asset_partitions_them():
    found = protocols()
    assert [a.label for a in found["update"].arms] == ["G0", "G1", "G1K"] and found["update"].shift == "wording"
    assert found["update"].arms[2].memory == "frozen" and found["update"].arms[2].source == "G1"
    assert [(a.label, dict(a.settings)) for a in found["static"].arms] == [
        ("S0", {"vignette": True, "action_budget": 1}), ("D0", {})]
    assert [(a.label, a.settings["replace_fraction"], a.settings["unrecorded"]) for a in found["clinlab"].arms] == [
        ("L0", 0.0, "predict"), ("L10", 0.1, "predict"), ("L20", 0.2, "predict"), ("Lnull", 0.0, "null")]
    assert found["clinlab"].preset == "clinverse" and found["interface"].corrupt_share == 0.3
    assert study_order(["all"]) == ["stream", "heldout", "update", "mdt", "static", "interface", "clinlab"]
    assert set(PROTOCOLS.get_partition_keys()) == set(found)


# ------------------------------------------------------------------------- on the demo

CASES = {"update": 9, "static": 6, "interface": 6, "clinlab": 6}


@pytest.fixture(scope="module")
def studies(demo_home, tmp_path_factory):
    home = shutil.copytree(demo_home, tmp_path_factory.mktemp("more") / "home", symlinks=True)
    warehouse = Warehouse(home)
    store = CaseStore.from_warehouse(warehouse)
    done = {name: run_study(warehouse, store, [name], preset=PRESET, stages=STAGES, cases=n)
            for name, n in CASES.items()}
    return warehouse, store, done


def _frame(warehouse: Warehouse, run_id: str) -> pl.DataFrame:
    """A run's scores with its episodes' error turns, by case."""
    episodes = warehouse.read_partition("episodes", run_id).select("episode_id", "n_error_turns", "condition")
    return warehouse.read_partition("episode_scores", run_id).join(episodes, on="episode_id").sort("case_id")


def _episode_config(warehouse: Warehouse, run_id: str) -> dict:
    return json.loads(warehouse.read_partition("runs", run_id)["config"].item())["episode"]


def _rows(warehouse: Warehouse, protocol: str) -> dict[tuple[str, str], dict]:
    return {(r["comparison"], r["endpoint"]): r for r in warehouse.read_partition("stat_tests", protocol).iter_rows(
        named=True)}


@pytest.mark.slow
def test_every_arm_plays_the_same_cases_under_its_label(studies):
    warehouse, _, done = studies
    for name, study in done.items():
        cases = set()
        for label, run_id in study.runs.items():
            episodes = warehouse.read_partition("episodes", run_id)
            assert set(episodes["condition"]) == {label} and run_id.endswith(f"-g{STAGES}-n{CASES[name]}")
            cases.add(tuple(episodes["case_id"].sort()))
        assert len(cases) == 1 and len(next(iter(cases))) == CASES[name]


@pytest.mark.slow
def test_the_update_stream_shifts_its_middle_stage_and_reports_windows_and_bwt(studies):
    warehouse, store, done = studies
    study = done["update"]
    stream = json.loads(warehouse.read_partition("runs", study.runs["G0"])["config"].item())["study"]["stream"]
    shifted = stream[3:6]  # nine cases in three stages: the middle one is the update window
    for run_id in study.runs.values():
        config = _episode_config(warehouse, run_id)
        assert (config["shift"], config["shift_cases"]) == ("wording", shifted)
    events = warehouse.read_partition("episode_events", study.runs["G0"])
    episodes = warehouse.read_partition("episodes", study.runs["G0"]).select("episode_id", "case_id")
    starts = dict(events.filter(pl.col("action") == "START").join(episodes, on="episode_id")
                  .select("case_id", "content").iter_rows())
    wording = shifts()["wording"]
    for case_id in stream:
        presentation = store.case(case_id).presentation
        expected = wording.reword(presentation) if case_id in shifted else presentation
        assert starts[case_id].startswith(expected + "\n")
    assert any(wording.reword(store.case(c).presentation) != store.case(c).presentation for c in shifted)

    rows = _rows(warehouse, "update")
    for window in ("pre", "update", "post"):
        assert rows[(f"G1/{window} vs G0/{window}", "score_s")]["n"] == 3
    g1, final = _frame(warehouse, study.runs["G1"]), _frame(warehouse, study.runs["G1K"])
    stage = {c: i // 3 for i, c in enumerate(stream)}
    for endpoint in ("score_s", "utility_u"):
        pairs = [(f, o) for c, f, o in zip(final["case_id"], final[endpoint], g1[endpoint]) if stage[c] < 2]
        by_stage = [np.mean([f - o for c, f, o in zip(final["case_id"], final[endpoint], g1[endpoint])
                             if stage[c] == j]) for j in (0, 1)]
        reported = study.bwt.filter(pl.col("endpoint") == endpoint).row(0, named=True)
        assert reported["comparison"] == "G1K vs G1" and reported["earlier_stages"] == 2
        assert reported["bwt"] == pytest.approx(np.mean(by_stage))
        row = rows[("G1K/earlier vs G1/earlier", endpoint)]
        first, second = (np.array(side) for side in zip(*pairs))
        assert row["n"] == 6 and row["effect"] == pytest.approx(reported["bwt"])  # equal stages: record mean = BWT
        if np.any(first != second):
            assert row["p_raw"] == pytest.approx(wilcoxon(first, second).pvalue)
        else:
            assert row["note"] == "every paired difference is zero"
    assert {"update_g0_trends", "update_g1_trends", "update", "update_windows", "update_bwt"} == set(
        warehouse.read_partition("stat_tests", "update")["family"])
    again = run_study(warehouse, store, ["update"], preset=PRESET, stages=STAGES, cases=CASES["update"])
    assert again.runs == study.runs and again.stat_tests.equals(study.stat_tests)  # resumed under the same shift


@pytest.mark.slow
def test_the_static_arm_finalises_once_from_the_whole_case(studies):
    warehouse, store, done = studies
    study = done["static"]
    static, dynamic = (warehouse.read_partition("episodes", study.runs[label]) for label in ("S0", "D0"))
    assert set(static["turns"]) == {1} and set(static["termination"]) == {"finalized"}
    assert (dynamic["turns"] > 1).all()
    events = warehouse.read_partition("episode_events", study.runs["S0"])
    assert events.filter(pl.col("actor") == "doctor")["action"].to_list() == ["FINALIZE"] * static.height
    start = events.filter(pl.col("action") == "START").join(static.select("episode_id", "case_id"),
                                                           on="episode_id").row(0, named=True)
    case = store.case(start["case_id"])
    assert all(render(r) in start["content"] for r in case.exams.results)
    assert all(u.text in start["content"] for u in case.patient.hidden)
    assert _episode_config(warehouse, study.runs["S0"])["vignette"] is True
    scores = _frame(warehouse, study.runs["S0"])
    assert scores["full_information"].all() and (scores["icr"] == 1.0).all()
    s0, d0 = scores, _frame(warehouse, study.runs["D0"])
    row = _rows(warehouse, "static")[("S0 vs D0", "score_s")]
    assert row["effect"] == pytest.approx((s0["score_s"] - d0["score_s"]).mean())
    assert row["p_raw"] == pytest.approx(wilcoxon(s0["score_s"], d0["score_s"]).pvalue)


@pytest.mark.slow
def test_an_offline_doctor_plays_the_interface_control_through_the_corrupting_wrapper(studies):
    warehouse, _, done = studies
    study = done["interface"]
    raw, normalised = (_frame(warehouse, study.runs[label]) for label in ("N0", "N1"))
    assert raw["n_error_turns"].sum() > normalised["n_error_turns"].sum()
    for label, on in (("N0", False), ("N1", True)):
        config = _episode_config(warehouse, study.runs[label])
        assert (config["corrupt_share"], config["corrupt_normalise"]) == (0.3, on)
    rows = _rows(warehouse, "interface")
    row = rows[("N1 vs N0", "n_error_turns")]
    assert row["effect"] == pytest.approx((normalised["n_error_turns"] - raw["n_error_turns"]).mean())
    assert row["effect"] < 0
    assert row["p_raw"] == pytest.approx(wilcoxon(normalised["n_error_turns"], raw["n_error_turns"]).pvalue)
    errors = warehouse.read_partition("episode_events", study.runs["N0"]).filter(pl.col("action") == "ERROR")
    assert errors["content"].str.contains(r"```|order_test|final_diagnosis|ask_patient|consult|,\}|'action'").any()


@pytest.mark.slow
def test_the_clinlab_analysis_replaces_results_and_tests_each_arm_against_predicted(studies):
    warehouse, _, done = studies
    study = done["clinlab"]
    assert all("-clinverse-" in run_id for run_id in study.runs.values())
    settings = {label: _episode_config(warehouse, run_id) for label, run_id in study.runs.items()}
    assert {k: (v["replace_fraction"], v["unrecorded"], v["preset"]) for k, v in settings.items()} == {
        "L0": (0.0, "predict", "clinverse"), "L10": (0.1, "predict", "clinverse"),
        "L20": (0.2, "predict", "clinverse"), "Lnull": (0.0, "null", "clinverse")}
    rows = _rows(warehouse, "clinlab")
    assert {c for c, _ in rows} == {"L10 vs L0", "L20 vs L0", "Lnull vs L0", "L0 vs L10 vs L20"}
    assert {e for _, e in rows} == {"score_s", "utility_u", "dca", "dsa"}
    l0, null = _frame(warehouse, study.runs["L0"]), _frame(warehouse, study.runs["Lnull"])
    row = rows[("Lnull vs L0", "dca")]
    assert row["test"] == "mcnemar_exact" and row["effect"] == pytest.approx((null["dca"] - l0["dca"]).mean())
    if row["p_raw"] is not None:
        assert row["p_raw"] == pytest.approx(mcnemar(paired_table(null["dca"].to_numpy(), l0["dca"].to_numpy()),
                                                     exact=True).pvalue)
    assert rows[("L0 vs L10 vs L20", "dca")]["test"] == "cochran_q"
    results = warehouse.read_partition("episode_events", study.runs["Lnull"]).filter(pl.col("actor") == "lab")
    assert results["content"].str.contains(": null, no value is recorded").any()
