"""The dataset card (README.md) of a release: counts per table and source, what was left out and why,
how case ids are made and what the scan looked for, the sources' licences, the schema digest and the
build the release comes from.

The text is data (``data/card.md``); the counts are computed from the very frames that are written,
so the card and the files agree. The sources' names and licences and the data use restriction are
those of the training export's card (pipelines/training/card.py, data/card.yaml and data_use.md),
so both exports say the same of a source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from importlib.resources import files

import polars as pl

from pipelines.release.spec import PACKAGE, ReleaseSpec
from pipelines.training import card as training_card
from pipelines.training.card import card_texts, data_use_terms, restricted_origins, source_key
from pipelines.warehouse import Warehouse
from schemas import staging
from schemas._types import SOURCES

CARD_FILE = "README.md"
DEMO_MARKER = ("demo-sources", ".clinverse-demo")  # the stamp `clinverse build` leaves on a generated demo


@dataclass(frozen=True)
class BuildInfo:
    """What the warehouse records of the build a release comes from."""

    generation: str  # the published build generation (its start time and a random suffix)
    staged: list[tuple[str, str, str, int]]  # (source module, staging table, publisher file, rows)
    demo: str | None  # the generated demo's settings (admissions, seed), when the cases are the demo

    @classmethod
    def of(cls, warehouse: Warehouse, cases: pl.DataFrame) -> BuildInfo:
        specs = {**{t.table: (t.source, t.file) for t in staging.ALL}, staging.MEDQA_TABLE: ("medqa", "*.jsonl")}
        staged = sorted((*specs[t], t, warehouse.rows(t)) for t in warehouse.tables() if t in specs)
        marker = warehouse.home.joinpath(*DEMO_MARKER)
        demo = marker.read_text().strip() if marker.exists() and (cases["dataset"] == "demo").any() else None
        return cls(warehouse.published_at() or "unpublished", [(s, t, f, n) for s, f, t, n in staged], demo)


def schema_digest(frames: dict[str, pl.DataFrame]) -> str:
    """A hash of the released tables' columns and types."""
    parts = [f"{name}.{column}:{dtype}" for name, frame in frames.items() for column, dtype in frame.schema.items()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def render(frames: dict[str, pl.DataFrame], spec: ReleaseSpec, searched: pl.DataFrame, public_key: pl.DataFrame,
           build: BuildInfo) -> str:
    """The card of a release made of ``frames`` (``searched``: the scan's identifiers per kind;
    ``public_key``: the released cases whose id is the public demo key's hash)."""
    cases = frames["cases"]
    sources = [s for s in SOURCES if s in set(cases["source"]) | set(frames["excluded_cases"]["source"])]
    restricted = restricted_origins(cases)
    keys = sorted({source_key(s, d) for s, d in cases.select("source", "dataset").unique().iter_rows()})
    texts = card_texts()["sources"]
    template = (files(PACKAGE) / "data" / "card.md").read_text(encoding="utf-8")
    return template.format(
        data_use=_data_use(restricted) if restricted else "",
        file_table=_table(["file", "rows", "one row per"],
                         ([f"`{t.name}.parquet`", frames[t.name].height, t.row] for t in spec.tables)),
        source_table=_table(["table", "rows", *sources], _per_source(frames, sources)),
        case_table=_table(["source", "dataset", "split", "cases"],
                         cases.group_by("source", "dataset", "split").len().sort("source", "dataset", "split")
                         .iter_rows()),
        excluded_table=_table(["source", "stage", "cases"],
                             frames["excluded_cases"].group_by("source", "stage").len().sort("source", "stage")
                             .iter_rows()),
        dropped_table=_table(["table", "column", "why"],
                            ([t.name, c, why] for t in spec.tables for c, why in t.drop.items())),
        rewrite_table=_table(["columns", "value", "becomes", "why"],
                            ([_rewritten_columns(spec), f"`{r.match.pattern}`", f"`{r.becomes}`", r.why]
                             for r in spec.rewrites)),
        unit_ids=spec.unit_ids,
        not_released_table=_table(["table", "why"], spec.not_released.items()),
        key_note=_key_note(public_key, cases.height),
        searched_table=_table(["identifier", "anywhere", "own case", "not by value"], searched.iter_rows()),
        licence_table=_table(["source", "name", "licence", "terms", "where"],
                            ([k, *(texts[k][f] for f in ("name", "licence", "terms", "url"))] for k in keys)),
        version=version("clinverse"), schema_digest=schema_digest(frames), generation=build.generation,
        datasets=", ".join(f"{s} `{d}`" for s, d in cases.select("source", "dataset").unique().sort("source")
                           .iter_rows()),
        demo_note=f"The cases are the generated demo ({build.demo}).\n" if build.demo else "",
        staged_table=_table(["source", "table", "file", "rows"], build.staged))


def _per_source(frames: dict[str, pl.DataFrame], sources: list[str]) -> list[list[object]]:
    """Rows per table, in total and per source (a row's source is its case's)."""
    case_sources = frames["cases"].select("case_id", "source")
    rows = []
    for name, frame in frames.items():
        if "source" in frame.columns:
            tagged = frame.select("source")
        elif "case_id" in frame.columns:
            tagged = frame.select("case_id").join(case_sources, on="case_id", how="left")
        else:
            rows.append([name, frame.height, *([""] * len(sources))])
            continue
        counts = dict(tagged.group_by("source").len().iter_rows())
        rows.append([name, frame.height, *(counts.get(s, 0) for s in sources)])
    return rows


def _rewritten_columns(spec: ReleaseSpec) -> str:
    return ", ".join(f"{t.name}.{c}" for t in spec.tables for c in t.rewrite)


def _key_note(public_key: pl.DataFrame, cases: int) -> str:
    if public_key.is_empty():
        return ("No case id of this release is the public demo key's hash of its source key: the build used a "
                "configured id key.")
    per_source = ", ".join(f"{n} {s} `{d}`" for s, d, n in
                           public_key.group_by("source", "dataset").len().sort("source", "dataset").iter_rows())
    return (f"{public_key.height:,} of the {cases:,} case ids ({per_source}) are keyed with the public demo key "
            "(`CLINVERSE_ID_KEY` was not set for the build), so anyone can recompute them from the source keys; "
            "that is allowed only for open content (the generated demo, MedQA): `clinverse release` refuses "
            "MIMIC-IV and SICdb cases keyed so.")


def _data_use(restricted: list[str]) -> str:
    text = (files(training_card.PACKAGE) / "data" / "data_use.md").read_text(encoding="utf-8")
    return text.format(**asdict(data_use_terms(restricted)))


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table, whole numbers with thousands separators (a count is never read as an id)."""
    return training_card.table(header, ([f"{c:,}" if isinstance(c, int) and not isinstance(c, bool) else c
                                         for c in row] for row in rows))
