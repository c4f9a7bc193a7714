"""Package data files (commented CSV and YAML) read through ``importlib.resources`` and checked on load.

Catalogs, lexicons and reference tables live beside the module that uses them. A mistake in one
must fail where it is, so every error names the file, the row (CSV line number) or record (YAML
key path) and the field.

* CSV: lines starting with ``#`` are comments; the first other line is the header, which must
  list exactly the expected columns; every other line is one record (no line breaks inside
  quotes). Every cell is text; :class:`Record` converts it.
* YAML: read with ``yaml.BaseLoader``, so every scalar stays text (``no``, ``on`` and ``1.0`` are
  not turned into booleans or numbers); a key given twice in one mapping is an error.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import yaml


class DataFileError(ValueError):
    """A package data file does not have the shape its loader expects."""


def _path(package: str, name: str) -> str:
    return f"{package.replace('.', '/')}/{name}"


@dataclass(frozen=True)
class Record:
    """One CSV row or YAML mapping whose fields are text; ``where`` is its line or key path."""

    file: str
    where: str
    values: Mapping[str, Any]

    def error(self, field: str, problem: str) -> DataFileError:
        return DataFileError(f"{self.file}, {self.where}, field {field!r}: {problem}")

    def _raw(self, field: str) -> str:
        value = self.values.get(field)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.error(field, f"expected text, found {type(value).__name__}")
        return value.strip()

    def text(self, field: str) -> str:
        value = self._raw(field)
        if not value:
            raise self.error(field, "is empty")
        return value

    def optional(self, field: str) -> str | None:
        return self._raw(field) or None

    def number(self, field: str) -> float | None:
        value = self._raw(field)
        if not value:
            return None
        try:
            return float(value)
        except ValueError:
            raise self.error(field, f"{value!r} is not a number") from None

    def items(self, field: str, sep: str = "|") -> tuple[str, ...]:
        """The field split at ``sep``, parts stripped, empty parts dropped."""
        return tuple(part.strip() for part in self._raw(field).split(sep) if part.strip())

    def choice(self, field: str, allowed: Sequence[str]) -> str:
        value = self._raw(field)
        if value not in allowed:
            raise self.error(field, f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def flag(self, field: str) -> bool:
        """``yes`` or empty."""
        return self.choice(field, ("yes", "")) == "yes"

    def pattern(self, field: str, flags: int = 0) -> re.Pattern[str]:
        return compile_pattern(self.text(field), flags, lambda problem: self.error(field, problem))


def compile_pattern(pattern: str, flags: int, error) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise error(f"not a valid regular expression ({exc})") from None


def csv_records(package: str, name: str, columns: Sequence[str]) -> list[Record]:
    """The rows of a commented CSV file whose header is exactly ``columns``."""
    path = _path(package, name)
    numbered = [(n, line) for n, line in enumerate(files(package).joinpath(name).read_text("utf-8").splitlines(), 1)
                if line.strip() and not line.startswith("#")]
    if not numbered:
        raise DataFileError(f"{path}: no header line")
    (header_line, header), *body = numbered
    found = next(csv.reader([header]))
    if found != list(columns):
        raise DataFileError(f"{path}, line {header_line}: header is {found}, expected {list(columns)}")
    records = []
    for n, line in body:
        cells = next(csv.reader([line]))
        if len(cells) != len(columns):
            raise DataFileError(f"{path}, line {n}: {len(cells)} fields, expected {len(columns)} ({', '.join(columns)})")
        records.append(Record(path, f"line {n}", dict(zip(columns, cells))))
    return records


def unique(records: Sequence[Record], field: str, key=lambda value: value) -> None:
    """Fail when two records share ``key(field)``."""
    seen: dict[str, Record] = {}
    for record in records:
        value = key(record.text(field))
        if value in seen:
            raise record.error(field, f"{record.values[field]!r} repeats {seen[value].where}")
        seen[value] = record


# --------------------------------------------------------------------------------------- YAML


class _Loader(yaml.BaseLoader):
    def construct_mapping(self, node, deep=False):
        keys: dict[str, int] = {}
        for key_node, _ in node.value:
            key = key_node.value
            if key in keys:
                raise DataFileError(f"{self.name}, line {key_node.start_mark.line + 1}: key {key!r} repeats "
                                    f"line {keys[key]}")
            keys[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)


class YamlFile:
    """A YAML mapping of named sections; the accessors check each section's shape."""

    def __init__(self, package: str, name: str, sections: Sequence[str]):
        self.file = _path(package, name)
        loader = _Loader(files(package).joinpath(name).read_text("utf-8"))
        loader.name = self.file
        try:
            data = loader.get_single_data()
        except yaml.YAMLError as exc:
            raise DataFileError(f"{self.file}: not valid YAML ({exc})") from None
        finally:
            loader.dispose()
        if not isinstance(data, dict):
            raise DataFileError(f"{self.file}: expected a mapping of sections")
        if set(data) != set(sections):
            raise DataFileError(f"{self.file}: sections are {sorted(data)}, expected {sorted(sections)}")
        self.data = data

    def error(self, where: str, problem: str) -> DataFileError:
        return DataFileError(f"{self.file}, {where}: {problem}")

    def _typed(self, value: Any, kind: type, where: str) -> Any:
        if not isinstance(value, kind):
            raise self.error(where, f"expected a {kind.__name__}, found {type(value).__name__}")
        if kind is str and not value.strip():
            raise self.error(where, "is empty")
        return value

    def strings(self, section: str) -> tuple[str, ...]:
        """A list of distinct texts."""
        values = self._typed(self.data[section], list, section)
        out = tuple(self._typed(v, str, f"{section}[{i}]") for i, v in enumerate(values))
        self._distinct(out, section)
        return out

    def mapping(self, section: str) -> dict[str, str]:
        """A mapping of text to text, in file order."""
        values = self._typed(self.data[section], dict, section)
        return {self._typed(k, str, section): self._typed(v, str, f"{section}.{k}") for k, v in values.items()}

    def groups(self, section: str) -> dict[str, tuple[str, ...]]:
        """A mapping of text to a list of texts, in file order."""
        values = self._typed(self.data[section], dict, section)
        out = {}
        for key, items in values.items():
            where = f"{section}.{key}"
            out[key] = tuple(self._typed(v, str, f"{where}[{i}]") for i, v in enumerate(self._typed(items, list, where)))
            self._distinct(out[key], where)
        return out

    def records(self, section: str, fields: Sequence[str]) -> dict[str, Record]:
        """A mapping of names to mappings with exactly ``fields``, as :class:`Record` (where: ``section.name``)."""
        out = {}
        for name, value in self._typed(self.data[section], dict, section).items():
            where = f"{section}.{name}"
            value = self._typed(value, dict, where)
            if set(value) != set(fields):
                raise self.error(where, f"fields are {sorted(value)}, expected {sorted(fields)}")
            out[name] = Record(self.file, where, value)
        return out

    def _distinct(self, values: Sequence[str], where: str) -> None:
        seen: set[str] = set()
        for i, v in enumerate(values):
            if v in seen:
                raise self.error(f"{where}[{i}]", f"{v!r} is listed twice")
            seen.add(v)
