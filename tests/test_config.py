import re
from pathlib import Path

import dagster as dg
import pytest

from pipelines import config
from pipelines.config import DEFAULT_SUFFICIENCY, Settings, default_workers, parse_sufficiency, parse_values
from pipelines.profiles.synthea import SyntheaSettings
from pipelines.resources import ClinverseResource, SyntheaResource
from pipelines.sources.registry import SOURCES

README = Path(__file__).resolve().parents[1] / "README.md"


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
    assert len(settings.paths("medqa")) == 2
    assert settings.dataset_label("sicdb", settings.location("sicdb")) == "sicdb-1.0.6"


def test_workers_come_from_the_environment_and_default_to_the_cpus(monkeypatch, tmp_path):
    monkeypatch.setenv("CLINVERSE_HOME", str(tmp_path))
    monkeypatch.setenv("CLINVERSE_WORKERS", "3")
    assert Settings.from_env().workers == 3
    monkeypatch.delenv("CLINVERSE_WORKERS")
    assert Settings.from_env().workers == default_workers() >= 1


@pytest.mark.parametrize("text", ["0", "-2", "two", "1.5"])
def test_malformed_workers_is_an_error_naming_the_variable(text):
    with pytest.raises(ValueError, match="CLINVERSE_WORKERS"):
        parse_values("build", {"workers": text})


NUMERIC = [s for s in config.SETTINGS if s.kind in (int, float)] + [
    s for s in config.SETTINGS
    if s.env in ("CLINVERSE_BENCH_SCALES", "CLINVERSE_SYNTHEA_REFERENCE_DATE", "CLINVERSE_DUCKDB_MEMORY")]


@pytest.mark.parametrize("setting", NUMERIC, ids=[s.env for s in NUMERIC])
def test_every_numeric_setting_names_its_variable_and_shows_a_valid_value(setting):
    with pytest.raises(config.SettingError) as error:
        setting.read("abc")
    assert re.fullmatch(rf"{setting.env}: cannot read 'abc'; write .+, e\.g\. {re.escape(setting.example)}",
                        str(error.value)), str(error.value)
    setting.read(setting.example)  # the example shown is itself valid


def test_the_seed_error_reads_as_documented(monkeypatch):
    monkeypatch.setenv("CLINVERSE_SEED", "abc")
    with pytest.raises(config.SettingError, match=r"^CLINVERSE_SEED: cannot read 'abc'; write an integer, e\.g\. 0$"):
        Settings.from_env()


def test_the_readme_table_lists_every_setting_and_nothing_else():
    table = [line for line in README.read_text().splitlines() if line.startswith("| `CLINVERSE_")]
    documented = {name for line in table for name in re.findall(r"`(CLINVERSE_[A-Z_0-9]+)`", line.split("|")[1])}
    assert documented == {s.env for s in config.SETTINGS}


def test_sources_settings_and_resource_fields_come_from_one_table():
    assert {s.setting for s in SOURCES} <= {s.env for s in config.SETTINGS}
    assert set(ClinverseResource.model_fields) - {"generation"} == {s.field for s in config.settings_of("build")}
    assert set(SyntheaResource.model_fields) == {s.field for s in config.settings_of("synthea")}
    assert {s.field for s in config.settings_of("synthea")} == set(SyntheaSettings.__dataclass_fields__)


def test_resources_from_the_environment_hold_env_vars(tmp_path):
    environ = {"CLINVERSE_HOME": str(tmp_path), "CLINVERSE_SEED": "7", "CLINVERSE_TEST_FRACTION": "0.3",
               "CLINVERSE_SICDB_DIR": "", "CLINVERSE_SYNTHEA_POOL_SIZE": "2"}
    clinverse = ClinverseResource.from_env(environ)
    assert isinstance(clinverse.home, dg.EnvVar) and clinverse.home.env_var_name == "CLINVERSE_HOME"
    assert clinverse.sicdb_dir is None  # blank means unset
    assert clinverse.test_fraction == 0.3  # Dagster has no float variables: passed as read
    assert SyntheaResource.from_env(environ).pool_size is not None
    with pytest.raises(config.SettingError, match="CLINVERSE_SEED"):
        ClinverseResource.from_env({**environ, "CLINVERSE_SEED": "seven"})


def test_resources_read_their_fields_through_the_one_parser(tmp_path):
    clinverse = ClinverseResource.from_values({"home": str(tmp_path), "seed": "5", "medqa_path": "a.jsonl:b.jsonl"})
    settings = clinverse.settings()
    assert (settings.home, settings.seed, settings.configured_sources()) == (tmp_path, 5, ["medqa"])
    assert ClinverseResource(home=str(tmp_path)).settings().configured_sources() == []
    synthea = SyntheaResource(command="/opt/synthea --quiet", pool_size=2).settings()
    assert (synthea.command, synthea.pool_size, synthea.timeout_s) == (("/opt/synthea", "--quiet"), 2, 1800.0)
    with pytest.raises(config.SettingError, match="CLINVERSE_SYNTHEA_REFERENCE_DATE"):
        SyntheaResource(reference_date="2025-01-01").settings()
