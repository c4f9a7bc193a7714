"""Person columns shared by synthea_pool and profiles (one definition, two tables).

A profile copies its person columns from the synthea_pool row it was drawn from, so both tables
check them the same way.
"""

import pandera.polars as pa
import polars as pl

GENERATOR = pa.Column(pl.Utf8, pa.Check.isin(["synthea", "synthea-java"]))
STRATUM = pa.Column(pl.Utf8, pa.Check.str_matches(r"^[FM]_\d+-\d+$"))

NAME_COLUMNS = {
    "given_name": pa.Column(pl.Utf8, nullable=True),
    "family_name": pa.Column(pl.Utf8, nullable=True),
}

DEMOGRAPHIC_COLUMNS = {
    "marital_status": pa.Column(pl.Utf8, nullable=True),
    "race": pa.Column(pl.Utf8, nullable=True),
    "ethnicity": pa.Column(pl.Utf8, nullable=True),
    "language": pa.Column(pl.Utf8, nullable=True),
    "city": pa.Column(pl.Utf8, nullable=True),
    "state": pa.Column(pl.Utf8, nullable=True),
    "occupation_or_income": pa.Column(pl.Utf8, nullable=True),
}
