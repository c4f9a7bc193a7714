"""Orchestrates the embedded demo: MIMIC-IV (+Note, +ED), SICdb and MedQA in their publisher layouts.

Work is split into chunks (groups of whole patients / cases / questions) whose rows are written
as independent raw-deflate segments; segments are concatenated in a fixed order into one gzip
member per file.  Chunk boundaries depend only on ``admissions`` and ``seed``, never on the number
of worker processes, so the output bytes are the same whether chunks run in-process or in parallel.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from . import diseases
from .medqa import medqa_chunk
from .mimic import HEADERS, STREAMED, MimicWriter
from .mimic_patient import make_patient
from .reference import D_ITEMS_ROWS, LAB_ITEMS, PROCEDURES
from .sicdb import CASES_HEADER, LABORATORY_HEADER, plan_sicdb, sicdb_chunk, write_d_references
from .writer import CsvGz, assemble_gzip, assemble_text, header_segment, make_rng

Progress = Callable[[int, int], None]


def _chunk_size(admissions: int) -> int:
    """Admissions per chunk: about 1% of the total (progress granularity), at least 250."""
    return max(250, -(-admissions // 100))


def _plan_mimic(seed: int, admissions: int) -> list[list[tuple[int, int, int]]]:
    """Chunks of [(patient_index, first_admission_index, n_admissions)]; patients are never split."""
    size = _chunk_size(admissions)
    chunks: list[list[tuple[int, int, int]]] = [[]]
    done = 0
    in_chunk = 0
    pidx = 0
    while done < admissions:
        patient = make_patient(make_rng(seed, "patient", pidx), pidx)
        n = min(patient.planned, admissions - done)
        if in_chunk >= size:
            chunks.append([])
            in_chunk = 0
        chunks[-1].append((pidx, done, n))
        done += n
        in_chunk += n
        pidx += 1
    return chunks


def _run_mimic(segdir: str, seed: int, patients: list[tuple[int, int, int]], tick: Progress | None = None):
    mw = MimicWriter(Path(segdir), seed)
    for pidx, first, n in patients:
        prng = make_rng(seed, "patient", pidx)
        patient = make_patient(prng, pidx)
        mw.patient(prng, patient, first, n, on_admission=tick)
    return mw.close()


def _run_sicdb(segdir: str, seed: int, patients: list[tuple[int, int, int]]):
    return sicdb_chunk(Path(segdir), seed, patients)


def _run_medqa(segdir: str, seed: int, first: int, n: int):
    return medqa_chunk(Path(segdir), seed, first, n)


def _default_workers(admissions: int) -> int:
    if admissions < 2000:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def generate_demo(
    out: Path,
    admissions: int = 200,
    seed: int = 0,
    progress: Progress | None = None,
    *,
    workers: int | None = None,
) -> dict[str, int]:
    """Write a synthetic demo of all sources under ``out``; return rows written per file.

    Layout: ``out/mimic-iv/{hosp,icu}/*.csv.gz``, ``out/mimic-iv-note/note/*.csv.gz``,
    ``out/mimic-iv-ed/ed/*.csv.gz`` (the ED stays of the admissions through the ED), ``out/sicdb/*.csv.gz`` (about one case per four admissions, at least 10) and
    ``out/medqa/US_demo.jsonl`` (about one question per four admissions, at least 20).

    Output is byte-identical for the same ``seed`` and ``admissions`` (whatever ``workers``);
    admission *i* is generated from its own RNG and does not depend on how many admissions follow.
    ``progress(done, total)`` is called about every 1% of admissions and once at the end.
    ``workers``: processes to use (default: 1 below 2,000 admissions, else up to 4 CPUs).
    """
    if admissions < 1:
        raise ValueError("admissions must be >= 1")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    workers = _default_workers(admissions) if workers is None else max(1, int(workers))
    n_cases = max(10, admissions // 4)
    n_questions = max(20, admissions // 4)

    mimic_plan = _plan_mimic(seed, admissions)
    sic_plan = plan_sicdb(seed, n_cases)
    sic_per_chunk = max(100, -(-n_cases // 25))
    sic_chunks = [sic_plan[k:k + sic_per_chunk] for k in range(0, len(sic_plan), sic_per_chunk)]
    q_per_chunk = max(200, -(-n_questions // 25))
    q_chunks = [(a, min(q_per_chunk, n_questions - a)) for a in range(0, n_questions, q_per_chunk)]

    # hidden and .partial: what a killed run leaves here, the next build removes (pipelines.warehouse)
    tmp = Path(tempfile.mkdtemp(prefix=".demo-tmp-", suffix=".partial", dir=out))
    try:
        tasks: list[tuple[str, int, Callable, tuple]] = []
        for k, patients in enumerate(mimic_plan):
            tasks.append(("mimic", k, _run_mimic, (str(tmp / f"m{k:05d}"), seed, patients)))
        for k, patients in enumerate(sic_chunks):
            tasks.append(("sicdb", k, _run_sicdb, (str(tmp / f"s{k:05d}"), seed, patients)))
        for k, (first, n) in enumerate(q_chunks):
            tasks.append(("medqa", k, _run_medqa, (str(tmp / f"q{k:05d}"), seed, first, n)))
        mimic_sizes = {k: sum(n for _, _, n in patients) for k, patients in enumerate(mimic_plan)}
        results: dict[tuple[str, int], object] = {}
        done = 0
        last_reported = 0
        step = max(1, admissions // 100)

        if workers == 1:
            def tick() -> None:
                nonlocal done, last_reported
                done += 1
                if progress is not None and (done - last_reported >= step or done == admissions):
                    last_reported = done
                    progress(done, admissions)

            for kind, k, fn, args in tasks:
                results[(kind, k)] = fn(*args, tick) if kind == "mimic" else fn(*args)
        else:
            # "spawn": safe even when the caller runs threads (progress bars, Dagster)
            with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as ex:
                futures = {ex.submit(fn, *args): (kind, k) for kind, k, fn, args in tasks}
                for fut in as_completed(futures):
                    kind, k = futures[fut]
                    results[(kind, k)] = fut.result()
                    if kind == "mimic":
                        done += mimic_sizes[k]
                        if progress is not None:
                            last_reported = done
                            progress(done, admissions)
        if progress is not None and last_reported != admissions:
            progress(admissions, admissions)

        counts: dict[str, int] = {}
        for name in STREAMED:
            segs = [results[("mimic", k)][name] for k in range(len(mimic_plan))]
            assemble_gzip(out / name, header_segment(HEADERS[name]), segs)
            counts[name] = sum(s[3] for s in segs)
        for name, header in (("sicdb/cases.csv.gz", CASES_HEADER), ("sicdb/laboratory.csv.gz", LABORATORY_HEADER)):
            segs = [results[("sicdb", k)][name] for k in range(len(sic_chunks))]
            assemble_gzip(out / name, header_segment(header), segs)
            counts[name] = sum(s[3] for s in segs)
        assemble_text(out / "medqa" / "US_demo.jsonl", [results[("medqa", k)] for k in range(len(q_chunks))])
        counts["medqa/US_demo.jsonl"] = n_questions
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    counts.update(_write_dictionaries(out))
    counts.update(write_d_references(out))
    return dict(sorted(counts.items()))


def _write_dictionaries(out: Path) -> dict[str, int]:
    """Small dictionary tables, complete for everything the generated rows can reference."""
    tables = {
        "mimic-iv/hosp/d_icd_diagnoses.csv.gz": diseases.d_icd_rows(),
        "mimic-iv/hosp/d_icd_procedures.csv.gz": sorted(
            {(c, v, t) for (c9, t9), (c10, t10) in PROCEDURES.values() for c, v, t in ((c9, "9", t9), (c10, "10", t10))}),
        "mimic-iv/hosp/d_labitems.csv.gz": [(it.itemid, it.label, it.fluid, it.category)
                                            for it in sorted(LAB_ITEMS.values(), key=lambda x: x.itemid)],
        "mimic-iv/icu/d_items.csv.gz": list(D_ITEMS_ROWS),
    }
    counts = {}
    for name, rows in tables.items():
        w = CsvGz(out / name, HEADERS[name])
        w.write_many(rows)
        w.close()
        counts[name] = w.rows
    return counts
