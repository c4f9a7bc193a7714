"""DuckDB SQL kept as files, one query per file, loaded by name.

Queries use ``{placeholders}`` only for table locations (Parquet globs) that the caller
formats in; values always go through DuckDB parameters.
"""

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    try:
        return resources.files(__name__).joinpath(f"{name}.sql").read_text()
    except FileNotFoundError as exc:
        raise KeyError(f"no SQL file sql/{name}.sql") from exc
