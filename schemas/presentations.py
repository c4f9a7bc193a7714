"""presentations: the opening presentation the doctor starts from, one per case and producer.

Partitions: ``mimic_iv``, ``sicdb`` (assets/content.py) and ``medqa`` (assets/medqa.py), assets
``presentations_<partition>``. A presentation may only say what the disclosed units say (age,
sex, chief complaint) and how the patient arrived; the ``cases`` asset copies it into ``cases``.
"""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$"), unique=True),
        "presentation": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
    },
    name="presentations",
    strict=True,
    coerce=True,
)
