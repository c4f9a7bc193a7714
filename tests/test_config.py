import pytest

from pipelines.config import DEFAULT_SUFFICIENCY, Settings, default_workers, parse_sufficiency, parse_workers


def test_sufficiency_overrides_only_the_named_sources():
    rules = parse_sufficiency("medqa=2:0, sicdb=1:1")
    assert rules == {**DEFAULT_SUFFICIENCY, "medqa": (2, 0), "sicdb": (1, 1)}


@pytest.mark.parametrize("text", ["medqa=2", "nowhere=1:1", "medqa:1:1"])
def test_malformed_sufficiency_is_an_error_naming_the_variable(text):
    with pytest.raises(ValueError, match="CLINVERSE_SUFFICIENCY"):
        parse_sufficiency(text)


def test_settings_read_sources_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CLINVERSE_HOME", str(tmp_path))
    monkeypatch.setenv("CLINVERSE_SICDB_DIR", str(tmp_path / "sicdb-1.0.6"))
    monkeypatch.setenv("CLINVERSE_MEDQA_PATH", f"{tmp_path}/a.jsonl:{tmp_path}/b.jsonl")
    for name in ("CLINVERSE_MIMIC_IV_DIR", "CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SUFFICIENCY", "CLINVERSE_DATASET"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.from_env()
    assert settings.configured_sources() == ["sicdb", "medqa"]
    assert len(settings.medqa_paths) == 2
    assert settings.dataset_label("sicdb", settings.sicdb_dir) == "sicdb-1.0.6"


def test_workers_come_from_the_environment_and_default_to_the_cpus(monkeypatch, tmp_path):
    monkeypatch.setenv("CLINVERSE_HOME", str(tmp_path))
    monkeypatch.setenv("CLINVERSE_WORKERS", "3")
    assert Settings.from_env().workers == 3
    monkeypatch.delenv("CLINVERSE_WORKERS")
    assert Settings.from_env().workers == default_workers() >= 1


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5"])
def test_malformed_workers_is_an_error_naming_the_variable(text):
    with pytest.raises(ValueError, match="CLINVERSE_WORKERS"):
        parse_workers(text)
