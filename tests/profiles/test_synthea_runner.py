import json
import os
import stat
import time
from pathlib import Path

import pytest

from pipelines.profiles.synthea import (
    DEFAULT_COMMAND,
    SyntheaError,
    SyntheaSettings,
    build_command,
    ensure_stratum,
    properties_text,
    stratum_seed,
)

MINIMAL_BUNDLE = {"resourceType": "Bundle", "entry": [{"resource": {
    "resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1980-05-01"}}]}


def fake_synthea(tmp_path: Path, body: str) -> tuple[str, ...]:
    script = tmp_path / "fake-synthea"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return (str(script),)


def writes_one_bundle(tmp_path: Path) -> tuple[str, ...]:
    """A fake synthea that counts its runs and writes one bundle where ``-o`` says."""
    counter = tmp_path / "runs"
    bundle = json.dumps(MINIMAL_BUNDLE).replace("'", "")
    return fake_synthea(tmp_path, f"""
echo run >> {counter}
out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
mkdir -p "$out/fhir" && echo '{bundle}' > "$out/fhir/p1.json"
""")


def test_tietai_command_uses_the_core_flags():
    settings = SyntheaSettings(command=("synthea",), pool_size=7, reference_date="20240101")
    assert build_command(settings, "F_40-59", 123) == [
        "synthea", "-p", "7", "-s", "123", "-g", "F", "-a", "40-59", "-r", "20240101",
        "-c", "synthea.properties", "-o", "output"]
    assert str(SyntheaSettings().command[0]) == str(DEFAULT_COMMAND)
    assert "generate.modules.disabled = covid19" in properties_text(settings)


def test_java_command_enables_the_csv_export(tmp_path):
    settings = SyntheaSettings(jar=tmp_path / "synthea.jar", pool_size=3)
    command = build_command(settings, "M_75-120", 5)
    assert command[:3] == ["java", "-jar", str(tmp_path / "synthea.jar")]
    assert command[3:11] == ["-p", "3", "-s", "5", "-g", "M", "-a", "75-100"]
    assert command[-2:] == ["--exporter.baseDirectory=output/", "--exporter.csv.export=true"]
    assert "exporter.csv.export = true" in properties_text(settings)
    assert settings.generator == "synthea-java"


def test_settings_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CLINVERSE_SYNTHEA_CMD", "/opt/py/bin/synthea --log-level warning")
    monkeypatch.setenv("CLINVERSE_SYNTHEA_POOL_SIZE", "12")
    monkeypatch.setenv("CLINVERSE_SYNTHEA_TIMEOUT_S", "60")
    settings = SyntheaSettings.from_env()
    assert settings.command == ("/opt/py/bin/synthea", "--log-level", "warning")
    assert (settings.pool_size, settings.timeout_s, settings.generator) == (12, 60.0, "synthea")
    monkeypatch.setenv("CLINVERSE_SYNTHEA_JAR", str(tmp_path / "s.jar"))
    assert SyntheaSettings.from_env().generator == "synthea-java"


def test_stratum_seeds_are_fixed_and_distinct():
    assert stratum_seed(0, "F_0-17") == stratum_seed(0, "F_0-17")
    assert len({stratum_seed(0, s) for s in ("F_0-17", "M_0-17", "F_18-39")}) == 3
    assert stratum_seed(1, "F_0-17") != stratum_seed(0, "F_0-17")


def test_missing_binary_says_how_to_install(tmp_path):
    settings = SyntheaSettings(command=(str(tmp_path / "nowhere" / "synthea"),))
    with pytest.raises(SyntheaError, match="not found.*make env"):
        ensure_stratum(settings, tmp_path / "pool", "F_0-17", 0)
    with pytest.raises(SyntheaError, match="jar not found"):
        ensure_stratum(SyntheaSettings(jar=tmp_path / "missing.jar"), tmp_path / "pool", "F_0-17", 0)


def test_failure_reports_status_and_the_tail_of_the_output(tmp_path):
    command = fake_synthea(tmp_path, 'for i in $(seq 1 60); do echo "line $i"; done\necho "Error: boom" >&2\nexit 3\n')
    with pytest.raises(SyntheaError) as failure:
        ensure_stratum(SyntheaSettings(command=command), tmp_path / "pool", "M_18-39", 0)
    message = str(failure.value)
    assert "exit status 3" in message and "Error: boom" in message and "line 60" in message
    assert "line 5\n" not in message  # only the last 40 lines
    assert "-g M -a 18-39" in message
    assert not (tmp_path / "pool" / "M_18-39").exists()
    assert "line 1" in (tmp_path / "pool" / "M_18-39.failed.log").read_text()
    assert not list((tmp_path / "pool").glob(".*partial"))


def test_timeout_kills_synthea_and_says_so(tmp_path):
    command = fake_synthea(tmp_path, "echo starting\nsleep 30\n")
    started = time.perf_counter()
    with pytest.raises(SyntheaError, match=r"timed out after 0.5 s(.|\n)*starting"):
        ensure_stratum(SyntheaSettings(command=command, timeout_s=0.5), tmp_path / "pool", "F_0-17", 0)
    assert time.perf_counter() - started < 10


def test_no_patients_is_an_error(tmp_path):
    command = fake_synthea(tmp_path, "echo done\n")
    with pytest.raises(SyntheaError, match="wrote no patients"):
        ensure_stratum(SyntheaSettings(command=command), tmp_path / "pool", "F_0-17", 0)


def test_an_existing_pool_is_reused_and_a_changed_one_regenerated(tmp_path):
    settings = SyntheaSettings(command=writes_one_bundle(tmp_path), pool_size=2)
    first = ensure_stratum(settings, tmp_path / "pool", "F_40-59", 0)
    again = ensure_stratum(settings, tmp_path / "pool", "F_40-59", 0)
    assert (first.reused, again.reused) == (False, True)
    assert (tmp_path / "runs").read_text().count("run") == 1
    assert json.loads((first.folder / "run.json").read_text())["pool_size"] == 2
    bigger = ensure_stratum(SyntheaSettings(command=settings.command, pool_size=3), tmp_path / "pool", "F_40-59", 0)
    assert not bigger.reused and (tmp_path / "runs").read_text().count("run") == 2
    assert sorted(p.name for p in (tmp_path / "pool").iterdir()) == ["F_40-59"]
    assert os.access(bigger.folder / "output" / "fhir" / "p1.json", os.R_OK)
