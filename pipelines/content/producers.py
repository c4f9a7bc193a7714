"""Every content producer, in one list: the partitions of ``unit_candidates``, ``exam_candidates``
and ``presentations``, who writes them and in which order ties between them break.

A producer writes one partition of one candidate table (``<table>/<partition>.parquet``, or its
numbered batches) for the cases of ``case_skeleton``, reading ``case_skeleton``,
``case_provenance`` and its own ``reads``. Everything that used to list producers by hand is
derived from :data:`PRODUCERS`:

* the Dagster assets (``assets/factories.producer_assets``): one asset ``<table>_<partition>``
  per producer with ``produce``, with its deps, kinds and description; those written together
  by one computation (``joint``, e.g. ``medqa_content``) are that computation's specs;
* skipping: a producer whose ``sources`` are not all configured writes an empty partition (so
  nothing stale from an earlier build survives) and says why (:func:`run`);
* the publishers' deps (``information_units``, ``exam_results``, ``cases`` depend on every
  producer of their table) and their tie-break orders: a producer's position among those of
  its table (:func:`order`; ``pipelines.units.publish`` renumbers ordinals by it,
  ``pipelines.exams.results`` keeps the first result per case and name by it);
* the writers of ``leakage_removals`` (:func:`leakage_removal_writers`), which the asset
  gathering that table depends on.

Adding a producer is one entry here: a ``produce`` function (or a ``joint`` computation), the
sources it needs and the tables it reads. The ``produce`` adapters below are the only code: each
reads the cases it needs, calls its domain writer and says what to report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import polars as pl

import schemas
from pipelines.config import Settings
from pipelines.content import notes
from pipelines.content.case_keys import mimic_cases, sicdb_cases
from pipelines.content.partitions import Written, write_empty, write_partition
from pipelines.content.presentation import (
    clean_complaints,
    mimic_presentations,
    sicdb_presentations,
)
from pipelines.exams import ed as ed_exams
from pipelines.exams import mimic as mimic_exams
from pipelines.exams import sicdb as sicdb_exams
from pipelines.exams.window import ExamWindow
from pipelines.sources.registry import BY_NAME as SOURCES
from pipelines.sources.registry import titles
from pipelines.units import ed as ed_units
from pipelines.units import mimic as mimic_units
from pipelines.units import sicdb as sicdb_units
from pipelines.units.ed_medrecon import reconciled_medications
from pipelines.warehouse import Warehouse
from schemas.staging import MEDQA_TABLE

TABLES = ("unit_candidates", "exam_candidates", "presentations")
SKELETON = ("case_skeleton", "case_provenance")  # what every producer reads


@dataclass(frozen=True)
class Produced:
    written: Written
    metadata: Mapping[str, object] = field(default_factory=dict)  # what the producer reports beyond rows


def merged(parts: list[Produced]) -> Produced:
    """What a producer reports for several shards: rows and numbers summed, the rest as the first shard says."""
    metadata: dict[str, object] = {}
    for part in parts:
        for name, value in part.metadata.items():
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            metadata[name] = metadata.get(name, 0) + value if number else metadata.get(name, value)
    rounded = {name: round(value, 3) if isinstance(value, float) else value for name, value in metadata.items()}
    return Produced(Written(sum(p.written.rows for p in parts), next((p.written.skipped for p in parts), "")), rounded)


Produce = Callable[["Producer", Warehouse, Settings], Produced]


@dataclass(frozen=True)
class Producer:
    table: str  # unit_candidates | exam_candidates | presentations
    partition: str  # its partition of the table; also its name in the tie-break order
    sources: tuple[str, ...]  # sources it needs (pipelines.sources.registry); otherwise it writes nothing
    reads: tuple[str, ...]  # tables (asset keys) it reads besides SKELETON
    description: str
    produce: Produce | None = None  # writes the partition; None when a ``joint`` computation does
    joint: str | None = None  # the computation writing this and other producers' partitions at once
    kinds: tuple[str, ...] = ("duckdb", "parquet")
    removals: str | None = None  # the leakage_removals partition it writes, if any
    rejects: str | None = None  # the rejects partition it writes, if any
    coded: bool = False  # unit_candidates: its text is a coded title (dropped, not scrubbed, when it leaks)
    superseded_by: str | None = None  # unit_candidates: the producer whose history units replace its own

    @property
    def asset(self) -> str:
        return f"{self.table}_{self.partition}"

    @property
    def deps(self) -> tuple[str, ...]:
        return (*self.reads, *SKELETON)

    @property
    def summary(self) -> str:
        return f"{self.table} partition {self.partition}: {self.description}"


def _cases_per(table: pl.DataFrame) -> int:
    return table["case_id"].n_unique() if table.height else 0


def _note_units(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    written, removed, cpu_s = notes.write_units(warehouse, notes.note_cases(warehouse), workers=settings.workers,
                                                partition=p.partition, removals=p.removals)
    return Produced(written, {"leakage_removals": removed, "nlp_cpu_s": round(cpu_s, 3)})


def _note_exams(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    written, removed, cpu_s = notes.write_exams(warehouse, notes.note_cases(warehouse), workers=settings.workers,
                                                partition=p.partition, removals=p.removals)
    per_kind = {f"{kind}_nlp_cpu_s": round(cpu_s.get(kind, 0.0), 3) for kind in ("discharge", "radiology")}
    return Produced(written, {"leakage_removals": removed, "nlp_cpu_s": round(sum(cpu_s.values()), 3), **per_kind})


def _written_units(p: Producer, warehouse: Warehouse, units: pl.DataFrame, per_category: bool = False,
                   **metadata: object) -> Produced:
    categories = units.group_by("category").len().sort("category").iter_rows() if per_category else ()
    return Produced(write_partition(warehouse, p.table, p.partition, units),
                    {"cases": _cases_per(units), **{f"units_{c}": n for c, n in categories}, **metadata})


def _sicdb_structured(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    return _written_units(p, warehouse, sicdb_units.structured_units(warehouse, sicdb_cases(warehouse)))


def _mimic_structured(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    cases = mimic_cases(warehouse)
    # Where MIMIC-IV-ED is configured, its medication reconciliation is the home-medication list.
    reconciled = reconciled_medications(warehouse, cases) if ED in settings.configured_sources() else None
    measurements = mimic_units.prior_measurements(warehouse, cases)
    history = mimic_units.diagnosis_history(warehouse, cases)
    write_partition(warehouse, "rejects", p.rejects, pl.concat([measurements.rejects, history.rejects]))
    units = mimic_units.structured_units(warehouse, cases, home_medications=reconciled, measurements=measurements,
                                         history=history)
    return _written_units(p, warehouse, units, per_category=True, rejected_measurements=measurements.rejects.height,
                          superseded_history=history.rejects.height)


def _ed_units(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    units, removals = ed_units.ed_complaint_units(warehouse, mimic_cases(warehouse), warehouse.read("case_skeleton"))
    write_partition(warehouse, "leakage_removals", p.removals, removals)
    return Produced(write_partition(warehouse, p.table, p.partition, units),
                    {"cases": _cases_per(units), "leakage_removals": removals.height})


def _exams(write: Callable[[Warehouse, pl.DataFrame], Written], cases_of: Callable[[Warehouse], pl.DataFrame]) -> Produce:
    """A producer whose domain writer streams its own partition (pipelines.exams.mimic / sicdb)."""
    def produce(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
        return Produced(write(warehouse, cases_of(warehouse)))

    return produce


def _mimic_exams(write: Callable[[Warehouse, pl.DataFrame, ExamWindow], Written]) -> Produce:
    """A MIMIC-IV exam producer: its results are restricted to each case's exam window (the settings')."""
    def produce(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
        return Produced(write(warehouse, mimic_cases(warehouse), ExamWindow.of(settings)))

    return produce


def _mimic_labs(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    written, monitored = mimic_exams.write_labs(warehouse, mimic_cases(warehouse), ExamWindow.of(settings))
    return Produced(written, {"monitoring_results_left_out": monitored})


def _mimic_presentations(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    # The triage complaint opens; the note's chief complaint adds what triage did not say.
    skeleton = warehouse.read("case_skeleton")
    complaints = pl.concat([clean_complaints(warehouse.read_partition("unit_candidates", partition), skeleton)
                            for partition in (ED_UNITS, NOTE_UNITS)])
    complaints = complaints.with_columns(pl.col("text").str.to_lowercase().alias("_said")).unique(
        ["case_id", "_said"], keep="first", maintain_order=True).drop("_said")
    table = mimic_presentations(mimic_cases(warehouse), complaints)
    return Produced(write_partition(warehouse, p.table, p.partition, table),
                    {"with_chief_complaint": complaints["case_id"].n_unique()})


def _sicdb_presentations(p: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    return Produced(write_partition(warehouse, p.table, p.partition, sicdb_presentations(sicdb_cases(warehouse))))


NOTE_UNITS = "mimic_notes"
ED_UNITS = "mimic_ed"
ED = "mimic_ed"  # the source
MEDQA = "medqa_content"  # assets/medqa.py: one conversion writes the three MedQA views

PRODUCERS: tuple[Producer, ...] = (
    # unit_candidates, in tie-break order (ordinals: category order, then this order)
    Producer("unit_candidates", ED_UNITS, ("mimic_iv", ED), ("ed_edstays", "ed_triage"),
             "the triage chief complaint of the admission's ED stay, in the patient's words.", _ed_units,
             kinds=("polars", "parquet"), removals="mimic_ed_units"),
    Producer("unit_candidates", NOTE_UNITS, ("mimic_iv", "mimic_note"), ("note_sections",),
             "patient-visible facts of the discharge notes.", _note_units, kinds=("medspacy", "parquet"),
             removals="mimic_notes_units"),
    Producer("unit_candidates", "mimic_structured", ("mimic_iv",),
             ("mimic_admissions", "mimic_diagnoses_icd", "mimic_d_icd_diagnoses", "mimic_prescriptions", "mimic_omr",
              "ed_edstays", "ed_medrecon"),
             "what the patient knew before the admission; home medications from the ED reconciliation if any.",
             _mimic_structured, rejects="unit_candidates_mimic_structured", coded=True, superseded_by=NOTE_UNITS),
    Producer("unit_candidates", "sicdb_structured", ("sicdb",), ("sicdb_cases",),
             "demographics, weight, height, earlier ICU stays.",
             _sicdb_structured, coded=True),
    Producer("unit_candidates", "medqa", ("medqa",), (MEDQA_TABLE,),
             "age/sex, chief complaint and history clauses of the MedQA vignettes.", joint=MEDQA,
             kinds=("medspacy", "parquet"), removals="medqa"),
    # exam_candidates, in tie-break order: structured before text-derived
    Producer("exam_candidates", "mimic_labs", ("mimic_iv",),
             ("mimic_labevents", "mimic_d_labitems", "mimic_admissions", "mimic_prescriptions", "ed_edstays",
              "ed_pyxis"),
             "first result per lab item in the case's exam window, by the time it became known (storetime); "
             "none that monitors a treatment the stay began (a PTT after a heparin drip).", _mimic_labs),
    Producer("exam_candidates", "sicdb_labs", ("sicdb",), ("sicdb_laboratory", "sicdb_d_references", "sicdb_cases"),
             "first value per laboratory id, named via d_references.", _exams(sicdb_exams.write_labs, sicdb_cases)),
    Producer("exam_candidates", "mimic_vitals", ("mimic_iv",),
             ("mimic_chartevents", "mimic_omr", "mimic_admissions"),
             "first ICU vital sign per item and omr measurements in the exam window; impossible values to rejects.",
             _mimic_exams(mimic_exams.write_vitals), rejects=mimic_exams.REJECTS_PARTITION),
    Producer("exam_candidates", ed_exams.PARTITION, ("mimic_iv", ED), ("ed_edstays", "ed_triage", "ed_vitalsign",
                                                                       "mimic_admissions"),
             "first triage or ED vital sign per exam in the exam window; impossible values and unscored pain to "
             "rejects.", _mimic_exams(ed_exams.write_vitals), rejects=ed_exams.REJECTS_PARTITION),
    Producer("exam_candidates", "mimic_microbiology", ("mimic_iv",), ("mimic_microbiologyevents", "mimic_admissions"),
             "first specimen per microbiology test and specimen type stored in the exam window, organisms or comment.",
             _mimic_exams(mimic_exams.write_microbiology)),
    Producer("exam_candidates", "mimic_notes", ("mimic_iv", "mimic_note"), ("note_sections", "note_radiology_detail"),
             "admission physical exam, note vitals, radiology FINDINGS.", _note_exams, kinds=("medspacy", "parquet"),
             removals="mimic_notes_exams"),
    Producer("exam_candidates", "medqa", ("medqa",), (MEDQA_TABLE,),
             "vitals, labs (prose and tables), signs, imaging, ECG and biopsy results of the vignettes.", joint=MEDQA,
             kinds=("polars", "parquet"), removals="medqa"),
    # presentations: one per case, so no tie to break
    Producer("presentations", "mimic_iv", ("mimic_iv",),
             (f"unit_candidates_{ED_UNITS}", f"unit_candidates_{NOTE_UNITS}", "mimic_admissions"),
             "age, sex and chief complaint (triage, then note), else how the patient was admitted.",
             _mimic_presentations,
             kinds=("polars",)),
    Producer("presentations", "sicdb", ("sicdb",), ("sicdb_cases",),
             "age and sex of a patient admitted to intensive care.", _sicdb_presentations, kinds=("polars",)),
    Producer("presentations", "medqa", ("medqa",), (MEDQA_TABLE,),
             "the opening sentence (age, sex, chief complaint).", joint=MEDQA, kinds=("polars", "parquet"),
             removals="medqa"),
)

# Writers of leakage_removals besides producers: the guard of the information_units publisher.
PUBLISHER_REMOVALS = {"information_units": "information_units"}


def _check(producers: tuple[Producer, ...]) -> None:
    """A registry that cannot be built from is an error at import, not a surprise in a build."""
    seen: set[tuple[str, str]] = set()
    for p in producers:
        problems = []
        if p.table not in TABLES:
            problems.append(f"table must be one of {', '.join(TABLES)}")
        if (p.table, p.partition) in seen:
            problems.append("listed twice")
        if (p.produce is None) == (p.joint is None):
            problems.append("needs either produce or joint")
        if unknown := [s for s in p.sources if s not in SOURCES]:
            problems.append(f"unknown source(s) {', '.join(unknown)}")
        if problems:
            raise ValueError(f"producer {p.asset}: {'; '.join(problems)}")
        seen.add((p.table, p.partition))


_check(PRODUCERS)


def of_table(table: str, producers: tuple[Producer, ...] = PRODUCERS) -> tuple[Producer, ...]:
    """The producers of ``table``, in tie-break order."""
    return tuple(p for p in producers if p.table == table)


def order(table: str, producers: tuple[Producer, ...] = PRODUCERS) -> dict[str, int]:
    """``partition -> rank`` among the producers of ``table``: the order ties break in."""
    return {p.partition: rank for rank, p in enumerate(of_table(table, producers))}


def assets(table: str, producers: tuple[Producer, ...] = PRODUCERS) -> list[str]:
    """The asset names of ``table``'s producers: what its publisher depends on."""
    return [p.asset for p in of_table(table, producers)]


def joint(name: str, producers: tuple[Producer, ...] = PRODUCERS) -> tuple[Producer, ...]:
    """The producers one joint computation writes."""
    return tuple(p for p in producers if p.joint == name)


def coded(producers: tuple[Producer, ...] = PRODUCERS) -> tuple[str, ...]:
    """unit_candidates partitions whose text is a coded title."""
    return tuple(p.partition for p in of_table("unit_candidates", producers) if p.coded)


def superseded(producers: tuple[Producer, ...] = PRODUCERS) -> dict[str, str]:
    """``partition -> partition`` of unit_candidates: whose history units replace whose."""
    return {p.partition: p.superseded_by for p in of_table("unit_candidates", producers) if p.superseded_by}


def rejects_writers(producers: tuple[Producer, ...] = PRODUCERS) -> dict[str, str]:
    """``asset -> rejects partition`` of the producers that write one."""
    return {p.asset: p.rejects for p in producers if p.rejects}


def leakage_removal_writers(producers: tuple[Producer, ...] = PRODUCERS) -> dict[str, str]:
    """``asset -> leakage_removals partition`` of every writer of that table."""
    return {**{p.asset: p.removals for p in producers if p.removals}, **PUBLISHER_REMOVALS}


def unconfigured(producer: Producer, settings: Settings) -> str:
    """Why ``producer`` writes nothing in this build ("MIMIC-IV-Note not configured"), or ""."""
    missing = [s for s in producer.sources if s not in settings.configured_sources()]
    return f"{titles(missing)} not configured" if missing else ""


def run(producer: Producer, warehouse: Warehouse, settings: Settings) -> Produced:
    """Write ``producer``'s partition, or an empty one (with the reason) when a source it needs is
    not configured, so nothing stale from an earlier build survives."""
    if producer.produce is None:
        raise ValueError(f"{producer.asset} is written by {producer.joint}, not on its own")
    why = unconfigured(producer, settings)
    if why:
        for table, partition in (("leakage_removals", producer.removals), ("rejects", producer.rejects)):
            if partition:
                write_partition(warehouse, table, partition, schemas.empty(table))
        return Produced(write_empty(warehouse, producer.table, producer.partition, why))
    return producer.produce(producer, warehouse, settings)
