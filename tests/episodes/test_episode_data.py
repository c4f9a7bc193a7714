"""The episode engine's data files load through the checking loader: every file reads, and a
damaged copy fails naming the file and the field (pipelines/datafiles.py)."""

import re

import pytest

from pipelines.datafiles import DataFileError, yaml_mapping
from pipelines.episodes import config, doctors, messages, retrieval, self_check, stress, voice
from pipelines.episodes.clinlab.model import default_settings
from pipelines.episodes.llm import normalise, roles


def test_every_episode_data_file_loads():
    assert set(config.presets()) == {"medevoeval", "clinverse"}
    assert doctors.doctor_texts()["questions"] and messages.messages()["lab"]
    assert retrieval.cue_settings()["cues"] and voice._voice()["categories"]
    assert set(self_check.boundary_cues()) == {"diagnosis", "told", "results", "records", "code"}
    assert len(stress.stress_queries()) == 6 and default_settings()["cv_folds"] >= 2
    assert normalise._aliases()["actions"]
    assert {role: bool(roles.prompts(role)) for role in ("doctor", "patient", "consultant")} == dict.fromkeys(
        ("doctor", "patient", "consultant"), True)


@pytest.mark.parametrize(("text", "fields", "where"), [
    ("questions: []\nplan: x\n", ("questions", "plan", "follow_up"), "field 'follow_up': missing"),
    ("questions: []\nplann: x\n", ("questions", "plan"), "field 'plann': unknown field"),
    ("a: 1\na: 2\n", None, "duplicate key 'a'"),
    ("- a\n- b\n", None, "expected a mapping"),
])
def test_a_damaged_file_is_refused_naming_the_file_and_the_field(tmp_path, text, fields, where):
    (tmp_path / "damaged.yaml").write_text(text)
    with pytest.raises(DataFileError, match=re.escape(where)) as caught:
        yaml_mapping(tmp_path, "damaged.yaml", fields)
    assert "damaged.yaml" in str(caught.value)
