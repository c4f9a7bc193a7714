"""case_rubrics: per case, the key points the judge grades a final output against
(data-contract.md, "case_rubrics"; built by pipelines/evaluation/rubrics.py).

``kind`` ``evidence``: the key information units and the salient abnormal examinations (MedQA: the
points of ``medqa_rubric``); ``management``: what was done for the patient (MIMIC-IV: treatments
begun in the admission's first 24 hours). A case without management points has its plan weight
redistributed when scored (``episode_scores.plan_redistributed``). ``ordinal`` numbers the points
of one kind from 0; ``basis`` says where a point comes from (added to the contract's columns);
``source_ref`` points at it: ``unit:<unit_id>``, ``exam:<exam name>``, the ``medqa_rubric``
reference, or ``mimic_prescriptions:first_24h:<drugs>`` (no source key).
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID

KINDS = ["evidence", "management"]
BASES = ["key_unit", "abnormal_exam", "medqa_rubric", "prescription"]

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(KINDS)),
        "ordinal": pa.Column(pl.Int32, pa.Check.ge(0)),
        "key_point": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "basis": pa.Column(pl.Utf8, pa.Check.isin(BASES)),
        "source_ref": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
    },
    name="case_rubrics",
    strict=True,
    coerce=True,
    unique=["case_id", "kind", "ordinal"],
)
