"""case_exam_targets: per case, the recorded examinations that matter, ranked (built with
``case_rubrics`` by pipelines/evaluation/exam_targets.py). Not in data-contract.md: added so that
TOC, ATC and the exam-choice precision / recall can be recomputed from stored tables.

An examination matters when its abnormal result is informative about the ICD-10 block on the
train split (adjusted mutual information > 0, at least ``min_support`` abnormal train cases),
whatever the case's own diagnosis. ``rank`` orders a case's such exams (abnormal here first,
then by ``weight``, the adjusted mutual information); TOC and ATC take the first ``test_limit``
of them (reachable within the preset's examination limit), the precision and recall all of them.
"""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "rank": pa.Column(pl.Int32, pa.Check.ge(1)),
        "exam_name": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "abnormal": pa.Column(pl.Boolean),
        "weight": pa.Column(pl.Float64, pa.Check.gt(0)),
    },
    name="case_exam_targets",
    strict=True,
    coerce=True,
    unique=["case_id", "rank"],
)
