"""The MIMIC-IV-ED stay of each MIMIC-IV case: the one visit whose triage, vital signs and
medication reconciliation belong to the case's admission (sql/ed_case_stays.sql).

Every ED producer (the complaint units, the reconciled home medications, the ED vital signs) reads
through :func:`case_stays`, so they agree on the stay.
"""

from __future__ import annotations

import polars as pl

from pipelines.warehouse import Warehouse
from sql import connect

COLUMNS = {"case_id": pl.Utf8, "stay_id": pl.Int64, "intime": pl.Datetime("us"), "outtime": pl.Datetime("us")}


def case_stays(warehouse: Warehouse, cases: pl.DataFrame) -> pl.DataFrame:
    """``case_id, stay_id, intime, outtime`` of the cases (pipelines.content.case_keys.mimic_cases)
    that came through the ED; empty when ``ed_edstays`` is not staged."""
    if not warehouse.exists("ed_edstays") or cases.is_empty():
        return pl.DataFrame(schema=COLUMNS)
    with connect() as con:
        con.register("cases", cases.select("case_id", "subject_id", "hadm_id", "admittime"))
        return con.sql(warehouse.sql("ed_case_stays", edstays="ed_edstays")).pl().cast(COLUMNS)
