"""exam_catalog: canonical exam names with aliases, so requests match by name.

``loinc`` (added beyond data-contract.md) is the LOINC code where one is well established
(pipelines/exams/exam_vocabulary.csv) or the source ships it (SICdb ``d_references``). ``panel``
(data-contract.md) is the orderable panel the exam belongs to: its first panel of the vocabulary
(``CBC``), or the procedure test of a procedure specimen's result (``Pleural fluid analysis``,
pipelines/exams/procedure_tests.csv); null for a stand-alone exam."""

import pandera.polars as pa
import polars as pl

from schemas._types import EXAM_KINDS, STR_LIST

SCHEMA = pa.DataFrameSchema(
    {
        "exam_name": pa.Column(pl.Utf8, unique=True),
        "kind": pa.Column(pl.Utf8, pa.Check.isin(EXAM_KINDS)),
        "aliases": pa.Column(STR_LIST),
        "loinc": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[0-9]{1,7}-[0-9]$"), nullable=True),
        "n_cases": pa.Column(pl.Int32, pa.Check.ge(0)),
        "panel": pa.Column(pl.Utf8, nullable=True),
    },
    name="exam_catalog",
    strict=True,
    coerce=True,
)
