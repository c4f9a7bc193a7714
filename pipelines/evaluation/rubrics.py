"""Rubrics per case (``case_rubrics``): the key points the judge grades a final output against.

Evidence (``kind = evidence``)
    * MedQA: the points of ``medqa_rubric`` (chief complaint, key history, abnormal findings);
    * otherwise: the case's ``key`` information units (up to ``max_units``, in the case's order),
      then its salient abnormal exams: the best-ranked abnormal exams that matter
      (``case_exam_targets``, up to ``max_exams``), written ``"<exam>: <value> <unit>"``.

Management (``kind = management``)
    * MIMIC-IV: the treatments begun in the admission's first ``hours`` hours
      (``mimic_prescriptions`` of the listed drug types, starting within ``hours`` of ``admittime``),
      leaving out the routine and prophylactic drugs ``data/rubrics.yaml`` lists and the case's
      home medications (a drug whose substance, its first word, a ``medication`` unit names): what
      is left is the management of the admission. One point per drug class (``data/synonyms.yaml``
      treatments: ceftriaxone and azithromycin are one ``antibiotic`` point) or per drug, at most
      ``max_points``, in order of the first start. ``hosp/procedures_icd`` is staged but its titles
      (``d_icd_procedures``) are not, so a procedure has no words to match and is not a point.
    * SICdb: its staged tables (cases, laboratory, references) record no treatment: no points.
    * MedQA: a diagnosis question has no management: no points.
    A case without management points has its plan weight redistributed when scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from functools import lru_cache

import polars as pl

import schemas
from pipelines.episodes.store import EXAM_COLUMNS, CaseStore
from pipelines.episodes.views import ExamResult, Unit
from pipelines.evaluation.exam_targets import exam_weights, ranked_targets
from pipelines.evaluation.params import RubricParams, rubric_params
from pipelines.evaluation.reference import grouped
from pipelines.evaluation.text import Words, fold, judge_words

# Cases whose rows are held as Python tuples before they become columns: at 32,000 generated
# admissions the whole cohort's rows held as tuples and dicts took 0.9 GB, against 84 MB as columns.
CASES_PER_FRAME = 2000


def first_day_prescriptions(provenance: pl.DataFrame | pl.LazyFrame, admissions: pl.DataFrame | pl.LazyFrame,
                            prescriptions: pl.DataFrame | pl.LazyFrame, params: RubricParams) -> pl.DataFrame:
    """The prescriptions begun in each MIMIC-IV case's first ``params.hours`` hours:
    ``case_id``, ``starttime``, ``drug``, ``route`` (earliest first). Lazy inputs (the warehouse's
    scans) are read for the columns and drug types used only."""
    window = timedelta(hours=params.hours)
    stays = provenance.lazy().filter(pl.col("source") == "mimic_iv").select("case_id", "hadm_id").join(
        admissions.lazy().select("hadm_id", "admittime"), on="hadm_id")
    return (prescriptions.lazy().filter(pl.col("drug_type").is_in(params.drug_types), pl.col("drug").is_not_null())
            .join(stays, on="hadm_id")
            .filter(pl.col("starttime") >= pl.col("admittime"), pl.col("starttime") < pl.col("admittime") + window)
            .select("case_id", "starttime", "drug", "route")
            .sort("case_id", "starttime", "drug", "route", nulls_last=True).collect())


def _exam_point(result: ExamResult) -> str:
    value = result.value_text if result.value_text is not None else (
        f"{result.value_num:g}" if result.value_num is not None else "abnormal")
    return f"{result.exam_name}: {value}{f' {result.unit}' if result.unit else ''}"


Point = tuple[str, str, str]  # key point, basis, source_ref


def evidence_points(units: Sequence[Unit], abnormal_targets: Sequence[ExamResult], medqa: list[dict],
                    params: RubricParams) -> list[Point]:
    """A case's evidence key points (module docstring) from its ``units``; ``abnormal_targets``: the
    first results of its abnormal exams that matter, best-ranked first; ``medqa``: its ``medqa_rubric`` rows."""
    if medqa:
        return [(r["key_point"], "medqa_rubric", r["source_ref"]) for r in sorted(medqa, key=lambda r: r["ordinal"])]
    keys = [(u.text, "key_unit", f"unit:{u.unit_id}") for u in units if u.importance == "key"]
    exams = [(_exam_point(r), "abnormal_exam", f"exam:{r.exam_name}") for r in abnormal_targets]
    return keys[: params.max_units] + exams[: params.max_exams]


@lru_cache(maxsize=16)  # one parameter set per build: its phrases are folded once, not per prescription
def _padded(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """The phrases folded, a space either side: whole words of a folded text padded likewise."""
    return tuple(f" {fold(phrase)} " for phrase in phrases)


def management_points(units: Sequence[Unit], prescriptions: Iterable[dict], words: Words,
                      params: RubricParams) -> list[Point]:
    """A case's management key points from its first-day prescriptions (module docstring); ``units``:
    its information units (its home medications)."""
    home = set(fold(" ".join(u.text for u in units if u.category == "medication")).split())
    routine = _padded(params.routine)
    groups: dict[str, list[str]] = {}  # class (or drug) -> drugs, in order of the first start
    for row in prescriptions:
        folded = fold(row["drug"])
        substance, padded = (folded.split()[0] if folded else ""), f" {folded} "
        if (not substance or substance in home or any(phrase in padded for phrase in routine)
                or (row["route"] or "") in params.prophylaxis.get(substance, ())):
            continue
        classes = sorted(words.of(row["drug"]) & words.treatments)
        drugs = groups.setdefault(classes[0] if classes else substance, [])
        if row["drug"] not in drugs:
            drugs.append(row["drug"])
    points = []
    for group, drugs in list(groups.items())[: params.max_points]:
        named = ", ".join(drugs)
        text = f"{named} ({group.replace('_', ' ')})" if group in words.treatments else named
        points.append((text, "prescription", f"mimic_prescriptions:first_{params.hours:g}h:{fold(named)}"))
    return points


def build(stores: Iterable[CaseStore], medqa_rubric: pl.DataFrame, prescriptions: pl.DataFrame,
          params: RubricParams | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``case_exam_targets`` and ``case_rubrics`` of every case of ``stores`` (one store, or a cohort
    in parts: :meth:`CaseStore.parts_of`; iterated twice, so not a one-shot iterator) and
    ``prescriptions`` (the output of :func:`first_day_prescriptions`, empty without MIMIC-IV): the
    exam weights from the train split, then one pass over the parts: each part's targets ranked as
    columns (:func:`ranked_targets`), then its cases' rubrics from their units (a case's evidence
    takes its abnormal targets)."""
    if iter(stores) is stores:
        raise TypeError("build iterates the stores twice (weights, then cases): pass a list or CaseStore.parts_of")
    params = params or rubric_params()
    weights = exam_weights(stores, params.min_support)
    medqa, drugs, words = grouped(medqa_rubric), grouped(prescriptions), judge_words()
    target_parts, rubric_parts = [], []
    rubrics: list[tuple] = []
    n = 0
    for store in stores:
        ranked = ranked_targets(store, weights)
        target_parts.append(ranked.select(schemas.empty("case_exam_targets").columns))
        abnormal = _abnormal_results(ranked)
        for case_id in store.case_ids():
            units = store.units(case_id)
            evidence = evidence_points(units, abnormal.get(case_id, []), medqa.get(case_id, []), params)
            management = management_points(units, drugs.get(case_id, []), words, params)
            for kind, points in (("evidence", evidence), ("management", management)):
                rubrics += [(case_id, kind, i, text, basis, ref) for i, (text, basis, ref) in enumerate(points)]
            n += 1
            if n % CASES_PER_FRAME == 0:
                rubric_parts.append(_frame("case_rubrics", rubrics))
                rubrics = []
    # Validated once, where the step writes them (Warehouse.write conforms a table whole).
    return (pl.concat([_frame("case_exam_targets", []), *target_parts], rechunk=True),
            pl.concat([*rubric_parts, _frame("case_rubrics", rubrics)], rechunk=True))


def _abnormal_results(ranked: pl.DataFrame) -> dict[str, list[ExamResult]]:
    """Case -> the first results of its abnormal exams that matter, best-ranked first (``ranked``:
    :func:`ranked_targets`)."""
    found: dict[str, list[ExamResult]] = {}
    for case_id, *row in ranked.filter(pl.col("abnormal")).select("case_id", *EXAM_COLUMNS).iter_rows():
        found.setdefault(case_id, []).append(ExamResult(*row))
    return found


def _frame(table: str, rows: list[tuple]) -> pl.DataFrame:
    """``rows`` (tuples in the table's column order) as columns of the table's dtypes."""
    return pl.DataFrame(rows, schema=schemas.empty(table).schema, orient="row")
