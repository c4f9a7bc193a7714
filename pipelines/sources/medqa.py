"""Stage MedQA JSON-lines files: one row per question, malformed lines to rejects.

MedQA is small (~12.7k US questions), so lines are parsed one at a time in Python; the
question hash (of question, options and answer) keys the case, so reordering or
re-splitting the files does not change case ids.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

import schemas
from pipelines.sources.errors import SourceError, hint
from schemas.staging import MEDQA_COLUMNS

SETTING = "CLINVERSE_MEDQA_PATH"
REQUIRED = ("question", "answer", "options", "answer_idx")


def question_hash(record: dict) -> str:
    canonical = json.dumps(
        {"q": record["question"], "o": record["options"], "a": record["answer"]}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _problem(record: object) -> str | None:
    if not isinstance(record, dict):
        return "line is not a JSON object"
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if not isinstance(record["options"], dict) or not record["options"]:
        return "field options is not a non-empty object"
    if record["answer_idx"] not in record["options"]:
        return f"answer_idx {record['answer_idx']!r} is not one of the options"
    if not str(record["question"]).strip():
        return "empty question"
    return None


def stage_medqa(paths: tuple[Path, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Return (medqa_questions, rejects)."""
    if not paths:
        raise SourceError(f"medqa: no file configured; {hint(SETTING)}")
    rows: list[dict] = []
    rejects: list[dict] = []
    for path in paths:
        if not path.is_file():
            raise SourceError(f"{SETTING} names {path}, which does not exist; {hint(SETTING)}")
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                # Decoded line by line: a bad byte rejects its line, a byte-order mark is dropped.
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    line = raw.decode("utf-8", errors="replace")
                    record, problem = None, f"not UTF-8: byte {exc.start + 1} of the line cannot be decoded"
                else:
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line)
                        problem = _problem(record)
                    except json.JSONDecodeError as exc:
                        record, problem = None, f"invalid JSON: {exc.msg} at column {exc.colno}"
                if problem:
                    rejects.append({"source": "medqa", "table": "medqa_questions", "file": str(path),
                                    "row_number": number, "row_key": None, "reason": problem, "raw": line[:500]})
                    continue
                rows.append({
                    "medqa_file": path.name,
                    "medqa_line": number,
                    "medqa_hash": question_hash(record),
                    "question": record["question"],
                    "answer": record["answer"],
                    "options": json.dumps(record["options"], ensure_ascii=False, sort_keys=True),
                    "answer_idx": record["answer_idx"],
                    "meta_info": str(record.get("meta_info") or ""),
                })
    questions = pl.DataFrame(rows, schema={c: pl.Utf8 for c in MEDQA_COLUMNS}).with_columns(
        pl.col("medqa_line").cast(pl.Int64)
    )
    reject_frame = pl.DataFrame(rejects, schema=schemas.empty("rejects").schema) if rejects else schemas.empty("rejects")
    return questions, reject_frame
