"""Errors a user can act on: each names the file, the column and the setting to change."""

from pipelines.sources.registry import SOURCES


class SourceError(RuntimeError):
    """A source location, file or column is missing or unreadable."""


FLAGS = {s.setting: f"{s.flag} {s.metavar}" for s in SOURCES}


def named(setting: str) -> str:
    """The variable and its `clinverse build` flag, e.g. ``CLINVERSE_MIMIC_IV_DIR (--mimic-iv)``."""
    flag = FLAGS.get(setting, "").split(" ")[0]
    return f"{setting} ({flag})" if flag else setting


def hint(setting: str) -> str:
    """How to point ClinVerse at a source: the variable and the equivalent `clinverse build` flag."""
    return f"set {setting} (or `clinverse build {FLAGS.get(setting, '')}`)"


def location_problems(settings) -> list[str]:
    """Configured source locations that do not exist, checked before a build starts so that one
    clear message replaces a failure per staging table."""
    problems = []
    for source in SOURCES:
        for where in settings.paths(source.name):
            if source.layout == "directory" and not where.is_dir():
                problems.append(f"{source.setting}={where} is not a directory; {hint(source.setting)}")
            elif source.layout == "files" and not where.is_file():
                problems.append(f"{source.setting} names {where}, which is not a file; {hint(source.setting)}")
    return problems
