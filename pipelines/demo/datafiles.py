"""Reading the demo's data files, with errors that name the file, the record and the field.

YAML files are read like ``yaml.safe_load`` but reject duplicate keys (a second record of the same
name would otherwise silently replace the first).  CSV files start with a ``#`` comment block that
is skipped, and their header row must list exactly the expected columns; cells are text, and
numbers keep the type they are written in (``80`` an int, ``80.0`` a float) so that loaded values
are the ones the generator was tuned with.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, NoReturn

import yaml

Root = Traversable | Path
_MISSING: Any = object()

# where the keys of each kind of reference are defined (for "unknown ..." errors)
DEFINED_IN = {
    "lab item": "lab_items.csv (key column)", "lab panel": "lab_items.csv (panel column)",
    "chart item": "chart_items.csv (key column, rows with mean and sd)", "drug": "drugs.csv",
    "specimen": "specimens.csv", "organism": "organisms.csv", "procedure": "procedures.csv",
    "imaging study": "imaging.yaml", "comorbidity": "comorbidities.yaml",
    "code": "codes.yaml or comorbidities.yaml, or primary for the disease's own code",
    "exam system": "notes.yaml (exam_systems)", "question kind": "medqa.yaml (question_stems)",
    "surgical site": "sicdb_references.csv (SurgicalSite rows)", "exam code": "imaging.yaml (exam_code)",
}


class CatalogError(ValueError):
    """A data file is malformed: ``file``, ``record`` and ``field`` say where, the message what to fix."""

    def __init__(self, file: str, record: str, field: str, problem: str):
        self.file, self.record, self.field = file, record, field
        where = f"{record}, field {field!r}" if field else record
        super().__init__(f"{file}: {where}: {problem}")


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # the C parser when PyYAML has it
    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (rename or merge the two entries)", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_yaml(root: Root, name: str) -> dict:
    """Top-level mapping of ``root/name``."""
    path = root / name
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.MarkedYAMLError as e:
        where = f"line {e.problem_mark.line + 1}" if e.problem_mark else "file"
        context = f" ({e.context})" if e.context else ""
        raise CatalogError(str(path), where, "", f"not valid YAML: {e.problem}{context}") from None
    if not isinstance(data, dict):
        raise CatalogError(str(path), "file", "", "expected a mapping of record names to records")
    return data


def yaml_records(root: Root, name: str, kind: str) -> list[Record]:
    """The top-level entries of a YAML file as records named ``kind 'key'``."""
    path = str(root / name)
    return [Record(path, f"{kind} {key!r}", data, key=key) for key, data in read_yaml(root, name).items()]


def read_csv(root: Root, name: str, columns: tuple[str, ...], key: str | None = None) -> list[Record]:
    """Rows of ``root/name`` after its leading ``#`` comment block; ``key`` names the record column."""
    path = root / name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    reader = csv.reader(io.StringIO("".join(lines[start:])))
    header = tuple(next(reader, ()))
    if header != columns:
        raise CatalogError(str(path), f"line {start + 1}", "",
                           f"the header row is {list(header)}; expected the columns {list(columns)}")
    records = []
    k = columns.index(key) if key else None
    for n, row in enumerate(reader, start + 2):
        value = row[k] if k is not None and k < len(row) else None
        label = f"line {n}" if value is None else f"{key} {value!r} (line {n})"
        if len(row) != len(columns):
            raise CatalogError(str(path), label, "", f"{len(row)} cells, expected {len(columns)} "
                                                      "(quote values that contain commas)")
        cells = {c: v for c, v in zip(columns, row) if v != ""}  # an empty cell is an absent value
        records.append(Record(str(path), label, cells, key=value, cells=True))
    return records


class Record:
    """One record of a data file: typed access to its fields; every failure names file, record and field.

    ``cells``: values are CSV text, parsed on access.
    """

    def __init__(self, file: str, name: str, data: Any, key: Any = None, prefix: str = "", cells: bool = False):
        self.file, self.name, self.key, self.prefix, self.cells = file, name, key, prefix, cells
        if not isinstance(data, Mapping):
            self.fail("", f"expected a mapping of fields, got {data!r}")
        self.data = data

    def fail(self, field: str, problem: str) -> NoReturn:
        raise CatalogError(self.file, self.name, (self.prefix + field).rstrip("."), problem)

    def only(self, fields: Iterable[str]) -> None:
        """Reject unknown fields (usually a misspelt field name)."""
        fields = list(fields)
        unknown = [f for f in self.data if f not in fields]
        if unknown:
            self.fail(str(unknown[0]), f"unknown field; the fields are {', '.join(fields)}")

    def has(self, field: str) -> bool:
        return self.data.get(field) is not None

    def get(self, field: str, default: Any = _MISSING) -> Any:
        if not self.has(field):
            if default is _MISSING:
                self.fail(field, "missing; it is required")
            return default
        return self.data[field]

    def sub(self, field: str) -> Record:
        """A nested mapping, read as a record of its own (its errors name ``field.subfield``)."""
        return Record(self.file, self.name, self.get(field), key=self.key, prefix=f"{self.prefix}{field}.")

    # -- scalars --------------------------------------------------------------------------------
    def text(self, field: str, default: Any = _MISSING, pattern: str | None = None, hint: str = "") -> str:
        v = self.get(field, default)
        if v is default:
            return v
        if not isinstance(v, str) or not v:
            self.fail(field, f"expected a non-empty text, got {v!r} (quote it in YAML)")
        if pattern is not None and not re.fullmatch(pattern, v):
            self.fail(field, f"{v!r} is not well-formed: {hint}")
        return v

    def choice(self, field: str, options: Iterable[str], default: Any = _MISSING) -> str:
        options = tuple(options)
        v = self.get(field, default)
        if v is not default and v not in options:
            self.fail(field, f"{v!r} is not one of {', '.join(options)}")
        return v

    def number(self, field: str, default: Any = _MISSING, lo: float | None = None, hi: float | None = None):
        v = self.get(field, default)
        if v is default:
            return v
        if self.cells:
            v = _parse_number(v)
        if not _is_num(v):
            self.fail(field, f"expected a number, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(field, f"{v!r} is outside [{lo}, {hi}]")
        return v

    def integer(self, field: str, default: Any = _MISSING, lo: int | None = None) -> int:
        v = self.number(field, default, lo)
        if v is not default and not isinstance(v, int):
            self.fail(field, f"expected a whole number, got {v!r}")
        return v

    def probability(self, field: str, default: Any = _MISSING) -> float:
        return self.number(field, default, 0.0, 1.0)

    def flag(self, field: str) -> bool:
        """``yes`` / ``no``."""
        return self.choice(field, ("yes", "no")) == "yes"

    # -- collections ----------------------------------------------------------------------------
    def texts(self, field: str, default: Any = _MISSING) -> tuple[str, ...]:
        """A list of non-empty texts; non-empty unless the field is optional (has a default)."""
        v = self.get(field, default)
        if v is default:
            return v
        if not isinstance(v, list) or (not v and default is _MISSING) or not all(isinstance(x, str) and x for x in v):
            self.fail(field, f"expected a {'' if default is _MISSING else 'non-empty '}list of texts, got {v!r}")
        return tuple(v)

    def mapping(self, field: str, default: Any = _MISSING) -> dict:
        """A mapping; non-empty unless the field is optional (has a default)."""
        v = self.get(field, default)
        if v is not default and (not isinstance(v, dict) or (not v and default is _MISSING)):
            self.fail(field, f"expected a {'' if default is _MISSING else 'non-empty '}mapping, got {v!r}")
        return v

    def weights(self, field: str, default: Any = _MISSING, probabilities: bool = False) -> dict[Any, float]:
        """A mapping of names to weights (or probabilities)."""
        v = self.mapping(field, default)
        for k, w in (v if v is not default else {}).items():
            if not _is_num(w) or w < 0 or (probabilities and w > 1):
                self.fail(field, f"{k!r}: expected a {'probability' if probabilities else 'weight'}, got {w!r}")
        return v

    def pair(self, field: str, default: Any = _MISSING) -> tuple:
        """``[a, b]`` of numbers: a distribution ``[mean, sd]`` or a range ``[min, max]``."""
        v = self.get(field, default)
        if v is default:
            return v
        if not (isinstance(v, list) and len(v) == 2 and all(_is_num(x) for x in v)):
            self.fail(field, f"expected [number, number], got {v!r}")
        return tuple(v)

    def spec(self, field: str, name: Any, v: Any) -> tuple:
        """A value distribution: ``[mean, sd]`` (normal) or ``[median, sigma, log]`` (log-normal)."""
        ok = isinstance(v, list) and (
            (len(v) == 2 and all(_is_num(x) for x in v))
            or (len(v) == 3 and _is_num(v[0]) and _is_num(v[1]) and v[2] == "log"))
        if not ok or v[1] < 0:
            self.fail(field, f"{name!r}: expected [mean, sd] or [median, sigma, log], got {v!r}")
        return tuple(v)

    def ref(self, field: str, value: Any, known: Mapping | set, what: str) -> Any:
        """``value`` must be a key of ``known``; the error says where such keys are defined."""
        if value not in known:
            self.fail(field, f"unknown {what} {value!r}; use one defined in {DEFINED_IN[what]}")
        return value

    def refs(self, field: str, known: Mapping | set, what: str, default: Any = _MISSING) -> tuple[str, ...]:
        """A list of references."""
        values = self.texts(field, default)
        for v in values:
            self.ref(field, v, known, what)
        return values


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _parse_number(s: str) -> Any:
    if re.fullmatch(r"-?\d+", s):
        return int(s)
    try:
        return float(s)
    except ValueError:
        return s  # reported by the caller
