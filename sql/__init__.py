"""DuckDB SQL kept as files, one query per file, loaded by name, and the connections that run it.

Queries use ``{placeholders}`` only for table locations (Parquet globs) that the caller
formats in; values always go through DuckDB parameters.

Every connection comes from :func:`connect`: in memory, holding at most ``CLINVERSE_DUCKDB_MEMORY``
(default 1GB) before it spills to a folder of this process's own under the system's temporary
folder. DuckDB's own default, 80 % of the machine's memory, let a build's peak memory grow with its
input (the exam publisher alone took 1.2 GB at 32,000 generated admissions); and its default spill
folder, ``.tmp`` in the working directory, would have put spill files wherever a build was started.
"""

import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb

from pipelines.config import duckdb_memory


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the build's memory limit and spill folder (module docstring)."""
    spill = Path(tempfile.gettempdir()) / f"clinverse-duckdb-{os.getpid()}"  # one per process: no shared names
    return duckdb.connect(config={"memory_limit": duckdb_memory(), "temp_directory": str(spill)})


@cache
def load(name: str) -> str:
    try:
        return resources.files(__name__).joinpath(f"{name}.sql").read_text()
    except FileNotFoundError as exc:
        raise KeyError(f"no SQL file sql/{name}.sql") from exc
