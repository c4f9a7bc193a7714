"""unit_candidates: patient-reportable facts from every producer, before importance labelling.

One Parquet file per producer (``Warehouse.write("unit_candidates", df, partition=...)``):
``mimic_notes``, ``mimic_structured``, ``sicdb_structured`` (assets/content.py) and ``medqa``
(assets/medqa.py). The ``information_units`` asset reads every partition, labels importance and
publishes the contract table; each producer's Dagster asset is named ``unit_candidates_<partition>``
so that ``information_units`` can depend on all of them.

Columns (a producer fills every one of them):

* ``case_id``     a case of ``case_skeleton``.
* ``unit_id``     ``pipelines.ids.unit_id(case_id, category, source_ref, text)``: stable for the
                  same input, unique in the table.
* ``ordinal``     order of the fact within the case *as the producer saw it* (0-based); the final
                  ordinal is assigned across producers by ``information_units``.
* ``category``    one of :data:`CATEGORIES`.
* ``text``        the fact as the patient could say it or a clinician would write it, without the
                  diagnosis (the leakage audit rejects diagnosis names, acceptable names, ICD-10
                  titles and codes).
* ``negated``     the fact is denied ("no chest pain").
* ``disclosed``   part of the opening presentation (age, sex, chief complaint); everything else
                  is hidden and must be elicited.
* ``source_ref``  where the fact came from: table and row key without person/admission ids
                  (``mimic_diagnoses_icd:prior:icd9:4280``) or note id + character span.
* ``concept``     a normalised key for the fact that repeats across cases, e.g. ``icd10:I10``,
                  ``drug:metoprolol``, ``bmi:obese``, ``symptom:chest pain``; importance is learned
                  per concept (null: the lower-cased text is used).
"""

import pandera.polars as pa
import polars as pl

CATEGORIES = [
    "chief_complaint",
    "hpi",
    "ros",
    "pmh",
    "psh",
    "medication",
    "allergy",
    "social",
    "family",
    "measurement",  # outpatient measurements the patient knows (last weight, blood pressure, height)
    "demographic",
]

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$")),
        "unit_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^u_[0-9a-f]{16}$"), unique=True),
        "ordinal": pa.Column(pl.Int32, pa.Check.ge(0)),
        "category": pa.Column(pl.Utf8, pa.Check.isin(CATEGORIES)),
        "text": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "negated": pa.Column(pl.Boolean),
        "disclosed": pa.Column(pl.Boolean),
        "source_ref": pa.Column(pl.Utf8),
        "concept": pa.Column(pl.Utf8, nullable=True),
    },
    name="unit_candidates",
    strict=True,
    coerce=True,
)
