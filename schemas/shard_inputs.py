"""shard_inputs: what the per-case steps of each subject shard (pipelines.shards) read, as a digest
(pipelines.incremental), one row per shard. Internal: a rebuild compares it with the published
build's to re-run only the shards whose inputs changed.

* ``digest``  of the shard's ``case_skeleton`` and ``case_provenance`` rows, the staged rows of its
  patients (joined by ``subject_id``, ``PatientID``, ``CaseID`` or ``medqa_hash``), the staged tables
  that belong to no patient (dictionaries, read by every shard) and the build settings.
* ``cases``  candidate cases in the shard; ``rows``  staged rows of its patients.
"""

import pandera.polars as pa
import polars as pl

SCHEMA = pa.DataFrameSchema(
    {
        "shard": pa.Column(pl.Utf8, pa.Check.str_matches(r"^s\d{2,}$"), unique=True),
        "digest": pa.Column(pl.Utf8, pa.Check.str_length(min_value=16, max_value=16)),
        "cases": pa.Column(pl.Int64, pa.Check.ge(0)),
        "rows": pa.Column(pl.Int64, pa.Check.ge(0)),
    },
    name="shard_inputs",
    strict=True,
    coerce=True,
)
