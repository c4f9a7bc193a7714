"""The report's figures: matplotlib (no pyplot, so no global figure state or GUI backend) saved as SVG
for inlining in the page. Text stays text (``svg.fonttype: none``), ``$`` in a label is literal
(``text.parse_math`` off), and the SVG carries no date, creator or random ids: its ids are hashed
with a salt per plot, so the same frames give the same bytes and two plots' ids never collide.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from contextlib import contextmanager
from itertools import cycle

import numpy as np
import polars as pl
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

STYLE = {"svg.fonttype": "none", "text.parse_math": False, "font.size": 8, "axes.titlesize": 9,
         "axes.spines.top": False, "axes.spines.right": False, "legend.frameon": False}
NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}
PALETTE = [to_hex(c) for c in ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                               "#7f7f7f", "#bcbd22", "#17becf")]
LINESTYLES = ("-", "--", ":", "-.")
ACTION_COLORS = {"ASK": "#1f77b4", "REQUEST_TEST": "#2ca02c", "CALL_MDT": "#9467bd", "FINALIZE": "#ff7f0e",
                 "ERROR": "#d62728"}
# Prolog and namespace declarations are for standalone files; an SVG inlined in HTML needs none.
PROLOG = re.compile(r"\A.*?(?=<svg)", re.DOTALL)
NAMESPACES = re.compile(r' xmlns(:xlink)?="[^"]*"')
# matplotlib's readable group ids (figure_1, axes_1, ...) repeat in every figure; nothing refers to them.
GROUP_IDS = re.compile(r' id="[A-Za-z][A-Za-z0-9.]*_\d+"')
MISSING_LEVEL = "(none)"

Labels = dict[str, str]


@contextmanager
def _style(name: str):
    with rc_context(STYLE | {"svg.hashsalt": f"clinverse-report-{name}", "svg.id": f"plot-{name}"}):
        yield


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=NO_METADATA, bbox_inches="tight")
    text = GROUP_IDS.sub("", NAMESPACES.sub("", PROLOG.sub("", buffer.getvalue())))
    return text.replace("xlink:href=", "href=").strip()


def arm_styles(arms: Sequence[str]) -> dict[str, dict[str, str]]:
    """A colour and line style per arm, in sorted order, so an arm looks the same in every plot."""
    styles = cycle([(ls, c) for ls in LINESTYLES for c in PALETTE])
    return {arm: {"color": c, "linestyle": ls} for arm, (ls, c) in zip(sorted(arms), styles)}


def _whole_numbers() -> MaxNLocator:
    """Ticks on turns and stages only, even where there is a single one."""
    return MaxNLocator(integer=True, min_n_ticks=1)


def _legend(figure: Figure, axes: Axes) -> None:
    handles, labels = axes.get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 5))


def conditions_plot(conditions: pl.DataFrame, endpoints: Sequence[str], labels: Labels) -> str:
    """Mean and 95 % interval per arm, one panel per endpoint."""
    arms = sorted(conditions["arm"].unique())
    styles = arm_styles(arms)
    with _style("conditions"):
        figure = Figure(figsize=(2.2 * len(endpoints), 0.9 + 0.28 * len(arms)), layout="constrained")
        panels = figure.subplots(1, len(endpoints), sharey=True, squeeze=False)[0]
        for axes, endpoint in zip(panels, endpoints):
            part = conditions.filter(pl.col("endpoint") == endpoint)
            for y, arm in enumerate(arms):
                row = part.filter(pl.col("arm") == arm)
                if not row.height or row["mean"][0] is None:
                    continue
                mean, low, high = row["mean"][0], row["ci_low"][0], row["ci_high"][0]
                error = [[mean - low], [high - mean]] if low is not None else None
                axes.errorbar([mean], [y], xerr=error, fmt="o", color=styles[arm]["color"], capsize=3, markersize=4)
            axes.set_title(labels.get(endpoint, endpoint))
            axes.set_yticks(range(len(arms)), arms)
            axes.set_ylim(len(arms) - 0.5, -0.5)
            axes.grid(axis="x", linewidth=0.4, alpha=0.5)
        return _svg(figure)


def _line_panels(name: str, frame: pl.DataFrame, x: str, panels: Sequence[str], labels: Labels,
                 ylim: tuple[float, float] | None = None) -> str:
    """One panel per column of ``panels`` over ``x``, a line per arm."""
    styles = arm_styles(frame["arm"].unique().to_list())
    with _style(name):
        figure = Figure(figsize=(4.2 * len(panels), 3.2), layout="constrained")
        axes_row = figure.subplots(1, len(panels), squeeze=False)[0]
        for axes, column in zip(axes_row, panels):
            for arm, style in styles.items():
                part = frame.filter(pl.col("arm") == arm).sort(x)
                axes.plot(part[x].to_list(), part[column].to_list(), marker="o", markersize=3, label=arm, **style)
            axes.set_title(labels.get(column, column))
            axes.set_xlabel(labels.get(x, x))
            if ylim:
                axes.set_ylim(*ylim)
            axes.xaxis.set_major_locator(_whole_numbers())
            axes.grid(linewidth=0.4, alpha=0.5)
        _legend(figure, axes_row[0])
        return _svg(figure)


def stages_plot(stages: pl.DataFrame, endpoints: Sequence[str], labels: Labels) -> str:
    return _line_panels("stages", stages, "stage", endpoints, labels)


def turns_plot(turns: pl.DataFrame, labels: Labels) -> str:
    return _line_panels("turns", turns, "turn", ("icr_share", "dca_share"), labels, ylim=(0.0, 1.02))


def actions_plot(actions: pl.DataFrame, labels: Labels) -> str:
    """Stacked bars of the doctor's actions per turn, one panel per arm."""
    arms = sorted(actions["arm"].unique())
    columns = min(3, len(arms))
    rows = -(-len(arms) // columns)
    with _style("actions"):
        figure = Figure(figsize=(3.3 * columns, 0.6 + 2.3 * rows), layout="constrained")
        grid = figure.subplots(rows, columns, squeeze=False)
        for axes in grid.flat[len(arms):]:
            axes.set_visible(False)
        for axes, arm in zip(grid.flat, arms):
            part = actions.filter(pl.col("arm") == arm)
            turns = sorted(part["turn"].unique())
            bottom = np.zeros(len(turns))
            for action, color in ACTION_COLORS.items():
                counts = (pl.DataFrame({"turn": turns}, schema={"turn": part.schema["turn"]})
                          .join(part.filter(pl.col("action") == action), on="turn", how="left")
                          ["count"].fill_null(0).to_numpy())
                axes.bar(turns, counts, bottom=bottom, color=color, width=0.8, label=action)
                bottom += counts
            axes.set_title(arm)
            axes.set_xlabel(labels.get("turn", "turn"))
            axes.xaxis.set_major_locator(_whole_numbers())
        _legend(figure, grid.flat[0])
        return _svg(figure)


def _grouped_bars(name: str, frame: pl.DataFrame, category: str, series: str, value: str, labels: Labels,
                  colors: dict[str, str], horizontal: bool = False) -> str:
    """Bars of ``value`` per ``category`` (in first-seen order), one bar per ``series`` in each group."""
    categories = frame[category].unique(maintain_order=True).to_list()
    names = list(colors)
    width = 0.8 / len(names)
    size = (7.5, 0.8 + 0.14 * len(categories) * len(names)) if horizontal else (max(5.0, 1.2 * len(categories)), 3.4)
    with _style(name):
        figure = Figure(figsize=size, layout="constrained")
        axes = figure.subplots()
        for i, series_name in enumerate(names):
            part = pl.DataFrame({category: categories}).join(frame.filter(pl.col(series) == series_name),
                                                             on=category, how="left")
            positions = np.arange(len(categories)) + (i - (len(names) - 1) / 2) * width
            values = part[value].cast(pl.Float64).fill_null(np.nan).to_numpy()
            bars = axes.barh if horizontal else axes.bar
            bars(positions, values, width, color=colors[series_name], label=series_name)
        if horizontal:
            axes.set_yticks(range(len(categories)), categories)
            axes.set_ylim(len(categories) - 0.5, -0.5)
            axes.set_xlabel(labels.get(value, value))
            axes.grid(axis="x", linewidth=0.4, alpha=0.5)
        else:
            axes.set_xticks(range(len(categories)), categories, rotation=20, ha="right")
            axes.set_ylabel(labels.get(value, value))
            axes.grid(axis="y", linewidth=0.4, alpha=0.5)
        _legend(figure, axes)
        return _svg(figure)


def weights_plot(costs: pl.DataFrame, labels: Labels) -> str:
    """Mean U per arm under each cost-weight setting."""
    colors = {arm: style["color"] for arm, style in arm_styles(costs["group"].unique().to_list()).items()}
    return _grouped_bars("weights", costs, "setting", "group", "mean_u", labels, colors)


def clinlab_plot(exams: pl.DataFrame, labels: Labels) -> str:
    """MAPE per lab of ClinLab against the population median."""
    colors = dict(zip(sorted(exams["predictor"].unique()), PALETTE))
    return _grouped_bars("clinlab", exams.sort("exam_name"), "exam_name", "predictor", "mape", labels, colors,
                         horizontal=True)


def stress_plot(stress: pl.DataFrame, labels: Labels) -> str:
    """Disclosure and refusal rate per configuration of the patient simulator."""
    long = stress.unpivot(on=["disclosure_rate", "refusal_rate"], index="configuration", variable_name="rate")
    colors = {"disclosure_rate": PALETTE[3], "refusal_rate": PALETTE[0]}
    return _grouped_bars("stress", long, "configuration", "rate", "value", labels, colors)


def subgroups_plot(subgroups: pl.DataFrame, endpoint: str, labels: Labels) -> str:
    """Heat maps of ``endpoint`` (one in [0, 1]) per subgroup level (rows) and arm (columns), values written in."""
    names = subgroups["subgroup"].unique(maintain_order=True).to_list()
    arms = sorted(subgroups["group"].unique())
    frame = subgroups.with_columns(pl.col("level").fill_null(MISSING_LEVEL))
    levels = {n: frame.filter(pl.col("subgroup") == n)["level"].unique(maintain_order=True).to_list() for n in names}
    with _style("subgroups"):
        figure = Figure(figsize=(1.6 + 0.9 * len(arms), 0.6 + sum(0.24 * len(v) + 0.5 for v in levels.values())),
                        layout="constrained")
        panels = figure.subplots(len(names), 1, squeeze=False, height_ratios=[len(levels[n]) + 1 for n in names])
        for axes, name in zip(panels[:, 0], names):
            part = frame.filter(pl.col("subgroup") == name)
            cells = np.full((len(levels[name]), len(arms)), np.nan)
            for row in part.iter_rows(named=True):
                cells[levels[name].index(row["level"]), arms.index(row["group"])] = row[endpoint]
            axes.pcolormesh(np.ma.masked_invalid(cells), cmap="viridis", vmin=0.0, vmax=1.0)
            for (i, j), value in np.ndenumerate(cells):
                if not np.isnan(value):
                    axes.text(j + 0.5, i + 0.5, f"{value:.2f}", ha="center", va="center", fontsize=7,
                              color="black" if value > 0.6 else "white")
            axes.set_xticks(np.arange(len(arms)) + 0.5, arms)
            axes.set_yticks(np.arange(len(levels[name])) + 0.5, levels[name])
            axes.set_ylim(len(levels[name]), 0)
            axes.set_title(f"{labels.get(endpoint, endpoint)} by {labels.get(name, name)}")
        return _svg(figure)

