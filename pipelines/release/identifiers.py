"""The source identifiers a release must not hold: where they live, read from ``data/identifiers.yaml``.

Kept apart from the writer's ``data/tables.yaml`` on purpose: the scan (pipelines/release/scan.py)
works from this file and the warehouse alone, so a table or column the writer lets through by
mistake is still caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from pipelines.datafiles import yaml_record
from pipelines.release.spec import PACKAGE

IDENTIFIERS_FILE = "data/identifiers.yaml"


@dataclass(frozen=True)
class IdentifierColumn:
    name: str  # the column name, as the warehouse spells it
    kind: str  # what a finding and the card call its values
    values: bool  # its values are searched (else only the column name is refused)


@dataclass(frozen=True)
class IdentifierRules:
    columns: dict[str, IdentifierColumn]
    case_links: str  # the table that ties identifiers to their case_id
    case_keys: dict[str, str]  # source -> the case_links column its case_id hashes
    anywhere_min_digits: int
    same_case_min_digits: int
    min_string_length: int
    date_patterns: tuple[str, ...]  # RE2 patterns of a date in text

    def column_named(self, name: str) -> IdentifierColumn | None:
        """The identifier column ``name`` is, compared without case (``caseid`` is ``CaseID``)."""
        return next((c for c in self.columns.values() if c.name.lower() == name.lower()), None)


@cache
def identifier_rules() -> IdentifierRules:
    doc = yaml_record(PACKAGE, IDENTIFIERS_FILE, ("columns", "case_links", "case_keys", "search", "date_patterns"))
    columns = {name: IdentifierColumn(name, record.text("kind"), record.flag("values"))
               for name, record in doc.records("columns", ("kind", "values")).items()}
    case_keys = doc.text_mapping("case_keys")
    for source, column in case_keys.items():
        if column not in columns:
            raise doc.error(f"case_keys.{source}", f"{column!r} is not one of the identifier columns")
    search = doc.sub("search")
    search.only(("anywhere_min_digits", "same_case_min_digits", "min_string_length"))
    anywhere = search.integer("anywhere_min_digits", lo=1)
    same_case = search.integer("same_case_min_digits", lo=1)
    if same_case > anywhere:
        raise search.error("same_case_min_digits", "cannot exceed anywhere_min_digits")
    return IdentifierRules(columns, doc.text("case_links"), case_keys, anywhere, same_case,
                           search.integer("min_string_length", lo=1), doc.texts("date_patterns"))
