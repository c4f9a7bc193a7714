"""Cases as episodes see them: the warehouse tables loaded once, split into role views per case.

:class:`CaseStore` reads ``cases``, ``information_units``, ``exam_results``, ``exam_catalog`` and
``profiles`` once (from a warehouse home or from frames, e.g. in tests) and groups the per-case
tables by ``case_id`` on first use, so building one case's views is a dictionary lookup. ClinLab
learns from more than the kept cases: :meth:`CaseStore.lab_rows` adds ``case_skeleton``'s
other candidates, whose first-window results ``exam_results`` holds as well (read when built).
:meth:`CaseStore.folds` deals the patients into cross-validation folds, for builds whose test split
is too small to compare doctors on (pipelines/episodes/crossval.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import starmap
from pathlib import Path

import polars as pl

import schemas
from pipelines import icd
from pipelines.episodes.views import (
    CatalogEntry,
    ExamCatalog,
    ExamResult,
    ExamView,
    ManagerView,
    PatientView,
    Profile,
    SpeechStyle,
    Unit,
)
from pipelines.warehouse import Warehouse

TABLES = ("cases", "information_units", "exam_results", "exam_catalog", "profiles")
SCORING_TABLES = ("case_rubrics", "case_exam_targets")  # read when built: the judge's reference (get_reward)
OPTIONAL_TABLES = (*SCORING_TABLES, "case_skeleton")  # read when built
LAB_TABLES = ("cases", "exam_results", "exam_catalog")  # what ClinLab reads of a store (CaseStore.lab_store)
# Cases per store of a cohort-wide pass in parts (CaseStore.parts_of). Each part reads its rows of
# every table, so small parts cost time: the judge's references at 32,000 generated admissions took
# 993 MB in parts of 5,000 (6 % slower), 902 MB in parts of 2,000 (40 % slower), 1,618 MB in one store.
CASES_PER_PART = 5000


@dataclass(frozen=True)
class EpisodeCase:
    """One case: what the doctor starts from, and the three views the roles are built from."""

    case_id: str
    split: str
    age: int | None
    sex: str | None
    presentation: str
    patient: PatientView
    exams: ExamView
    manager: ManagerView


@dataclass(frozen=True)
class LabRows:
    """A split's admissions as ClinLab reads them (:meth:`CaseStore.lab_rows`): ``people`` (case_id,
    age, sex) by case id, and ``results``, their first results of each exam (``case_id`` and the
    columns of :class:`ExamResult`) in case order."""

    people: pl.DataFrame
    results: pl.DataFrame


class CaseStore:
    def __init__(self, frames: Mapping[str, pl.DataFrame]):
        missing = [t for t in TABLES if t not in frames]
        if missing:
            raise KeyError(f"CaseStore needs the tables {missing}")
        self._frames = dict(frames)
        self.cases = _in_case_order(frames["cases"])
        self._built: dict[str, EpisodeCase] = {}

    @classmethod
    def from_home(cls, home: Path | str) -> CaseStore:
        return cls.from_warehouse(Warehouse(home))

    @classmethod
    def from_warehouse(cls, warehouse: Warehouse, case_ids: Collection[str] | None = None,
                       optional: Collection[str] = OPTIONAL_TABLES) -> CaseStore:
        """The warehouse's cases, or with ``case_ids`` only theirs (every per-case table's rows of
        them: a worker's share of a cohort-wide step, which then holds no more than its share).
        ``optional``: which of :data:`OPTIONAL_TABLES` to read where built (a step that needs none
        of them, such as the stress test or the step that writes the scoring tables, reads none)."""
        unknown = set(optional) - set(OPTIONAL_TABLES)
        if unknown:
            raise ValueError(f"not optional tables of a case store: {sorted(unknown)} (they are {OPTIONAL_TABLES})")
        return cls({table: _read(warehouse, table, case_ids)
                    for table in (*TABLES, *optional) if table in TABLES or warehouse.exists(table)})

    @classmethod
    def lab_store(cls, warehouse: Warehouse) -> CaseStore:
        """The store ClinLab learns from and is evaluated on (:meth:`lab_rows`): the tables it reads
        (:data:`LAB_TABLES`, ``case_skeleton`` where built) and the units and profiles, which it
        never reads, empty. It builds no case (no profile). At 32,000 generated admissions the
        units and profiles took 150 MB of the whole cohort's store."""
        frames = {table: _read(warehouse, table) for table in (*LAB_TABLES, "case_skeleton")
                  if table in LAB_TABLES or warehouse.exists(table)}
        return cls(frames | {table: schemas.empty(table).select(_READ.get(table, pl.all()))
                             for table in TABLES if table not in frames})

    @classmethod
    def parts_of(cls, warehouse: Warehouse, cases_per_part: int = CASES_PER_PART,
                 optional: Collection[str] = OPTIONAL_TABLES) -> StoreParts:
        """The warehouse's cases as stores of at most ``cases_per_part`` cases each, in case order
        (:class:`StoreParts`): a cohort-wide pass over them holds one part's tables at a time."""
        return StoreParts(warehouse, cases_per_part, tuple(optional))

    @staticmethod
    def case_ids_of(warehouse: Warehouse) -> list[str]:
        """:meth:`case_ids` of the whole warehouse's store, read without the rest of it."""
        return _in_case_order(warehouse.scan("cases").select("case_id").collect())["case_id"].to_list()

    @staticmethod
    def unit_texts_of(warehouse: Warehouse) -> list[str]:
        """:meth:`unit_texts` of the whole warehouse's store, read without the rest of it."""
        return warehouse.scan("information_units").select("text").collect()["text"].to_list()

    def case_ids(self, split: str | None = None) -> list[str]:
        cases = self.cases if split is None else self.cases.filter(pl.col("split") == split)
        return cases["case_id"].to_list()

    def lab_rows(self, split: str, results: pl.Expr | None = None) -> LabRows:
        """``split``'s kept cases and every other candidate admission of ``case_skeleton`` (when the
        store has it), by case id, with their first results that pass ``results`` (a filter on
        :meth:`first_results`' rows; default: every one), as columns: a cohort-wide pass (ClinLab's
        training and evaluation) makes no object per result. A candidate the curation excluded (no
        opening complaint, no evidence of its diagnosis) still has real first-window results: on the
        real MIMIC-IV demo with the ED module 120 train admissions against 26 kept cases, so ClinLab
        does not shift with the curation's rules. Splits are per patient, so no test patient's values
        reach training."""
        people = self.cases.select("case_id", "split", "age", "sex")
        skeleton = self._frames.get("case_skeleton")
        if skeleton is not None:
            people = pl.concat([people, skeleton.select(people.columns)], how="vertical_relaxed")
            people = people.unique("case_id", keep="first")
        people = people.filter(pl.col("split") == split).sort("case_id").select("case_id", "age", "sex")
        return LabRows(people, self.first_results(results).join(people, on="case_id", how="semi"))

    def folds(self, k: int) -> list[CaseStore]:
        """``k`` stores over the same tables, the ``i``-th with the ``i``-th fold of the patients as
        its test split and every other patient in train. Patients are ``case_skeleton``'s
        (source, patient_key), or the case itself where the store has no skeleton row for it; those
        with a kept case are dealt round-robin in the order of a hash of their key, then the others,
        so kept cases split as evenly as patients allow, and every candidate admission of a patient
        (what ClinLab learns from) goes with its patient."""
        skeleton = self._frames.get("case_skeleton")
        people = self.cases.select("case_id", "source", kept=pl.lit(True))
        keys = pl.DataFrame(schema={"case_id": pl.Utf8, "patient": pl.Utf8})
        if skeleton is not None:
            keys = skeleton.select("case_id", patient=pl.col("patient_key").cast(pl.Utf8))
            others = skeleton.join(people, on="case_id", how="anti").select("case_id", "source", kept=pl.lit(False))
            people = pl.concat([people, others])
        people = people.join(keys, on="case_id", how="left").select(
            "case_id", "kept", patient=pl.col("source") + ":" + pl.col("patient").fill_null(pl.col("case_id")))
        patients = people.group_by("patient").agg(pl.col("kept").any()).rows()
        kept_patients = sum(kept for _, kept in patients)
        if not 2 <= k <= kept_patients:
            raise ValueError(f"{k} folds: expected 2 to {kept_patients} (the patients with a kept case)")
        dealt = sorted(patients, key=lambda p: (not p[1], hashlib.sha256(p[0].encode()).hexdigest()))
        fold_of = {patient: i % k for i, (patient, _) in enumerate(dealt)}
        fold_of_case = {case_id: fold_of[patient] for case_id, _, patient in people.iter_rows()}

        def split(frame: pl.DataFrame, fold: int) -> pl.DataFrame:
            test = pl.col("case_id").replace_strict(fold_of_case, return_dtype=pl.Int64) == fold
            return frame.with_columns(split=pl.when(test).then(pl.lit("test")).otherwise(pl.lit("train")))

        return [CaseStore({**self._frames, "cases": split(self.cases, i),
                           **({"case_skeleton": split(skeleton, i)} if skeleton is not None else {})})
                for i in range(k)]

    def table(self, name: str) -> pl.DataFrame | None:
        """A table the store was given (such as ``case_rubrics``), None if it was not."""
        return self._frames.get(name)

    def unit_texts(self) -> list[str]:
        return self._frames["information_units"]["text"].to_list()

    @cached_property
    def catalog(self) -> ExamCatalog:
        rows = self._frames["exam_catalog"].sort("exam_name").select("exam_name", "kind", "aliases")
        return ExamCatalog(tuple(CatalogEntry(n, k, tuple(a or ())) for n, k, a in rows.iter_rows()))

    @cached_property
    def _rows(self) -> dict[str, dict]:
        return {row["case_id"]: row for row in self.cases.iter_rows(named=True)}

    @cached_property
    def _units(self) -> _ByCase:
        return _ByCase.of(self._frames["information_units"], UNIT_COLUMNS, ("ordinal",))

    @cached_property
    def _exams(self) -> _ByCase:
        return _ByCase.of(self._frames["exam_results"], EXAM_COLUMNS, EXAM_ORDER)

    @cached_property
    def _profiles(self) -> dict[str, dict]:
        return {row["case_id"]: row for row in self._frames["profiles"].iter_rows(named=True)}

    def each_case(self, case_ids: Iterable[str]) -> Iterator[EpisodeCase]:
        """The cases of ``case_ids``, each built as it is reached and not kept (:meth:`case` keeps
        them, for the episodes that replay a case): a cohort-wide pass holds one case at a time, not
        the views of every case of the cohort."""
        for case_id in case_ids:
            yield self._built.get(case_id) or self._case(case_id)

    def case(self, case_id: str) -> EpisodeCase:
        if case_id not in self._built:
            self._built[case_id] = self._case(case_id)
        return self._built[case_id]

    def _case(self, case_id: str) -> EpisodeCase:
        try:
            row = self._rows[case_id]
        except KeyError:
            raise KeyError(f"no case {case_id!r} in the store") from None
        return EpisodeCase(
            case_id=case_id,
            split=row["split"],
            age=row["age"],
            sex=row["sex"],
            presentation=row["presentation"],
            patient=self._patient_view(case_id),
            exams=self.exam_view(case_id),
            manager=_manager_view(row),
        )

    def exam_view(self, case_id: str) -> ExamView:
        """The case's exam view alone, for a pass that needs no other view (:meth:`case` builds all three)."""
        return ExamView(case_id, tuple(starmap(ExamResult, self._exams.rows(case_id))), self.catalog)

    def first_results(self, results: pl.Expr | None = None) -> pl.DataFrame:
        """Every case's first result of each exam, as :attr:`ExamView.by_name` holds them, of those
        that pass ``results`` (a filter on these rows; default: every one): ``case_id`` and the
        view's columns, in case order. Only the keys of the views' order (:func:`_in_view_order`)
        are sorted; the chosen rows are then taken from the table. A cohort-wide pass that reads
        only these (ClinLab's admissions) builds no view, and sorts no report text: at 32,000
        generated admissions the views' columns took 420 MB more, the whole table sorted 550 MB."""
        exams = self._frames["exam_results"]
        keys = _in_view_order(exams.with_row_index("_row"), ("_row",), EXAM_ORDER)
        rows = keys.unique(["case_id", "exam_name"], keep="first", maintain_order=True)["_row"]
        if results is not None:
            rows = rows.filter(exams.select(results).to_series().gather(rows))
        return exams.select("case_id", *EXAM_COLUMNS)[rows]

    def units(self, case_id: str) -> tuple[Unit, ...]:
        """The case's information units alone, in the patient view's order, for a pass that needs no view."""
        return tuple(starmap(Unit, self._units.rows(case_id)))

    def _patient_view(self, case_id: str) -> PatientView:
        units = self.units(case_id)
        p = self._profiles.get(case_id)
        if p is None:
            raise KeyError(f"case {case_id!r} has no profile")
        profile = Profile(p["openness"], p["conscientiousness"], p["extraversion"], p["agreeableness"],
                          p["neuroticism"], SpeechStyle.from_json(p["speech_style"]))
        return PatientView(case_id, units, profile)


@dataclass(frozen=True)
class StoreParts:
    """A warehouse's cases in consecutive parts, each part's store read from the warehouse when an
    iteration reaches it (:meth:`CaseStore.from_warehouse`) and dropped after: every iteration reads
    the parts again, so a pass that needs two (weights learned on the train split, then every case)
    iterates twice, holding one part at a time."""

    warehouse: Warehouse
    cases_per_part: int
    optional: tuple[str, ...]

    def __iter__(self) -> Iterator[CaseStore]:
        if self.cases_per_part < 1:
            raise ValueError(f"cases_per_part must be at least 1, not {self.cases_per_part}")
        ids = CaseStore.case_ids_of(self.warehouse)
        for start in range(0, len(ids), self.cases_per_part):
            yield CaseStore.from_warehouse(self.warehouse, ids[start : start + self.cases_per_part], self.optional)


def _read(warehouse: Warehouse, table: str, case_ids: Collection[str] | None = None) -> pl.DataFrame:
    """What a store reads of ``table``: the columns its views use (:data:`_READ`), of ``case_ids``' rows only where given."""
    frame = warehouse.scan(table).select(_READ.get(table, pl.all()))
    if case_ids is not None and "case_id" in frame.collect_schema():
        frame = frame.filter(pl.col("case_id").is_in(pl.Series(list(case_ids), dtype=pl.Utf8).implode()))
    return frame.collect()


def _in_case_order(cases: pl.DataFrame) -> pl.DataFrame:
    return cases.sort("case_id")


# The columns a view is built from, in the order of its fields (Unit, ExamResult).
UNIT_COLUMNS = ("unit_id", "ordinal", "category", "text", "negated", "importance", "disclosed")
EXAM_COLUMNS = ("exam_name", "kind", "value_num", "value_text", "unit", "ref_low", "ref_high", "abnormal", "origin")
EXAM_ORDER = ("exam_name", "offset_hours")  # repeated measurements: earliest first, the value the lab reports

# What the store reads of the per-case tables; their other columns stay on disk.
_READ = {"information_units": ["case_id", *UNIT_COLUMNS], "exam_results": ["case_id", "offset_hours", *EXAM_COLUMNS]}


@dataclass(frozen=True)
class _ByCase:
    """A per-case table kept columnar: its rows in case order, only the columns a view reads, and
    where each case's rows start and how many there are. A case's rows are read when its view is
    built: a dict per row, made up front, held about nine times the columns' size (400 MB for 43 MB
    at 5,000 generated admissions) for the whole of a cohort-wide step."""

    frame: pl.DataFrame
    spans: dict[str, tuple[int, int]]

    @classmethod
    def of(cls, frame: pl.DataFrame, columns: tuple[str, ...], order: tuple[str, ...]) -> _ByCase:
        """``frame``'s ``columns``, in :func:`_in_view_order`."""
        frame = _in_view_order(frame, columns, order).with_row_index("_start")
        spans = frame.group_by("case_id", maintain_order=True).agg(pl.col("_start").first(), pl.len())
        return cls(frame.select(columns), {case: (start, n) for case, start, n in spans.iter_rows()})

    def rows(self, case_id: str) -> list[tuple]:
        start, n = self.spans.get(case_id, (0, 0))
        return self.frame.slice(start, n).rows()


def _in_view_order(frame: pl.DataFrame, columns: tuple[str, ...], order: tuple[str, ...]) -> pl.DataFrame:
    """``case_id``, ``order`` and ``columns`` of ``frame``, by case and then ``order`` (nulls last,
    ties in table order): the order of a case's rows in its view."""
    keys = ["case_id", *order]
    return frame.select(*dict.fromkeys([*keys, *columns])).sort(keys, nulls_last=True, maintain_order=True)


def _manager_view(row: dict) -> ManagerView:
    code = row["primary_icd10"]
    acceptable = tuple(row.get("acceptable_icd10") or ([code] if code else []))
    return ManagerView(
        case_id=row["case_id"],
        diagnosis_name=row["diagnosis_name"],
        acceptable_names=tuple(row["acceptable_names"] or ()),
        primary_icd10=code,
        primary_icd10_category=row["primary_icd10_category"],
        primary_icd10_block=row["primary_icd10_block"],
        primary_icd10_chapter=row["primary_icd10_chapter"],
        icd10_title=icd.icd10cm_info(code).title if code else None,
        acceptable_icd10=acceptable,
        secondary_icd10=tuple(row["secondary_icd10"] or ()),
    )
