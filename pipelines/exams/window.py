"""The exam window of a MIMIC-IV case: what the doctor can have when meeting the patient.

A result is the case's when it was **charted** within the window and **stored** (its result known:
``labevents.storetime``, ``microbiologyevents.storetime``, ``chartevents.storetime``) before the
window closes, so a culture finalised days later is not a result. The window of a case is

* closes: the index time plus ``hours`` (``CLINVERSE_EXAM_WINDOW_HOURS``, default 24), or at discharge
  when the stay is shorter (a result stored after the patient left was never part of the encounter);
  the index time is the case's ``index_time`` where the cases carry it, else the hospital ``admittime``;
* opens: at the ED registration (``admissions.edregtime``) when the admission came through the
  emergency department, else ``lookback_hours`` (``CLINVERSE_EXAM_LOOKBACK_HOURS``, default 6)
  before the index time: the results of the same encounter before the admission order.

Results charted before ``admittime`` may carry no ``hadm_id`` (ED labs): they count when they
belong to the same patient and lie in the window; a result of another admission never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import polars as pl

from pipelines.config import Settings

COLUMNS = ("case_id", "subject_id", "hadm_id", "admittime", "index_time", "window_start", "window_end")


@dataclass(frozen=True)
class ExamWindow:
    hours: float = Settings.exam_window_hours
    lookback_hours: float = Settings.exam_lookback_hours

    @classmethod
    def of(cls, settings: Settings) -> ExamWindow:
        return cls(settings.exam_window_hours, settings.exam_lookback_hours)

    def bounds(self, cases: pl.DataFrame, ed_registration: pl.DataFrame) -> pl.DataFrame:
        """:data:`COLUMNS` per case, from the cases (``case_id, subject_id, hadm_id, admittime, dischtime``
        and ``index_time`` if known) and ``hadm_id, edregtime`` of the admissions."""
        index = pl.coalesce("index_time", "admittime") if "index_time" in cases.columns else pl.col("admittime")
        return (
            cases.join(ed_registration.select("hadm_id", "edregtime"), on="hadm_id", how="left")
            .with_columns(index.alias("index_time"))
            .with_columns(
                pl.when(pl.col("edregtime").is_not_null())
                .then(pl.min_horizontal("edregtime", "index_time"))  # a registration after admission is a slip
                .otherwise(pl.col("index_time") - timedelta(hours=self.lookback_hours)).alias("window_start"),
                pl.min_horizontal(pl.col("index_time") + timedelta(hours=self.hours), "dischtime").alias("window_end"),
            )
            .select(COLUMNS)
        )
