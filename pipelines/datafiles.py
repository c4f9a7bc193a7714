"""Package data files (commented CSV and YAML), read and checked on load.

Catalogs, lexicons and reference tables live beside the module that uses them and are read through
``importlib.resources`` (``root`` is the package name), or from a directory a caller passes (the
demo's tests load damaged copies).  A mistake in one must fail where it is: every error is a
:class:`DataFileError` that names the file, the record (a CSV line, a YAML entry) and the field.

* CSV: lines starting with ``#`` and blank lines are skipped; the first other line is the header,
  which must list exactly the expected columns; every other line is one record (no line breaks
  inside quotes, so a record's line is its line in the file).  An empty cell is an absent value.
  Cells are text; :class:`Record` parses numbers and flags on access, and a number keeps the type
  it is written in (``80`` an int, ``80.0`` a float).
* YAML: parsed like ``yaml.safe_load`` (typed scalars), or with ``text=True`` keeping every scalar
  as text (``no``, ``on`` and ``1.0`` stay words: word lists).  Either way a key given twice in one
  mapping is an error (the second would silently replace the first).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml

Root = Traversable | Path  # a directory of data files
_MISSING: Any = object()


class DataFileError(ValueError):
    """A data file is malformed: ``file``, ``record`` and ``field`` say where (``record`` and ``field`` are
    empty when the problem is the whole file or record), the message what to fix."""

    def __init__(self, file: str, record: str, field: str, problem: str):
        self.file, self.record, self.field, self.problem = file, record, field, problem
        where = ", ".join(part for part in (record, f"field {field!r}" if field else "") if part)
        super().__init__(f"{file}: {where}: {problem}" if where else f"{file}: {problem}")


def _file(root: str | Root, name: str) -> Traversable:
    """``name`` in ``root``: a package (by name; its files via importlib.resources) or a directory."""
    return (files(root) if isinstance(root, str) else root) / name


# ---------------------------------------------------------------------------------------- CSV


def csv_records(root: str | Root, name: str, columns: Sequence[str], key: str | None = None) -> list[Record]:
    """The rows of a commented CSV file whose header is exactly ``columns``.

    A record is named ``line N``, or ``KEY 'value' (line N)`` when ``key`` names the column that
    names a row (the record's ``key`` is then that cell).
    """
    path = _file(root, name)
    file, columns = str(path), tuple(columns)
    lines = [(n, line) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if line.strip() and not line.startswith("#")]
    if not lines:
        raise DataFileError(file, "", "", f"no header row; expected the columns {list(columns)}")
    (header_line, header), *body = lines
    found = tuple(next(csv.reader([header])))
    if found != columns:
        raise DataFileError(file, f"line {header_line}", "",
                            f"the header row is {list(found)}; expected the columns {list(columns)}")
    k = columns.index(key) if key else None
    records = []
    for n, line in body:
        cells = next(csv.reader([line]))
        value = cells[k] if k is not None and k < len(cells) else None
        where = f"line {n}" if value is None else f"{key} {value!r} (line {n})"
        if len(cells) != len(columns):
            raise DataFileError(file, where, "", f"{len(cells)} cells, expected {len(columns)} "
                                                 f"({', '.join(columns)}); quote values that contain commas")
        data = {c: v for c, v in zip(columns, cells) if v != ""}  # an empty cell is an absent value
        records.append(Record(file, where, data, key=value, line=n, as_text=True))
    return records


def csv_patterns(root: str | Root, name: str) -> tuple[str, ...]:
    """The patterns of a ``pattern,why`` file, in file order: each must compile (case-insensitive;
    one that does not fails here, naming its line) and say why."""
    records = csv_records(root, name, ("pattern", "why"))
    for record in records:
        record.regex("pattern", re.IGNORECASE)
        record.text("why")
    return tuple(record.text("pattern") for record in records)


def unique(records: Iterable[Record], field: str, key: Callable[[str], Any] = lambda value: value) -> None:
    """Fail at the first CSV record whose ``field`` (compared as ``key(text)``) repeats an earlier record's."""
    seen: dict[Any, Record] = {}
    for record in records:
        value = record.text(field)
        if (k := key(value)) in seen:
            raise record.error(field, f"{value!r} repeats line {seen[k].line}")
        seen[k] = record


# --------------------------------------------------------------------------------------- YAML


class _UniqueKeys:
    """Loader mixin: a key given twice in one mapping is an error."""

    def construct_mapping(self, node, deep=False):
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                continue  # the base constructor reports it
            if key in first:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first at line {first[key]}; rename or merge the two entries)",
                    key_node.start_mark)
            first[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


class _TypedLoader(_UniqueKeys, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # the C parser when PyYAML has it
    pass


class _TextLoader(_UniqueKeys, getattr(yaml, "CBaseLoader", yaml.BaseLoader)):
    pass


def _read_yaml(root: str | Root, name: str, text: bool) -> tuple[str, dict]:
    path = _file(root, name)
    file = str(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_TextLoader if text else _TypedLoader)  # noqa: S506
    except yaml.YAMLError as e:
        mark, context = getattr(e, "problem_mark", None), getattr(e, "context", None)
        problem = getattr(e, "problem", None) or str(e)
        raise DataFileError(file, f"line {mark.line + 1}" if mark else "", "",
                            f"not valid YAML: {problem}" + (f" ({context})" if context else "")) from None
    if not isinstance(data, dict):
        raise DataFileError(file, "", "", "expected a mapping")
    return file, data


def yaml_records(root: str | Root, name: str, kind: str, *, text: bool = False) -> list[Record]:
    """The top-level entries of a YAML file, each a record named ``kind 'key'`` (its ``key``)."""
    file, data = _read_yaml(root, name, text)
    return [Record(file, f"{kind} {key!r}", value, key=key, as_text=text) for key, value in data.items()]


def yaml_record(root: str | Root, name: str, fields: Iterable[str], where: str = "", *, text: bool = False) -> Record:
    """A YAML file as one record (named ``where``, or by the file alone) with no fields but ``fields``."""
    file, data = _read_yaml(root, name, text)
    record = Record(file, where, data, as_text=text)
    record.only(fields)
    return record


def yaml_mapping(root: str | Root, name: str, fields: Iterable[str] | None = None) -> dict[str, Any]:
    """A YAML file's top-level mapping (typed scalars); with ``fields``, exactly those keys (none
    missing, none unknown)."""
    file, data = _read_yaml(root, name, False)
    if fields is not None:
        record = Record(file, "", data)
        record.only(fields)
        for field in fields:
            record.get(field)
    return data


# ------------------------------------------------------------------------------------- Record


class Record:
    """One record of a data file (a CSV row, a YAML entry or file): checked access to its fields.

    Every failure is a :class:`DataFileError` naming ``file``, ``where`` and the field (``prefix``
    + field for a nested record, e.g. ``code.icd10``).  ``as_text``: the values are text (CSV
    cells, YAML read with ``text=True``), and numbers are parsed on access.  ``line``: the line of
    a CSV record.  A field is absent when missing or None (in CSV: an empty cell); an accessor
    with a ``default`` returns it for an absent field, one without requires the field.
    """

    def __init__(self, file: str, where: str, data: Any, *, key: Any = None, line: int | None = None,
                 prefix: str = "", as_text: bool = False):
        self.file, self.where, self.key, self.line, self.prefix, self.as_text = file, where, key, line, prefix, as_text
        if not isinstance(data, Mapping):
            raise self.error("", f"expected a mapping of fields, got {data!r}")
        self.data = data

    def error(self, field: str, problem: str) -> DataFileError:
        """The error to raise for ``field`` (``""``: the record as a whole)."""
        return DataFileError(self.file, self.where, (self.prefix + field).rstrip("."), problem)

    def only(self, fields: Iterable[str]) -> None:
        """Reject unknown fields (usually a misspelt field name)."""
        fields = list(fields)
        unknown = [f for f in self.data if f not in fields]
        if unknown:
            raise self.error(str(unknown[0]), f"unknown field; the fields are {', '.join(fields)}")

    def has(self, field: str) -> bool:
        return self.data.get(field) is not None

    def get(self, field: str, default: Any = _MISSING) -> Any:
        if not self.has(field):
            if default is _MISSING:
                raise self.error(field, "missing; it is required")
            return default
        return self.data[field]

    def sub(self, field: str) -> Record:
        """A nested mapping, read as a record of its own (its errors name ``field.subfield``)."""
        return Record(self.file, self.where, self.get(field), key=self.key, line=self.line,
                      prefix=f"{self.prefix}{field}.", as_text=self.as_text)

    # -- scalars --------------------------------------------------------------------------------
    def text(self, field: str, default: Any = _MISSING, pattern: str | None = None, hint: str = "") -> str:
        """A non-empty text; ``pattern``: it must match it whole (``hint`` says how it should look)."""
        v = self.get(field, default)
        if v is default:
            return v
        if not isinstance(v, str) or not v.strip():
            quote = "" if isinstance(v, str) or self.as_text else " (quote it in YAML)"
            raise self.error(field, f"expected a non-empty text, got {v!r}{quote}")
        if pattern is not None and not re.fullmatch(pattern, v):
            raise self.error(field, f"{v!r} is not well-formed: {hint}")
        return v

    def choice(self, field: str, options: Iterable[str], default: Any = _MISSING) -> str:
        options = tuple(options)
        v = self.get(field, default)
        if v is not default and v not in options:
            raise self.error(field, f"{v!r} is not one of {', '.join(options)}")
        return v

    def flag(self, field: str, default: Any = _MISSING) -> bool:
        """``yes`` / ``no`` (a YAML boolean in a typed file)."""
        v = self.get(field, default)
        if v is default or isinstance(v, bool):
            return v
        return self.choice(field, ("yes", "no")) == "yes"

    def number(self, field: str, default: Any = _MISSING, lo: float | None = None, hi: float | None = None):
        v = self.get(field, default)
        if v is default:
            return v
        if self.as_text and isinstance(v, str):
            v = _parse_number(v)
        if not is_number(v):
            raise self.error(field, f"expected a number, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.error(field, f"{v!r} is outside [{lo}, {hi}]")
        return v

    def integer(self, field: str, default: Any = _MISSING, lo: int | None = None) -> int:
        v = self.number(field, default, lo)
        if v is not default and not isinstance(v, int):
            raise self.error(field, f"expected a whole number, got {v!r}")
        return v

    def probability(self, field: str, default: Any = _MISSING) -> float:
        return self.number(field, default, 0.0, 1.0)

    def regex(self, field: str, flags: int = 0, source: str | None = None) -> re.Pattern[str]:
        """The field compiled as a regular expression (or ``source``, a pattern made from it)."""
        pattern = self.text(field) if source is None else source
        try:
            return re.compile(pattern, flags)
        except re.error as exc:
            raise self.error(field, f"not a valid regular expression ({exc})") from None

    def ref(self, field: str, value: Any, known: Mapping | set, what: str, hint: str = "") -> Any:
        """``value`` must be a key of ``known`` (a ``what``); ``hint`` says where such keys are defined."""
        if value not in known:
            raise self.error(field, f"unknown {what} {value!r}" + (f"; {hint}" if hint else ""))
        return value

    # -- collections ----------------------------------------------------------------------------
    def items(self, field: str, sep: str = "|") -> tuple[str, ...]:
        """A text of items (a CSV cell ``a|b``) split at ``sep``, parts stripped, empty parts dropped."""
        v = self.get(field, "")
        if not isinstance(v, str):
            raise self.error(field, f"expected a text of items separated by {sep!r}, got {v!r}")
        return tuple(part.strip() for part in v.split(sep) if part.strip())

    def texts(self, field: str, default: Any = _MISSING, distinct: bool = False) -> tuple[str, ...]:
        """A list of non-empty texts; non-empty unless the field is optional (has a default)."""
        v = self.get(field, default)
        if v is default:
            return v
        if not isinstance(v, list) or (not v and default is _MISSING) or not all(isinstance(x, str) and x.strip()
                                                                               for x in v):
            raise self.error(field, f"expected a {'non-empty ' if default is _MISSING else ''}list of texts, got {v!r}")
        if distinct:
            seen: set[str] = set()
            for i, x in enumerate(v):
                if x in seen:
                    raise self.error(f"{field}[{i}]", f"{x!r} is listed twice")
                seen.add(x)
        return tuple(v)

    def refs(self, field: str, known: Mapping | set, what: str, default: Any = _MISSING,
             hint: str = "") -> tuple[str, ...]:
        """A list of references (see :meth:`ref`)."""
        values = self.texts(field, default)
        for v in values:
            self.ref(field, v, known, what, hint)
        return values

    def mapping(self, field: str, default: Any = _MISSING) -> dict:
        """A mapping; non-empty unless the field is optional (has a default)."""
        v = self.get(field, default)
        if v is not default and (not isinstance(v, dict) or (not v and default is _MISSING)):
            raise self.error(field, f"expected a {'non-empty ' if default is _MISSING else ''}mapping, got {v!r}")
        return v

    def text_mapping(self, field: str, default: Any = _MISSING) -> dict[str, str]:
        """A mapping of texts (``""`` too) to non-empty texts, in file order."""
        v = self._text_keys(field, default)
        return v if v is default else {k: self.sub(field).text(k) for k in v}

    def text_groups(self, field: str, default: Any = _MISSING, distinct: bool = False) -> dict[str, tuple[str, ...]]:
        """A mapping of texts to lists of texts (:meth:`texts`), in file order."""
        v = self._text_keys(field, default)
        return v if v is default else {k: self.sub(field).texts(k, distinct=distinct) for k in v}

    def records(self, field: str, fields: Iterable[str]) -> dict[Any, Record]:
        """A mapping of names to nested records with no fields but ``fields`` (errors name ``field.name.x``)."""
        fields = tuple(fields)
        out = {}
        for name in self.mapping(field):
            out[name] = self.sub(field).sub(name)
            out[name].only(fields)
        return out

    def weights(self, field: str, default: Any = _MISSING, probabilities: bool = False) -> dict[Any, float]:
        """A mapping of names to weights (or probabilities)."""
        v = self.mapping(field, default)
        for k, w in (v if v is not default else {}).items():
            if not is_number(w) or w < 0 or (probabilities and w > 1):
                raise self.error(field, f"{k!r}: expected a {'probability' if probabilities else 'weight'}, got {w!r}")
        return v

    def pair(self, field: str, default: Any = _MISSING) -> tuple:
        """``[a, b]`` of numbers: a distribution ``[mean, sd]`` or a range ``[min, max]``."""
        v = self.get(field, default)
        if v is default:
            return v
        if not (isinstance(v, list) and len(v) == 2 and all(is_number(x) for x in v)):
            raise self.error(field, f"expected [number, number], got {v!r}")
        return tuple(v)

    def _text_keys(self, field: str, default: Any) -> dict:
        v = self.mapping(field, default)
        for k in v if v is not default else ():
            if not isinstance(k, str):
                raise self.error(field, f"{k!r}: expected a text key (quote it in YAML)")
        return v


def is_number(x: Any) -> bool:
    """An int or a float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _parse_number(s: str) -> Any:
    if re.fullmatch(r"-?\d+", s):
        return int(s)
    try:
        return float(s)
    except ValueError:
        return s  # reported by the caller
