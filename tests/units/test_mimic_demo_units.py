"""Conformance of the structured history units on the real MIMIC-IV demo, checked against the raw
CSVs: same-stay codes only when chronic or a fact from before the stay, earlier codes only from
earlier admissions, lay phrasing, discharge home medications, and keys with a reason."""

import duckdb
import polars as pl
import pytest

from pipelines import icd
from pipelines.units.chronic import CHRONIC, KINDS
from pipelines.units.code_ranges import in_range
from pipelines.units.importance import key_problems
from pipelines.warehouse import Warehouse

pytestmark = pytest.mark.slow

# Statuses and events a stay creates, and findings of its tests, written out here rather than taken
# from not_history_codes.csv, so that a gap in the data file shows.
NEVER_FROM_THE_SAME_STAY = [("Z79", "Z79"), ("Z99.1", "Z99.1"), ("Z98", "Z98"), ("Z78.1", "Z78.1"),
                            ("S00", "T88"), ("R00", "R99"), ("I21", "I24"), ("I46", "I46"), ("I60", "I63"),
                            ("J18", "J18"), ("N17", "N17"), ("Z51", "Z51"), ("Z68", "Z68"), ("E86", "E87")]
INPATIENT_ROUTES = ("IV", "IV DRIP", "IV BOLUS", "PO/NG", "NG", "IM")


@pytest.fixture(scope="module")
def built(real_demo_warehouse, mimic_demo_dir):
    return real_demo_warehouse, mimic_demo_dir


def _coded_units(wh: Warehouse, raw) -> pl.DataFrame:
    """History units from diagnosis codes, with their admission, the raw code and its raw title."""
    units = wh.read("information_units").filter(pl.col("source_ref").str.starts_with("mimic_diagnoses_icd:"))
    parts = units["source_ref"].str.split(":")
    units = units.with_columns(parts.list.get(1).alias("when"), parts.list.get(2).str.slice(3).alias("icd_version"),
                               parts.list.get(3).alias("icd_code"))
    provenance = pl.read_parquet(wh.table_glob("case_provenance")).select("case_id", "subject_id", "hadm_id")
    titles = duckdb.sql(f"SELECT icd_code, CAST(icd_version AS VARCHAR) icd_version, long_title "
                        f"FROM '{raw}/hosp/d_icd_diagnoses.csv.gz'").pl()
    units = units.join(provenance, on="case_id").join(titles, on=["icd_code", "icd_version"], how="left")
    return icd.normalise_codes(units, code_col="icd_code", version_col="icd_version")


def test_no_history_unit_comes_from_a_same_stay_code_that_is_not_chronic_with_evidence(built):
    wh, raw = built
    units = _coded_units(wh, raw)
    current = units.filter(pl.col("when") == "current")
    assert current.height > 100  # the rule keeps chronic conditions, it does not drop everything
    coded_here = duckdb.sql(f"SELECT hadm_id, icd_code, CAST(icd_version AS VARCHAR) icd_version, seq_num "
                            f"FROM '{raw}/hosp/diagnoses_icd.csv.gz'").pl()
    joined = current.join(coded_here, on=["hadm_id", "icd_code", "icd_version"], how="left")
    assert joined.filter(pl.col("seq_num").is_null() | (pl.col("seq_num") == 1)).is_empty()
    bad = []
    for code, text in current.select("icd10_code", "text").iter_rows():
        chronic = code in CHRONIC
        by_definition = (KINDS.find(code) is not None and KINDS.find(code).known_on_arrival)
        forbidden = any(in_range(code, a, b) for a, b in NEVER_FROM_THE_SAME_STAY)
        if forbidden or not (chronic or by_definition):
            bad.append((code, text))
    assert bad == []


def test_earlier_codes_come_from_earlier_admissions_and_lab_findings_never(built):
    wh, raw = built
    prior = _coded_units(wh, raw).filter(pl.col("when") == "prior")
    assert prior.height > 1000
    earlier = duckdb.sql(f"""
        SELECT d.subject_id, d.icd_code, CAST(d.icd_version AS VARCHAR) icd_version, min(a.dischtime) first_discharge
        FROM '{raw}/hosp/diagnoses_icd.csv.gz' d JOIN '{raw}/hosp/admissions.csv.gz' a USING (hadm_id)
        GROUP BY ALL""").pl()
    admitted = duckdb.sql(f"SELECT hadm_id, admittime FROM '{raw}/hosp/admissions.csv.gz'").pl()
    checked = prior.join(earlier, on=["subject_id", "icd_code", "icd_version"], how="left").join(admitted, on="hadm_id")
    assert checked.filter(pl.col("first_discharge").is_null()
                          | (pl.col("first_discharge") >= pl.col("admittime"))).is_empty()
    lab_or_stay = prior.filter(pl.col("icd10_code").str.contains(r"^(?:R7|R8|R9|Z78\.1|T1[5-9]|Z68|B9[5-7])"))
    assert lab_or_stay.select("icd10_code", "text").rows() == []


def test_history_units_are_lay_phrases_not_icd_titles(built):
    wh, raw = built
    units = _coded_units(wh, raw)
    assert units.filter(pl.col("text").str.to_lowercase() == pl.col("long_title").str.to_lowercase()).is_empty()
    assert "I have high blood pressure" in units["text"].to_list()
    assert units.filter(pl.col("text").str.contains(r"(?i)unspecified|without mention|not stated as")).is_empty()


def test_home_medications_are_discharge_orders_a_patient_takes_at_home(built):
    wh, raw = built
    meds = wh.read("information_units").filter(pl.col("source_ref").str.starts_with("mimic_prescriptions:"))
    assert meds.height > 50
    assert meds.filter(pl.col("text").str.contains(r"(?i)heparin|flush|^I take insulin\b|PO/NG|glucose gel")).is_empty()
    provenance = pl.read_parquet(wh.table_glob("case_provenance")).select("case_id", "subject_id", "hadm_id")
    orders = duckdb.sql(f"""
        WITH a AS (SELECT subject_id, hadm_id, admittime, dischtime FROM '{raw}/hosp/admissions.csv.gz')
        SELECT c.hadm_id AS case_hadm, trim(p.drug) drug, upper(trim(p.route)) route
        FROM a c JOIN a e ON e.subject_id = c.subject_id AND e.dischtime < c.admittime
        JOIN '{raw}/hosp/prescriptions.csv.gz' p ON p.hadm_id = e.hadm_id
        WHERE p.stoptime >= e.dischtime
          AND e.dischtime = (SELECT max(dischtime) FROM a x WHERE x.subject_id = c.subject_id
                             AND x.dischtime < c.admittime)""").pl()
    drugs = meds.join(provenance, on="case_id").with_columns(
        pl.col("source_ref").str.split(":").list.get(2).alias("drug"))
    found = drugs.join(orders.rename({"case_hadm": "hadm_id"}), on=["hadm_id", "drug"], how="left")
    assert found.filter(pl.col("route").is_null()).is_empty()  # every unit is an order running at that discharge
    outpatient = found.group_by("unit_id").agg(pl.col("route").is_in(INPATIENT_ROUTES).not_().any().alias("ok"))
    assert outpatient.filter(~pl.col("ok")).is_empty()


def test_every_key_has_a_reason_and_the_fallback_never_keys_a_vitamin(built):
    wh, _ = built
    units = wh.read("information_units")
    notes = wh.read("importance_notes")
    keys = units.filter(pl.col("importance") == "key")
    assert keys.height > 0
    assert key_problems(units, notes) == {"cases_without_key_or_note": 0, "keys_without_basis": 0,
                                          "no_key_notes_with_a_key": 0}
    assert keys.filter(pl.col("text").str.contains(r"(?i)multivitamin|vitamin d|docusate|senna")).is_empty()
    assert set(notes["resolution"]) <= {"statistics", "knowledge", "no_key"}
    hidden = units.filter(~pl.col("disclosed"))["case_id"].unique()
    assert notes["case_id"].sort().to_list() == hidden.sort().to_list()
