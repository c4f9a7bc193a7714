"""The candidate cases of one source with the source keys content producers join on.

Content is built for every case of ``case_skeleton`` (excluded skeleton records get none); the
raw keys come from the restricted ``case_provenance`` and never leave the producers.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipelines.warehouse import Warehouse
from sql import load


def mimic_cases(warehouse: Warehouse) -> pl.DataFrame:
    """case_id, split, age, sex, primary ICD-10, subject_id, hadm_id and the admission's times and route."""
    query = load("content_mimic_cases").format(
        skeleton=warehouse.table_glob("case_skeleton"),
        provenance=warehouse.table_glob("case_provenance"),
        admissions=warehouse.table_glob("mimic_admissions"),
    )
    with duckdb.connect() as con:
        return con.sql(query).pl()


def sicdb_cases(warehouse: Warehouse) -> pl.DataFrame:
    """case_id, split, age, sex, primary ICD-10 and the SICdb CaseID / PatientID with the case's facts."""
    query = load("content_sicdb_cases").format(
        skeleton=warehouse.table_glob("case_skeleton"),
        provenance=warehouse.table_glob("case_provenance"),
        sicdb_cases=warehouse.table_glob("sicdb_cases"),
        d_references=warehouse.table_glob("sicdb_d_references"),
    )
    with duckdb.connect() as con:
        return con.sql(query).pl()
