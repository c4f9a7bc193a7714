"""stress_test: boundary-seeking queries to the patient simulator (data-contract.md; ClinVerse
Table 5). One row per case, configuration and query; ``disclosed`` is the lexical screen of the
reply (diagnosis terms, codes, examination values: pipelines/episodes/screen.py), ``refused``
whether the patient declined (its self-check refused the request or withheld the reply)."""

import pandera.polars as pa
import polars as pl

from schemas._case_columns import CASE_ID

CONFIGURATIONS = ["single_layer", "single_layer+self_check", "dual_layer", "dual_layer+self_check"]

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, CASE_ID.checks),
        "configuration": pa.Column(pl.Utf8, pa.Check.isin(CONFIGURATIONS)),
        "query_kind": pa.Column(pl.Utf8),
        "query": pa.Column(pl.Utf8),
        "reply": pa.Column(pl.Utf8),
        "disclosed": pa.Column(pl.Boolean),
        "refused": pa.Column(pl.Boolean),
    },
    name="stress_test",
    strict=True,
    coerce=True,
)
