"""Re-judging stored traces without rerunning an episode (MedEvoEval Appendix E.3; issue 13 §3):
an alternative judge's grading of a run against the run's own scores, and a same-judge repeat
(the same judge twice over the same traces: for an LLM judge that samples, its self-consistency).

Episodes are never played again: a judging reads the run's ``episodes`` and ``episode_events``,
its conditions (``runs.config``) and the references, exactly as :func:`pipelines.evaluation.runs.score_run`
does, and writes its rows to ``judged_scores`` (partition = run id; one judging replaces its own
earlier rows) so that the run's ``episode_scores``, which the statistics and the report read, stay
as they were. Each comparison is one ``judge_agreement`` row (the statistics of
:func:`pipelines.evaluation.agreement.alt_judge`). A judging is labelled by its judge
(:func:`judging_label`: ``offline``, ``llm:<model>``), a repeat's two passes by ``#1`` and ``#2``.

The LLM judge is :class:`~pipelines.evaluation.llm_judge.LLMJudge` on the ``judge`` role of an
:class:`~pipelines.episodes.llm.config.LLMConfig` (by default from ``CLINVERSE_LLM_*``), behind the
same egress guard: a run with MIMIC- or SICdb-derived cases is refused before anything is sent to
a host that may not receive it.
"""

from __future__ import annotations

import polars as pl

import schemas
from pipelines.episodes.llm.config import LLMConfig
from pipelines.evaluation.agreement import alt_judge
from pipelines.evaluation.judges import Judge, OfflineJudge
from pipelines.evaluation.llm_judge import ROLE, LLMJudge
from pipelines.evaluation.reference import References
from pipelines.evaluation.runs import SCORES, references, run_conditions
from pipelines.evaluation.scores import score_traces, traces
from pipelines.warehouse import Warehouse

JUDGED = "judged_scores"
AGREEMENT = "judge_agreement"
JUDGES = ("offline", "llm")
STORED = SCORES  # the label of a run's own scores in judge_agreement


def make_judge(name: str, llm: LLMConfig | None = None, run_id: str = "rejudge") -> Judge:
    """The judge called ``name``: ``offline``, or ``llm`` on ``llm``'s judge role (default from the
    environment; an unconfigured judge role fails here)."""
    if name not in JUDGES:
        raise ValueError(f"no judge {name!r}; judges: {', '.join(JUDGES)}")
    if name == "offline":
        return OfflineJudge()
    return LLMJudge(llm if llm is not None else LLMConfig.from_env(), run_id=run_id)


def judging_label(judge: Judge) -> str:
    """What a judging by ``judge`` is called: its name, and for an LLM judge its model."""
    return f"{judge.name}:{judge.llm.role(ROLE).model}" if isinstance(judge, LLMJudge) else judge.name


def judge_run(warehouse: Warehouse, run_id: str, judge: Judge, label: str | None = None,
              refs: References | None = None) -> pl.DataFrame:
    """Grade the stored traces of ``run_id`` with ``judge`` and write them as the judging ``label``
    (default :func:`judging_label`) of the run's ``judged_scores``; returns its rows."""
    label = label or judging_label(judge)
    episodes = _require_run(warehouse, run_id)
    events = warehouse.read_partition("episode_events", run_id)
    scores = score_traces(traces(episodes, events), refs or references(warehouse),
                          {run_id: run_conditions(warehouse, run_id)}, judge)
    judged = schemas.conform(JUDGED, scores.with_columns(pl.lit(label).alias("judging")))
    kept = warehouse.read_partition(JUDGED, run_id).filter(pl.col("judging") != label)
    warehouse.write(JUDGED, pl.concat([kept, judged]), partition=run_id)
    return judged


def _require_run(warehouse: Warehouse, run_id: str) -> pl.DataFrame:
    """The run's episodes; a run without any is an error naming it."""
    episodes = warehouse.read_partition("episodes", run_id)
    if episodes.height == 0:
        raise KeyError(f"no episodes of run {run_id!r} in the warehouse at {warehouse.home}")
    return episodes


def record_agreement(warehouse: Warehouse, run_id: str, kind: str, first: str, first_scores: pl.DataFrame,
                     second: str, second_scores: pl.DataFrame) -> dict[str, object]:
    """The ``judge_agreement`` row of two gradings of the run, written (replacing that pair's row)."""
    row = {"run_id": run_id, "kind": kind, "first": first, "second": second,
           **alt_judge(first_scores, second_scores)}
    frame = schemas.conform(AGREEMENT, pl.DataFrame([row], schema=schemas.empty(AGREEMENT).schema))
    kept = warehouse.read_partition(AGREEMENT, run_id).filter((pl.col("first") != first) | (pl.col("second") != second))
    warehouse.write(AGREEMENT, pl.concat([kept, frame]), partition=run_id)
    return frame.row(0, named=True)


def alternative_judge(warehouse: Warehouse, run_id: str, judge: Judge, label: str | None = None,
                      refs: References | None = None) -> dict[str, object]:
    """``judge`` over the run's traces against the run's own ``episode_scores``."""
    _require_run(warehouse, run_id)
    stored = warehouse.read_partition(SCORES, run_id)
    if stored.height == 0:
        raise ValueError(f"run {run_id} has no {SCORES} to compare with: score it first (clinverse episodes scores "
                         "a run once the warehouse has rubrics)")
    label = label or judging_label(judge)
    judged = judge_run(warehouse, run_id, judge, label, refs)
    return record_agreement(warehouse, run_id, "alternative", STORED, stored, label, judged)


def repeat_judge(warehouse: Warehouse, run_id: str, judge: Judge, label: str | None = None,
                 refs: References | None = None) -> dict[str, object]:
    """``judge`` twice over the run's traces (``<label>#1``, ``<label>#2``) and their agreement."""
    label = label or judging_label(judge)
    refs = refs or references(warehouse)
    first, second = (judge_run(warehouse, run_id, judge, f"{label}#{n}", refs) for n in (1, 2))
    return record_agreement(warehouse, run_id, "repeat", f"{label}#1", first, f"{label}#2", second)


def rejudge(warehouse: Warehouse, run_id: str, judge: str, *, repeat: bool = False,
            llm: LLMConfig | None = None) -> dict[str, object]:
    """What `clinverse rejudge` does: the judge called ``judge`` (``offline`` or ``llm``) over the
    stored run, as a same-judge repeat or against the run's own scores; its agreement row."""
    chosen = make_judge(judge, llm, run_id=f"rejudge-{run_id}")
    return (repeat_judge if repeat else alternative_judge)(warehouse, run_id, chosen)
