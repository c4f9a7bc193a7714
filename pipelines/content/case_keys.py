"""The candidate cases of one source with the source keys content producers join on.

Content is built for every case of ``case_skeleton`` (excluded skeleton records get none); the
raw keys come from the restricted ``case_provenance`` and never leave the producers.
"""

from __future__ import annotations

import polars as pl

from pipelines.warehouse import Warehouse


def mimic_cases(warehouse: Warehouse) -> pl.DataFrame:
    """case_id, split, age, sex, primary ICD-10, subject_id, hadm_id and the admission's times and route."""
    return warehouse.sql_frame("content_mimic_cases", skeleton="case_skeleton", provenance="case_provenance",
                               admissions="mimic_admissions")


def sicdb_cases(warehouse: Warehouse) -> pl.DataFrame:
    """case_id, split, age, sex, primary ICD-10 and the SICdb CaseID / PatientID with the case's facts."""
    return warehouse.sql_frame("content_sicdb_cases", skeleton="case_skeleton", provenance="case_provenance",
                               sicdb_cases="sicdb_cases", d_references="sicdb_d_references")
