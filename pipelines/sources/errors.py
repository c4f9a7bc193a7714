"""Errors a user can act on: each names the file, the column and the setting to change."""


class SourceError(RuntimeError):
    """A source location, file or column is missing or unreadable."""


FLAGS = {
    "CLINVERSE_MIMIC_IV_DIR": "--mimic-iv DIR",
    "CLINVERSE_MIMIC_NOTE_DIR": "--mimic-note DIR",
    "CLINVERSE_SICDB_DIR": "--sicdb DIR",
    "CLINVERSE_MEDQA_PATH": "--medqa FILE",
}


def hint(setting: str) -> str:
    """How to point ClinVerse at a source: the variable and the equivalent `clinverse build` flag."""
    return f"set {setting} (or `clinverse build {FLAGS.get(setting, '')}`)"


def location_problems(settings) -> list[str]:
    """Configured source locations that do not exist, checked before a build starts so that one
    clear message replaces a failure per staging table."""
    problems = [
        f"{setting}={where} is not a directory; {hint(setting)}"
        for setting, where in (("CLINVERSE_MIMIC_IV_DIR", settings.mimic_iv_dir),
                               ("CLINVERSE_MIMIC_NOTE_DIR", settings.mimic_note_dir),
                               ("CLINVERSE_SICDB_DIR", settings.sicdb_dir))
        if where is not None and not where.is_dir()
    ]
    problems += [f"CLINVERSE_MEDQA_PATH names {p}, which is not a file; {hint('CLINVERSE_MEDQA_PATH')}"
                 for p in settings.medqa_paths if not p.is_file()]
    return problems
