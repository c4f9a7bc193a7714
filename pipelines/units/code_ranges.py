"""Tables of ICD-10-CM code ranges read from data files (``first``, ``last`` columns).

``first`` and ``last`` are dotted-code prefixes (``I10``, ``Z91.0``, ``Z87.891``) and a code is in
the range when its own prefixes of those lengths lie between them, so ``E08-E13`` holds every
diabetes code and ``Z91.0-Z91.0`` only allergy codes of Z91. The first matching row wins.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pipelines.datafiles import Record

T = TypeVar("T")
PREFIX = re.compile(r"[A-Z][0-9][0-9A-Z](?:\.[0-9A-Z]{1,4})?")


def code_range(record: Record, first_field: str = "first", last_field: str = "last") -> tuple[str, str]:
    """The record's checked (first, last) prefixes."""
    first, last = record.text(first_field), record.text(last_field)
    for field, value in ((first_field, first), (last_field, last)):
        if not PREFIX.fullmatch(value):
            raise record.error(field, f"{value!r} is not a dotted ICD-10-CM code prefix")
    if first[: len(last)] > last:
        raise record.error(last_field, f"range {first}-{last} is empty")
    return first, last


def parse_ranges(record: Record, field: str) -> tuple[tuple[str, str], ...]:
    """A cell of ``A-B|C`` ranges (a single prefix is a one-prefix range)."""
    out = []
    for item in record.items(field):
        first, _, last = item.partition("-")
        last = last or first
        for value in (first, last):
            if not PREFIX.fullmatch(value):
                raise record.error(field, f"{value!r} (in {item!r}) is not a dotted ICD-10-CM code prefix")
        if first[: len(last)] > last:
            raise record.error(field, f"range {item!r} is empty")
        out.append((first, last))
    if not out:
        raise record.error(field, "missing; it is required")
    return tuple(out)


def in_range(code: str, first: str, last: str) -> bool:
    return first <= code[: len(first)] and code[: len(last)] <= last


def in_ranges(code: str, ranges: tuple[tuple[str, str], ...]) -> bool:
    """``code`` lies in one of ``ranges`` (as :func:`parse_ranges` reads them)."""
    return any(in_range(code, first, last) for first, last in ranges)


@dataclass(frozen=True)
class CodeRanges(Generic[T]):
    """Rows ``(first, last, value)`` in file order; :meth:`find` is the value of the first row holding a code.

    One-prefix rows (``first == last``, most of a derived list) are looked up by prefix, the
    others scanned, so a lookup does not grow with the number of one-prefix rows.
    """

    rows: tuple[tuple[str, str, T], ...]

    def __post_init__(self) -> None:
        exact: dict[str, int] = {}
        for i, (first, last, _) in enumerate(self.rows):
            if first == last:
                exact.setdefault(first, i)
        object.__setattr__(self, "_exact", exact)
        object.__setattr__(self, "_spans", tuple(i for i, (f, l, _) in enumerate(self.rows) if f != l))

    @classmethod
    def of(cls, records: Iterable[Record], value: Callable[[Record], T]) -> CodeRanges[T]:
        return cls(tuple((*code_range(r), value(r)) for r in records))

    def find(self, code: str | None) -> T | None:
        if not code:
            return None
        hits = [i for n in range(3, len(code) + 1) if (i := self._exact.get(code[:n])) is not None]
        hits += [i for i in self._spans if in_range(code, self.rows[i][0], self.rows[i][1])]
        return self.rows[min(hits)][2] if hits else None

    def __contains__(self, code: str | None) -> bool:
        return self.find(code) is not None
