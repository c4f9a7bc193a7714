"""Errors a user can act on: each names the file, the column and the setting to change."""


class SourceError(RuntimeError):
    """A source location, file or column is missing or unreadable."""


def where(setting: str, flag: str) -> str:
    return f"set {setting} (or `clinverse build {flag}`)"


FLAGS = {
    "CLINVERSE_MIMIC_IV_DIR": "--mimic-iv DIR",
    "CLINVERSE_MIMIC_NOTE_DIR": "--mimic-note DIR",
    "CLINVERSE_SICDB_DIR": "--sicdb DIR",
    "CLINVERSE_MEDQA_PATH": "--medqa FILE",
}


def hint(setting: str) -> str:
    return where(setting, FLAGS.get(setting, ""))
