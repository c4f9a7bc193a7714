"""synthea_pool: the Synthea-generated people that profiles are drawn from, partitioned by stratum.

One Parquet file per stratum (``tables/synthea_pool/<stratum>.parquet``, strata ``F_0-17`` ..
``M_75-120``: sex x age band, pipelines/profiles/strata.py).  ``pool_patient_id`` is the Synthea
Patient id; ``profiles.generator_patient_id`` points here.  ``age_years`` is the age at Synthea's
``reference_date``; ``conditions`` keeps every recorded condition with its ICD-10-CM mapping
(null where none exists) and ``kind`` (pipelines/profiles/snomed_icd10.csv).
"""

import pandera.polars as pa
import polars as pl

from schemas._person_columns import DEMOGRAPHIC_COLUMNS, GENERATOR, NAME_COLUMNS, STRATUM
from schemas._types import SEXES

CONDITION_STRUCT = pl.Struct(
    {
        "snomed_code": pl.Utf8,
        "name": pl.Utf8,
        "icd10cm": pl.Utf8,
        "icd10_category": pl.Utf8,
        "kind": pl.Utf8,
        "onset": pl.Date,
        "abatement": pl.Date,
    }
)

SCHEMA = pa.DataFrameSchema(
    {
        "stratum": STRATUM,
        "pool_patient_id": pa.Column(pl.Utf8, unique=True),
        "generator": GENERATOR,
        "synthea_seed": pa.Column(pl.Int64),
        "source_file": pa.Column(pl.Utf8),
        **NAME_COLUMNS,
        "sex": pa.Column(pl.Utf8, pa.Check.isin(SEXES)),
        "birth_date": pa.Column(pl.Date),
        "deceased_date": pa.Column(pl.Date, nullable=True),
        "reference_date": pa.Column(pl.Date),
        "age_years": pa.Column(pl.Int32, pa.Check.in_range(0, 140)),
        **DEMOGRAPHIC_COLUMNS,
        "conditions": pa.Column(pl.List(CONDITION_STRUCT)),
    },
    name="synthea_pool",
    strict=True,
    coerce=True,
)
