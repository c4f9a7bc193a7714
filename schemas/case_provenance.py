"""case_provenance (restricted): raw source keys behind each case_id, under the publishers' own
column names (MIMIC subject_id / hadm_id / note ids, SICdb CaseID / PatientID, MedQA file, line
and question hash). Never exported."""

import pandera.polars as pa
import polars as pl

from schemas._types import SOURCES, STR_LIST

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, unique=True),
        "source": pa.Column(pl.Utf8, pa.Check.isin(SOURCES)),
        "subject_id": pa.Column(pl.Int64, nullable=True),
        "hadm_id": pa.Column(pl.Int64, nullable=True),
        "note_ids": pa.Column(STR_LIST),
        "CaseID": pa.Column(pl.Int64, nullable=True),
        "PatientID": pa.Column(pl.Int64, nullable=True),
        "medqa_file": pa.Column(pl.Utf8, nullable=True),
        "medqa_line": pa.Column(pl.Int64, nullable=True),
        "medqa_hash": pa.Column(pl.Utf8, nullable=True),
        "source_files": pa.Column(STR_LIST),
    },
    name="case_provenance",
    metadata={"restricted": True},  # raw source keys: never exported, no default query view
    strict=True,
    coerce=True,
)
