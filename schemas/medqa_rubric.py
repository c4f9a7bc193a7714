"""medqa_rubric: the evidence key points of each MedQA case (what a good work-up must have found).

``kind`` is ``history`` (the chief complaint and the first positive illness-history units) or
``finding`` (abnormal examination, study and laboratory results, signs before vital signs);
``key_point`` is the unit text or ``"<exam name>: <value>"``; ``source_ref`` points at the unit
or exam result it comes from (``medqa:<question hash>:<start>-<end>``). S_evi and S_plan count
matches against these K points.
"""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$")),
        "ordinal": pa.Column(pl.Int32, pa.Check.ge(0)),
        "key_point": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(["history", "finding"])),
        "source_ref": pa.Column(pl.Utf8, pa.Check.str_matches(r"^medqa:[0-9a-f]+:\d+-\d+$")),
    },
    name="medqa_rubric",
    strict=True,
    coerce=True,
    unique=["case_id", "ordinal"],
)
