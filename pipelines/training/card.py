"""The dataset card (README.md) of a training export: counts per split, source and run, why episodes
gave no step samples, the sources' licences, the data use restriction where it applies, the schema.

The text is data (``data/dataset_card.md``, ``data/data_use.md``, ``data/card.yaml``); this module
fills in the counts, computed from the very frames that are written, so the card and the files agree.
Whether a source is restricted is the egress rule's answer (:class:`DataOrigin`), so the card, the
export's refusal and the LLM egress guard never disagree about a case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from importlib.metadata import version
from importlib.resources import files
from typing import Any

import polars as pl

import schemas
from pipelines.datafiles import yaml_mapping
from pipelines.episodes.llm.egress import OPEN_DATASETS, DataOrigin

PACKAGE = "pipelines.training"
READ_TABLES = ("cases", "runs", "episodes", "episode_events", "episode_scores")
WRITTEN_TABLES = ("trajectories", "step_samples")


@cache
def card_texts() -> dict[str, Any]:
    return yaml_mapping(PACKAGE, "data/card.yaml", ("sources", "exclusions"))


def _template(name: str) -> str:
    return (files(PACKAGE) / "data" / name).read_text(encoding="utf-8")


def source_key(source: str, dataset: str) -> str:
    """The card's name for a case's origin: ``demo`` for the generated demo, else its source."""
    return "demo" if dataset in OPEN_DATASETS else source


def restricted_origins(frame: pl.DataFrame) -> list[str]:
    """The source keys of ``frame``'s (``source``, ``dataset``) pairs whose content is restricted."""
    pairs = frame.select("source", "dataset").unique().sort("source", "dataset").iter_rows()
    return sorted({source_key(s, d) for s, d in pairs if DataOrigin(s, d).restricted})


@dataclass(frozen=True)
class DataUseTerms:
    sources: str  # the restricted sources' names
    licences: str
    terms: str


def data_use_terms(restricted: Iterable[str]) -> DataUseTerms:
    """What the card and the export's refusal say of the restricted sources ``restricted`` (source keys)."""
    known = [card_texts()["sources"][k] for k in restricted]
    return DataUseTerms(", ".join(s["name"] for s in known), ", ".join(sorted({s["licence"] for s in known})),
                        ", ".join(sorted({s["terms"] for s in known})))


def schema_digest() -> str:
    """A hash of the columns and types of the tables the export reads and writes."""
    parts = [f"{table}.{name}:{column.dtype}" for table in (*READ_TABLES, *WRITTEN_TABLES)
             for name, column in schemas.get(table).columns.items()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if cell is None else str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _counts(trajectories: pl.DataFrame, samples: pl.DataFrame, keys: list[str]) -> list[tuple]:
    """Episodes and step samples per value of ``keys`` (trajectory columns), sorted by them."""
    per_sample = samples.select("episode_id").join(trajectories.select("episode_id", *keys), on="episode_id")
    episodes = trajectories.group_by(keys).agg(pl.len().alias("episodes"))
    sampled = per_sample.group_by(keys).agg(pl.len().alias("samples"))
    joined = episodes.join(sampled, on=keys, how="left", nulls_equal=True).fill_null(0).sort(keys, nulls_last=True)
    return list(joined.iter_rows())


def render(trajectories: pl.DataFrame, samples: pl.DataFrame, excluded: Mapping[str, int], min_score: float) -> str:
    """The card of an export made of ``trajectories`` and ``samples`` (``excluded``: episodes without
    samples, by reason)."""
    texts = card_texts()
    origins = trajectories.select("source", "dataset").unique()
    keys = sorted({source_key(s, d) for s, d in origins.iter_rows()})
    restricted = restricted_origins(trajectories)
    licences = table(["source", "name", "licence", "terms", "where"],
                     ([k, *(texts["sources"][k][f] for f in ("name", "licence", "terms", "url"))] for k in keys))
    runs = (trajectories.select("run_id", "doctor", "doctor_model", "patient_simulator", "protocol", "condition")
            .unique().sort("run_id"))
    per_run = {run: (episodes, steps) for run, episodes, steps in _counts(trajectories, samples, ["run_id"])}
    return _template("dataset_card.md").format(
        data_use=_data_use(restricted) if restricted else "",
        trajectories=trajectories.height, samples=samples.height, min_score=min_score,
        split_table=table(["split", "episodes", "step samples"], _counts(trajectories, samples, ["split"])),
        source_table=table(["source", "dataset", "episodes", "step samples"],
                           _counts(trajectories, samples, ["source", "dataset"])),
        run_table=table(["run", "doctor", "doctor model", "patient simulator", "protocol", "condition", "episodes",
                         "step samples"], (row + per_run[row[0]] for row in runs.iter_rows())),
        exclusion_table=table(["reason", "episodes", "meaning"],
                              ([reason, excluded.get(reason, 0), meaning]
                               for reason, meaning in texts["exclusions"].items())),
        licence_table=licences, version=version("clinverse"), schema_digest=schema_digest())


def _data_use(restricted: list[str]) -> str:
    return _template("data_use.md").format(**asdict(data_use_terms(restricted)))
