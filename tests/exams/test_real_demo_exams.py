"""Exam results of the real MIMIC-IV demo, checked against the raw CSVs (not the producers' SQL): every
result was charted and stored within its case's window, values in comments or behind '___' are
results, impossible measurements are rejected and procedure specimens carry their procedure's name."""

from pathlib import Path

import duckdb
import pytest

from pipelines.cases.skeleton import mimic_skeleton
from pipelines.config import DEMO_ID_KEY
from pipelines.content.case_keys import mimic_cases
from pipelines.content.leakage_guard import case_terms
from pipelines.exams import mimic
from pipelines.exams.procedures import specimens
from pipelines.exams.results import publish
from pipelines.sources.csv_tables import stage_csv
from pipelines.warehouse import Warehouse
from schemas.staging import MIMIC_IV

CHART_VITALS = Path(mimic.__file__).with_name("chart_vitals.csv")
WINDOW_HOURS = 24  # the default of CLINVERSE_EXAM_WINDOW_HOURS
LOOKBACK_HOURS = 6  # the default of CLINVERSE_EXAM_LOOKBACK_HOURS


@pytest.fixture(scope="module")
def con(mimic_demo_dir, tmp_path_factory):
    """The real demo staged, its skeleton and its MIMIC-IV exams built with the default window (the
    producers and the publisher, as the build runs them), queried beside the raw CSVs."""
    warehouse = Warehouse(tmp_path_factory.mktemp("real-exams"))
    for spec in MIMIC_IV:
        stage_csv(spec, mimic_demo_dir, warehouse)
    parts = mimic_skeleton(warehouse, DEMO_ID_KEY, "mimic-iv-2.2", 0.2)
    warehouse.write("case_skeleton", parts.skeleton)
    warehouse.write("case_provenance", parts.provenance)
    cases = mimic_cases(warehouse)
    for write in (mimic.write_labs, mimic.write_vitals, mimic.write_microbiology):
        write(warehouse, cases)
    publish(warehouse, case_terms(warehouse.read("case_skeleton")))
    db = duckdb.connect()
    for table in ("exam_results", "case_skeleton", "case_provenance", "rejects"):
        db.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{warehouse.table_glob(table)}')")
    for table in ("admissions", "labevents", "microbiologyevents", "omr", "d_labitems", "prescriptions"):
        db.execute(f"CREATE VIEW raw_{table} AS SELECT * FROM read_csv('{mimic_demo_dir}/hosp/{table}.csv.gz')")
    # each case's window, recomputed here from the raw admissions, and each MIMIC result with it
    db.execute(f"""CREATE VIEW windows AS
        SELECT s.case_id, p.subject_id, p.hadm_id, a.admittime,
               CASE WHEN a.edregtime IS NULL THEN a.admittime - INTERVAL {LOOKBACK_HOURS} HOUR
                    ELSE least(a.edregtime, a.admittime) END AS window_start,
               least(a.admittime + INTERVAL {WINDOW_HOURS} HOUR, a.dischtime) AS window_end
        FROM case_skeleton s JOIN case_provenance p USING (case_id) JOIN raw_admissions a ON a.hadm_id = p.hadm_id
        WHERE s.source = 'mimic_iv'""")
    db.execute("CREATE VIEW results AS SELECT r.*, w.* EXCLUDE (case_id) FROM exam_results r JOIN windows w USING (case_id)")
    return db


def count(con, sql: str) -> int:
    return con.execute(sql).fetchone()[0]


def test_no_result_is_known_after_the_window_closes(con):
    # nearly every case has results in its window
    assert count(con, "SELECT count(DISTINCT case_id) FROM results") >= 0.95 * count(con, "SELECT count(*) FROM windows")
    late = ("SELECT count(*) FROM results WHERE offset_hours > "
            "date_diff('second', admittime, window_end) / 3600.0 + 1e-9")
    assert count(con, late) == 0
    # before this rule: 179 results were stored after discharge and 213 of 251 cases had results after 24 h
    assert count(con, "SELECT count(DISTINCT case_id) FROM results WHERE offset_hours > 24") == 0


def test_every_lab_result_is_a_raw_row_charted_and_stored_in_the_window(con):
    labs = "SELECT * FROM results WHERE starts_with(source_ref, 'mimic_labevents:')"
    assert count(con, f"SELECT count(*) FROM ({labs})") > 20 * count(con, "SELECT count(*) FROM windows")
    unmatched = f"""
        SELECT count(*) FROM ({labs}) r WHERE NOT EXISTS (
            SELECT 1 FROM raw_labevents l
            WHERE l.subject_id = r.subject_id AND l.itemid = CAST(split_part(r.source_ref, '=', 2) AS BIGINT)
              AND (l.hadm_id = r.hadm_id OR l.hadm_id IS NULL)
              AND l.charttime BETWEEN r.window_start AND r.window_end AND l.storetime <= r.window_end
              AND (l.valuenum = r.value_num OR (r.value_num IS NULL AND (trim(l.value) = r.value_text
                                                                         OR starts_with(l.comments, r.value_text)))))"""
    assert count(con, unmatched) == 0


def test_microbiology_results_were_stored_in_the_window(con):
    micro = "SELECT * FROM results WHERE starts_with(source_ref, 'mimic_microbiologyevents:')"
    assert count(con, f"SELECT count(*) FROM ({micro})") > 0
    unmatched = f"""
        SELECT count(*) FROM ({micro}) r WHERE NOT EXISTS (
            SELECT 1 FROM raw_microbiologyevents m
            WHERE m.subject_id = r.subject_id AND (m.hadm_id = r.hadm_id OR m.hadm_id IS NULL)
              AND r.source_ref = 'mimic_microbiologyevents:' || trim(m.test_name) || coalesce(':' || trim(m.spec_type_desc), '')
              AND coalesce(m.charttime, m.chartdate) <= r.window_end AND m.storetime <= r.window_end)"""
    assert count(con, unmatched) == 0
    # a blood culture is final after days: none is a result of the first 24 hours
    assert count(con, f"SELECT count(*) FROM ({micro}) WHERE exam_name = 'Blood culture' AND value_text <> "
                      "'No organisms reported' AND offset_hours > 24") == 0


def test_omr_measurements_are_dated_in_the_window_and_impossible_ones_rejected(con):
    omr = "SELECT * FROM results WHERE starts_with(source_ref, 'mimic_omr:')"
    outside = f"""
        SELECT count(*) FROM ({omr}) r WHERE NOT EXISTS (
            SELECT 1 FROM raw_omr o WHERE o.subject_id = r.subject_id AND r.source_ref = 'mimic_omr:' || o.result_name
              AND o.result_value = r.value_text AND o.chartdate >= CAST(r.window_start AS DATE)
              AND o.chartdate + INTERVAL 1 DAY <= r.window_end)"""
    assert count(con, outside) == 0
    assert count(con, "SELECT count(*) FROM results WHERE exam_name = 'Body mass index' AND value_num > 100") == 0
    rejected = con.execute("SELECT raw, reason FROM rejects WHERE \"table\" = 'mimic_omr'").fetchall()
    assert ("4649.4", "implausible BMI (kg/m2): 4649.4 kg/m2 (possible 10-100)") in rejected


def test_values_in_comments_or_behind_the_placeholder_are_results(con):
    assert count(con, "SELECT count(*) FROM results WHERE value_num IS NOT NULL AND value_text IS NULL") == 0
    # every case with a troponin in its window has it; before, comment-only values ("<0.01.") were
    # dropped and 37 of the 83 admissions with a troponin had one
    in_window = """SELECT count(DISTINCT w.case_id) FROM windows w JOIN raw_labevents l USING (subject_id)
        JOIN raw_d_labitems d USING (itemid)
        WHERE d.label ILIKE 'troponin%' AND (l.hadm_id = w.hadm_id OR (l.hadm_id IS NULL AND l.charttime < w.admittime))
          AND l.charttime BETWEEN w.window_start AND w.window_end AND l.storetime <= w.window_end"""
    published = "SELECT count(DISTINCT case_id) FROM results WHERE exam_name ILIKE 'troponin%'"
    assert count(con, published) == count(con, in_window) > 0
    assert count(con, "SELECT count(*) FROM results WHERE kind = 'lab' AND contains(value_text, '___')") == 0


def test_no_ptt_is_one_charted_after_an_intravenous_heparin_order_of_the_stay(con):
    heparin = """SELECT hadm_id, min(starttime) AS since FROM raw_prescriptions
        WHERE drug ILIKE '%heparin%' AND route = 'IV'
          AND NOT regexp_matches(lower(drug), 'flush|dwell|priming|crrt|dialysis|iabp') GROUP BY hadm_id"""
    ptt = """SELECT w.case_id, l.charttime, l.valuenum, h.since FROM windows w JOIN raw_labevents l USING (subject_id)
        LEFT JOIN ({heparin}) h ON h.hadm_id = w.hadm_id
        WHERE l.itemid = 51275 AND l.valuenum IS NOT NULL
          AND (l.hadm_id = w.hadm_id OR (l.hadm_id IS NULL AND l.charttime < w.admittime))
          AND l.charttime BETWEEN w.window_start AND w.window_end AND l.storetime <= w.window_end""".format(heparin=heparin)
    # the rule has work on the real demo: PTTs drawn on a drip begun in the window (one read 150 s)
    assert count(con, f"SELECT count(*) FROM ({ptt}) WHERE charttime >= since") >= 3
    on_drug = f"""SELECT count(*) FROM results r WHERE r.exam_name = 'Partial thromboplastin time'
        AND starts_with(r.source_ref, 'mimic_labevents:') AND NOT EXISTS (
            SELECT 1 FROM ({ptt}) p WHERE p.case_id = r.case_id AND p.valuenum = r.value_num
              AND (p.since IS NULL OR p.charttime < p.since))"""
    assert count(con, on_drug) == 0
    assert count(con, "SELECT count(*) FROM results WHERE exam_name = 'Partial thromboplastin time'") > 50


def test_procedure_specimens_are_only_under_their_procedure_names(con):
    fluids = [s.specimen for s in specimens() if s.table == "labevents"]
    con.execute("CREATE TEMP TABLE procedure_items AS SELECT itemid FROM raw_d_labitems WHERE fluid IN "
                f"({', '.join('?' for _ in fluids)}) AND label NOT ILIKE 'Influenza%'", fluids)
    named = con.execute("""SELECT DISTINCT r.exam_name FROM results r JOIN procedure_items i
                           ON r.source_ref = 'mimic_labevents:itemid=' || i.itemid""").fetchall()
    assert named and all(": " in name for (name,) in named), named
    pleural = [n for (n,) in named if n.startswith("Pleural fluid: ")]
    assert "Pleural fluid: Total Protein" in pleural


def test_the_chart_item_map_names_real_vital_sign_items(mimic_demo_dir):
    mapped = duckdb.sql(f"SELECT itemid, label FROM read_csv('{CHART_VITALS}', comment = '#')").fetchall()
    real = dict(duckdb.sql(f"SELECT itemid, label FROM read_csv('{mimic_demo_dir}/icu/d_items.csv.gz') "
                           "WHERE linksto = 'chartevents'").fetchall())
    assert mapped and all(real.get(itemid) == label for itemid, label in mapped), mapped
