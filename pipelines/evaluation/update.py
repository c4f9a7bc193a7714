"""The update protocol's windows and backward transfer (MedEvoEval section 5.3, Appendix C.4, C.5
and D.5; data-contract.md, "BWT").

Windows. The stream's stages fall into named windows (data/protocols.yaml: pre, update and post,
as MedEvoEval's T1-T4, T5-T6 and T7-T10), each a half-open range of the stream's length: stage s
of N lies in the window holding its midpoint (s + 0.5) / N, so ten stages split 4 / 2 / 4 and
three stages 1 / 1 / 1. The cases of the window named :data:`SHIFTED` are the ones the protocol's
shift is played on.

Views. So that the paired statistics can compare arms within a window, every episode of a windowed
protocol is also labelled ``<condition>/<window>`` (``G1/pre``; with the LLM doctor's model after
it, ``G1/pre@glm-5``), and every episode of an arm BWT compares also ``<condition>/earlier`` when
its stage is before the last (:data:`EARLIER`): data/statistics.yaml names those labels.

BWT(Z) = 1 / (K - 1) * sum over the earlier stages j of (A_{K,j} - A_{j,j}): A_{j,j} is the mean of
Z over the episodes the online arm (G1) played in stage j, A_{K,j} the mean over the same cases
played again after the last stage K by the final snapshot (G1K: the online arm's final bank,
frozen). The paired test of ``G1K/earlier vs G1/earlier`` is Table 24's (a record-level mean
difference, equal to BWT when the earlier stages are of one size).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipelines.evaluation.stats import STAGE

SHIFTED = "update"  # the window the protocol's shift is played in
EARLIER = "earlier"  # the view of the stages before the last (BWT's j < K)
Windows = Mapping[str, tuple[float, float]]


def window_of(stage: int, stages: int, windows: Windows) -> str | None:
    """The window holding stage ``stage`` of ``stages`` (None: none does)."""
    middle = (stage + 0.5) / stages
    return next((name for name, (low, high) in windows.items() if low <= middle < high), None)


def check_windows(windows: Windows, stages: int) -> None:
    """Every window holds at least one of ``stages`` stages (else its comparison would be empty)."""
    empty = [w for w in windows if all(window_of(s, stages, windows) != w for s in range(stages))]
    if empty:
        raise ValueError(f"{stages} stages leave the window(s) {', '.join(empty)} without a stage: play more stages")


def _view(suffix: pl.Expr) -> pl.Expr:
    """``<condition><suffix>``, with the doctor model after it as arm keys have it."""
    base = pl.col("condition") + suffix
    return pl.when(pl.col("doctor_model").is_null()).then(base).otherwise(base + "@" + pl.col("doctor_model"))


def with_views(episodes: pl.DataFrame, label: str, windows: Windows, stages: int,
               earlier: tuple[str, ...] = ()) -> pl.DataFrame:
    """``episodes`` (with ``condition``, ``doctor_model`` and ``stage``) and, appended, one row per
    episode and window view, and per episode of the conditions ``earlier`` before the last stage,
    their ``label`` the view's (module docstring)."""
    views = [episodes]
    if windows:
        named = pl.DataFrame([(s, w) for s in range(stages) if (w := window_of(s, stages, windows)) is not None],
                             schema={STAGE: episodes.schema[STAGE], "_window": pl.Utf8}, orient="row")
        views.append(episodes.join(named, on=STAGE).with_columns(_view("/" + pl.col("_window")).alias(label))
                     .drop("_window"))
    if earlier:
        last = episodes.group_by("run_id").agg(pl.col(STAGE).max().alias("_last"))
        before = episodes.join(last, on="run_id").filter(pl.col("condition").is_in(list(earlier))
                                                         & (pl.col(STAGE) < pl.col("_last")))
        views.append(before.with_columns(_view(pl.lit("/" + EARLIER)).alias(label)).drop("_last"))
    return pl.concat(views)


def bwt(frame: pl.DataFrame, endpoint: str, final: str, online: str, label: str = "condition") -> tuple[float, int]:
    """BWT of ``endpoint`` (module docstring) over ``frame``'s episodes (``label``, ``stage`` and
    the endpoint), and the number of earlier stages it averages; NaN without one. The last stage
    is the online arm's last."""
    rows = frame.filter(pl.col(label).is_in([final, online]) & pl.col(STAGE).is_not_null())
    last = rows.filter(pl.col(label) == online)[STAGE].max()
    if last is None:
        return float("nan"), 0
    means = (rows.filter(pl.col(STAGE) < last).group_by(label, STAGE)
             .agg(pl.col(endpoint).cast(pl.Float64).mean()).pivot(on=label, index=STAGE, values=endpoint))
    if final not in means.columns or online not in means.columns:
        return float("nan"), 0
    paired = means.drop_nulls([final, online])
    if not paired.height:
        return float("nan"), 0
    return float((paired[final] - paired[online]).mean()), paired.height
