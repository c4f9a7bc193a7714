"""leakage_removals: every mention of a case's diagnosis removed from patient- or exam-visible text.

``source_ref`` points at the source span (``<note_id>:<start>-<end>`` for notes, or the producer's
row key), ``term`` is the diagnosis term that matched (``pipelines.leakage.diagnosis_terms``),
``original_snippet`` the text before scrubbing, and ``action`` what was done:

* ``removed_clause``   the clause holding the mention was cut, the rest kept;
* ``dropped_unit``     nothing informative was left of an information unit, so it was not kept;
* ``dropped_finding``  the same for an examination finding;
* ``removed_sentence`` a whole sentence was cut (free-text producers such as MedQA vignettes);
* ``replaced_term``    the mention was replaced by a neutral phrase;
* ``dropped_encounter_event`` an HPI clause about the encounter (ED course, treatment, procedure,
  this visit's result: in-stay information, not history), dropped; ``term`` is
  ``<reason>: <words matched>`` (pipelines/notes/lexicon.yaml, ``encounter_events``).
"""

import pandera.polars as pa
import polars as pl

ACTIONS = ["removed_clause", "dropped_unit", "dropped_finding", "removed_sentence", "replaced_term",
           "dropped_encounter_event"]

SCHEMA = pa.DataFrameSchema(
    {
        "case_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^c_[0-9a-f]{16}$")),
        "source_ref": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "term": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "original_snippet": pa.Column(pl.Utf8),
        "action": pa.Column(pl.Utf8, pa.Check.isin(ACTIONS)),
    },
    name="leakage_removals",
    strict=True,
    coerce=True,
)
