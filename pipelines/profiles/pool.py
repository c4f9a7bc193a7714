"""Synthea output -> rows of the ``synthea_pool`` table (one partition per stratum).

One row per generated person with their demographics, age at Synthea's reference date and a
nested list of conditions (SNOMED code, plain name, ICD-10-CM code and category, kind, onset,
abatement), ordered by onset.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import polars as pl

from pipelines.profiles.fhir import read_fhir_dir
from pipelines.profiles.records import PoolRecords
from pipelines.profiles.snomed import map_conditions
from pipelines.profiles.synthea import StratumOutput, output_files
from pipelines.profiles.synthea_csv import read_csv_export
from pipelines.warehouse import Warehouse, partition_of
from schemas.synthea_pool import CONDITION_STRUCT

TABLE = "synthea_pool"
CONDITION_FIELDS = tuple(CONDITION_STRUCT.to_schema())


def read_output(folder: Path) -> PoolRecords:
    """Parse a stratum folder: the Java CSV export when present, else the FHIR bundles."""
    kind, files = output_files(folder / "output")
    if kind == "csv":
        return read_csv_export(files[0].parent, relative_to=folder)
    return read_fhir_dir(folder / "output" / "fhir", relative_to=folder)


def age_on(birth: pl.Expr, day: pl.Expr) -> pl.Expr:
    """Completed years between two dates (birthday arithmetic, no 365.25 rounding)."""
    def month_day(d: pl.Expr) -> pl.Expr:  # month() and day() are Int8: widen before scaling
        return d.dt.month().cast(pl.Int32) * 100 + d.dt.day().cast(pl.Int32)

    before_birthday = month_day(day) < month_day(birth)
    return (day.dt.year() - birth.dt.year() - before_birthday.cast(pl.Int32)).cast(pl.Int32)


def pool_frame(records: PoolRecords, stratum: str, generator: str, synthea_seed: int,
               reference_date: date) -> pl.DataFrame:
    conditions = (
        map_conditions(records.conditions)
        .sort("pool_patient_id", "onset", "snomed_code")
        .group_by("pool_patient_id", maintain_order=True)
        .agg(conditions=pl.struct(*CONDITION_FIELDS))
    )
    reference = pl.lit(reference_date, dtype=pl.Date)
    return (
        records.patients.join(conditions, on="pool_patient_id", how="left")
        .with_columns(
            stratum=pl.lit(stratum),
            generator=pl.lit(generator),
            synthea_seed=pl.lit(synthea_seed, dtype=pl.Int64),
            reference_date=reference,
            age_years=age_on(pl.col("birth_date"), reference),
            conditions=pl.col("conditions").fill_null(pl.lit([], dtype=pl.List(CONDITION_STRUCT))),
        )
        .sort("pool_patient_id")
    )


def stratum_pool(output: StratumOutput) -> pl.DataFrame:
    """The ``synthea_pool`` rows of one generated (or reused) stratum."""
    run = output.run
    reference = datetime.strptime(run.reference_date, "%Y%m%d").date()
    return pool_frame(read_output(output.folder), run.stratum, run.generator, run.seed, reference)


def write_pool(warehouse: Warehouse, outputs: list[StratumOutput]) -> dict[str, pl.DataFrame]:
    """Write each stratum's rows as its partition of ``synthea_pool`` (``<stratum>.parquet``) and
    remove the partitions of strata not among ``outputs``, so the table holds the strata this
    build needs and nothing else. Returns the rows written per stratum."""
    written = {output.run.stratum: stratum_pool(output) for output in outputs}
    for stratum, frame in written.items():
        warehouse.write(TABLE, frame, partition=stratum)
    folder = warehouse.table_dir(TABLE)
    for path in folder.glob("*.parquet") if folder.exists() else ():
        if partition_of(path.stem) not in written:
            path.unlink(missing_ok=True)
    return written
