"""note_sections: one row per non-empty section of a discharge summary or radiology report.

Produced by ``pipelines.notes.sections.section_notes``; ``text`` is ``note[start:end]`` of the source
note. ``visibility`` says who may ever see the text: ``patient`` (the simulated patient may tell it),
``exam`` (returned as an examination result) or ``never``; the policy per section is
``pipelines.notes.section_rules.SECTION_POLICY`` and ``reason`` repeats it on every row.
"""

import pandera.polars as pa
import polars as pl

VISIBILITIES = ["patient", "exam", "never"]

SCHEMA = pa.DataFrameSchema(
    {
        "note_id": pa.Column(pl.Utf8),
        "section": pa.Column(pl.Utf8, pa.Check.str_matches(r"^[a-z][a-z_]*$")),
        "header": pa.Column(pl.Utf8, nullable=True),  # null only for the preamble before the first header
        "start": pa.Column(pl.Int64, pa.Check.ge(0)),
        "end": pa.Column(pl.Int64, pa.Check.ge(1)),
        "text": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "visibility": pa.Column(pl.Utf8, pa.Check.isin(VISIBILITIES)),
        "reason": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
    },
    checks=[
        pa.Check(lambda data: data.lazyframe.select(pl.col("end") > pl.col("start")), name="end_after_start"),
        pa.Check(
            lambda data: data.lazyframe.select(pl.col("text").str.len_chars() == pl.col("end") - pl.col("start")),
            name="text_length_matches_span",
        ),
        pa.Check(
            lambda data: data.lazyframe.select(pl.col("header").is_not_null() | (pl.col("section") == "preamble")),
            name="header_present_after_preamble",
        ),
    ],
    name="note_sections",
    metadata={"restricted": True},  # raw note text, hospital course included: never exported, no default query view
    strict=True,
    coerce=True,
)
