"""exam_candidates: examination results from every producer, before canonical naming.

One Parquet file per producer: ``mimic_labs``, ``mimic_vitals``, ``mimic_microbiology``,
``mimic_notes``, ``sicdb_labs`` (assets/content.py) and ``medqa`` (assets/medqa.py); each
producer's Dagster asset is named ``exam_candidates_<partition>``. The ``exam_results`` asset
maps every row to a canonical name of ``exam_catalog`` (pipelines.exams.catalog) and publishes
the contract table.

Columns: those of ``exam_results`` plus

* ``raw_name``  the name exactly as the source has it (MIMIC ``d_labitems.label``, SICdb
  ``d_references.ReferenceName``, a radiology ``exam_name``, a MedQA phrase); it becomes an alias
  in ``exam_catalog``.
* ``loinc``     the LOINC code when the source ships one (else null).

``exam_name`` is the producer's proposal: the raw name, qualified where the source needs it
(``Glucose (Urine)``). Canonicalisation looks ``exam_name`` up among the aliases of
pipelines/exams/exam_vocabulary.csv and keeps the proposal when it is unknown. Producers keep one
row per case and proposed name (the first result known; MIMIC-IV producers only results of the
case's exam window, pipelines/exams/window.py); ``exam_results`` then keeps the first row per case
and canonical name.
"""

import pandera.polars as pa
import polars as pl

from schemas.exam_results import SCHEMA as _RESULTS

SCHEMA = _RESULTS.add_columns(
    {
        "raw_name": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "loinc": pa.Column(pl.Utf8, nullable=True),
    }
).set_name("exam_candidates")
