"""The reference the regex section split must equal: medspaCy's Sectionizer run on the tokenized note,
read into rows the way pipelines.notes.sections read it before the split stopped tokenizing notes."""

from __future__ import annotations

import polars as pl
from spacy.language import Language

from pipelines.notes.section_rules import classify_header

COLUMNS = ("note_id", "section", "header", "start", "end", "text")


def medspacy_sections(nlp: Language, notes: list[tuple[str, str, str]]) -> pl.DataFrame:
    """Rows (``COLUMNS``) of every (note_id, text, kind) note, kind ``discharge`` or ``radiology``."""
    rows = []
    for note_id, text, kind in notes:
        keep = f"{kind}_sectionizer"
        doc = next(nlp.pipe([text.replace("\r", "\n")], disable=[p for p in nlp.pipe_names if p != keep]))
        for section in doc._.sections:
            body = doc[section.body_start : section.body_end]
            start, end = (body.start_char, body.end_char) if len(body) else (0, 0)
            while start < end and text[start] in " \t\n\r:;,":
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start >= end:
                continue
            name, header = "preamble", None
            if section.rule is not None:
                title = doc[section.title_start : section.title_end]
                header = " ".join(text[title.start_char : title.end_char].split())
                name = section.rule.metadata["section"] or classify_header(header, kind)
            rows.append((note_id, name, header, start, end, text[start:end]))
    schema = {"note_id": pl.Utf8, "section": pl.Utf8, "header": pl.Utf8, "start": pl.Int64, "end": pl.Int64,
              "text": pl.Utf8}
    return pl.DataFrame(rows, schema=schema, orient="row")
