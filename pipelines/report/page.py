"""The report page: :func:`render_report` turns the summaries into one self-contained HTML file (styles
inline, plots as inline SVG, no script, nothing fetched), :func:`write_report` writes a warehouse's.

The skeleton is ``templates/page.html`` and ``templates/section.html`` (``string.Template``), the
wording ``data/report.yaml``; every text that comes from the data is escaped with ``html.escape``.
A section whose tables are all absent or empty shows its ``missing`` message instead.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any

import polars as pl

from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.report.summaries import ENDPOINTS, STAGE_ENDPOINTS, SUMMARIES, report_summaries
from pipelines.warehouse import Warehouse

PACKAGE = "pipelines.report"
WORDING = "data/report.yaml"
CONDITION_PLOT_ENDPOINTS = ("score_s", "utility_u", "icr", "dca")
SUBGROUP_PLOT_ENDPOINT = "score_s"
LAYOUTS = ("rows", "intervals")
CODE = re.compile(r"`([^`]+)`")

Summaries = Mapping[str, pl.DataFrame]
# plot name -> (the summary it draws, the pipelines.report.plots function, its arguments before the
# labels); the plots module (matplotlib, about 0.6 s to import) is imported when a page is drawn.
PLOTS: dict[str, tuple[str, str, tuple]] = {
    "conditions": ("conditions", "conditions_plot", (CONDITION_PLOT_ENDPOINTS,)),
    "stages": ("stages", "stages_plot", (STAGE_ENDPOINTS,)),
    "turns": ("turns", "turns_plot", ()),
    "actions": ("actions", "actions_plot", ()),
    "weights": ("weight_costs", "weights_plot", ()),
    "subgroups": ("subgroups", "subgroups_plot", (SUBGROUP_PLOT_ENDPOINT,)),
    "clinlab": ("clinlab_exams", "clinlab_plot", ()),
    "stress": ("stress", "stress_plot", ()),
}


@dataclass(frozen=True)
class TableSpec:
    summary: str
    layout: str


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    explains: str
    missing: str
    tables: tuple[TableSpec, ...]
    plots: tuple[str, ...]


@dataclass(frozen=True)
class Wording:
    title: str
    intro: str
    fold_rows: int
    labels: dict[str, str]
    sections: tuple[Section, ...]


@cache
def wording() -> Wording:
    """``data/report.yaml``, checked: known summaries, layouts and plots, unique section ids."""
    data = yaml_mapping(PACKAGE, WORDING, ("title", "intro", "fold_rows", "labels", "sections"))
    sections = []
    for entry in data["sections"]:
        where = f"section {entry.get('id')!r}"
        if set(entry) - {"id", "title", "explains", "missing", "tables", "plots"} or "tables" not in entry:
            raise DataFileError(WORDING, where, "", "expected id, title, explains, missing, tables and optional plots")
        tables = tuple(TableSpec(t["summary"], t.get("layout", "rows")) for t in entry["tables"])
        for table in tables:
            if table.summary not in SUMMARIES or table.layout not in LAYOUTS:
                raise DataFileError(WORDING, where, "tables", f"unknown summary {table.summary!r} or layout "
                                    f"{table.layout!r}; summaries: {', '.join(SUMMARIES)}; layouts: {', '.join(LAYOUTS)}")
        unknown = [p for p in entry.get("plots", ()) if p not in PLOTS]
        if unknown:
            raise DataFileError(WORDING, where, "plots", f"unknown plots {unknown}; known: {', '.join(PLOTS)}")
        sections.append(Section(str(entry["id"]), str(entry["title"]), str(entry["explains"]), str(entry["missing"]),
                                tables, tuple(entry.get("plots", ()))))
    if len({s.id for s in sections}) != len(sections):
        raise DataFileError(WORDING, "", "sections", "section ids must be unique")
    return Wording(str(data["title"]), str(data["intro"]), int(data["fold_rows"]),
                   {str(k): str(v) for k, v in data["labels"].items()}, tuple(sections))


@cache
def _template(name: str) -> Template:
    return Template((files(PACKAGE) / "templates" / name).read_text(encoding="utf-8"))


def prose(text: str) -> str:
    """Escaped text with `backticks` set as code."""
    return CODE.sub(r"<code>\1</code>", html.escape(text))


def cell(value: Any) -> str:
    """A table cell's text: empty for null, floats to three decimals (tiny ones in e-notation)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.2e}" if value != 0 and abs(value) < 1e-3 else f"{value:.3f}"
    if isinstance(value, list):
        return ", ".join(cell(v) for v in value)
    return str(value)


def _is_number(dtype: pl.DataType) -> bool:
    return dtype.is_numeric() and dtype != pl.Boolean


def rows_table(frame: pl.DataFrame, caption: str, fold: int) -> str:
    """Every row and column of ``frame``; over ``fold`` rows it is folded in a ``<details>``."""
    numeric = [_is_number(dtype) for dtype in frame.schema.values()]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    body = "\n".join("<tr>" + "".join(f'<td class="number">{html.escape(cell(v))}</td>' if n
                                      else f"<td>{html.escape(cell(v))}</td>" for v, n in zip(row, numeric)) + "</tr>"
                     for row in frame.iter_rows())
    table = (f'<div class="table"><table><caption>{html.escape(caption)}</caption>\n'
             f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table></div>")
    if frame.height > fold:
        return f"<details><summary>{html.escape(caption)}: {frame.height} rows</summary>\n{table}\n</details>"
    return table


def interval_table(conditions: pl.DataFrame, labels: dict[str, str]) -> pl.DataFrame:
    """The ``conditions`` summary one row per arm, each endpoint as ``mean [low, high]``."""
    text = pl.format("{} [{}, {}]", *(pl.col(c).map_elements(cell, return_dtype=pl.Utf8)
                                      for c in ("mean", "ci_low", "ci_high")))
    text = pl.when(pl.col("ci_low").is_null()).then(pl.col("mean").map_elements(cell, return_dtype=pl.Utf8)) \
        .otherwise(text)
    wide = (conditions.with_columns(text.alias("value"))
            .pivot(on="endpoint", index=["arm", "doctor", "runs"], values="value"))
    episodes = conditions.group_by("arm").agg(pl.col("n").max().alias("episodes"))
    present = [e for e in ENDPOINTS if e in wide.columns]
    return (wide.join(episodes, on="arm").select("arm", "doctor", "runs", "episodes", *present)
            .rename({e: labels.get(e, e) for e in present}).sort("arm"))


def _has_data(section: Section, summaries: Summaries) -> bool:
    return any(summaries.get(t.summary, pl.DataFrame()).height for t in section.tables)


def _section_body(section: Section, summaries: Summaries, words: Wording) -> str:
    if not _has_data(section, summaries):
        return f'<p class="missing">{prose(section.missing)}</p>'
    from pipelines.report import plots

    parts = []
    for name in section.plots:
        summary, drawer, args = PLOTS[name]
        if summaries.get(summary, pl.DataFrame()).height:
            svg = getattr(plots, drawer)(summaries[summary], *args, words.labels)
            parts.append(f'<figure class="plot" data-plot="{name}">\n{svg}\n</figure>')
    for spec in section.tables:
        frame = summaries.get(spec.summary)
        if frame is None or not frame.height:
            continue
        shown = interval_table(frame, words.labels) if spec.layout == "intervals" else frame
        parts.append(rows_table(shown, spec.summary, words.fold_rows))
    return "\n".join(parts)


def render_report(summaries: Summaries) -> str:
    """The whole page of :func:`~pipelines.report.summaries.report_summaries`' frames."""
    words = wording()
    with_data = [s for s in words.sections if _has_data(s, summaries)]
    nav = "\n".join(f'<li><a href="#{s.id}" class="{"has-data" if s in with_data else "empty"}">'
                    f"{html.escape(s.title)}</a></li>" for s in words.sections)
    sections = "\n".join(_template("section.html").substitute(
        id=s.id, state="has-data" if s in with_data else "missing", title=html.escape(s.title),
        explains=prose(s.explains), body=_section_body(s, summaries, words)) for s in words.sections)
    css = (files(PACKAGE) / "templates" / "report.css").read_text(encoding="utf-8")
    return _template("page.html").substitute(
        title=html.escape(words.title), intro=prose(words.intro), css=css, nav=nav, sections=sections,
        coverage=html.escape(f"{len(with_data)} of {len(words.sections)} sections have data."))


@dataclass(frozen=True)
class ReportWritten:
    path: Path
    sections: int
    with_data: int
    summaries: Summaries  # what the page shows, for callers that also publish it (the report asset)


def write_report(home: Path | str, out: Path | str) -> ReportWritten:
    """Render the warehouse at ``home`` into ``out`` (its folder made if needed)."""
    summaries = report_summaries(Warehouse(home))
    path = Path(out).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(summaries), encoding="utf-8")
    sections = wording().sections
    return ReportWritten(path, len(sections), sum(_has_data(s, summaries) for s in sections), summaries)
