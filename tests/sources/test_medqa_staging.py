import json

import pytest

from pipelines.sources.errors import SourceError
from pipelines.sources.medqa import stage_medqa

GOOD = {"question": "A 30-year-old man ... Which of the following is the most likely diagnosis?", "answer": "Gout",
        "options": {"A": "Gout", "B": "Pseudogout"}, "meta_info": "step2&3", "answer_idx": "A"}


def test_questions_are_staged_and_bad_lines_rejected(tmp_path):
    path = tmp_path / "q.jsonl"
    bad_idx = dict(GOOD, answer_idx="Z")
    path.write_text("\n".join([json.dumps(GOOD), "{not json", json.dumps(bad_idx), "", json.dumps({"question": "x"})]))
    questions, rejects = stage_medqa((path,))
    assert questions.height == 1 and questions["medqa_line"].to_list() == [1]
    assert rejects["row_number"].to_list() == [2, 3, 5]
    assert rejects["reason"].str.contains("invalid JSON").any()
    assert json.loads(questions["options"][0]) == GOOD["options"]


def test_hash_is_stable_and_independent_of_position(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps(GOOD) + "\n")
    b.write_text("\n" + json.dumps(GOOD) + "\n")
    assert stage_medqa((a,))[0]["medqa_hash"].item() == stage_medqa((b,))[0]["medqa_hash"].item()


def test_missing_file_names_the_setting(tmp_path):
    with pytest.raises(SourceError, match="CLINVERSE_MEDQA_PATH"):
        stage_medqa((tmp_path / "missing.jsonl",))


def test_real_sample_stages_without_rejects(medqa_sample):
    questions, rejects = stage_medqa((medqa_sample,))
    assert questions.height == 128 and rejects.height == 0


def test_a_bad_byte_rejects_its_line_and_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "q.jsonl"
    latin1 = json.dumps(dict(GOOD, question="A caf\u00e9 owner ... diagnosis?"), ensure_ascii=False).encode("latin-1")
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode() + b"\n" + latin1 + b"\n"
                     + json.dumps(dict(GOOD, answer_idx="B", answer="Pseudogout")).encode() + b"\n")
    questions, rejects = stage_medqa((path,))
    assert questions["medqa_line"].to_list() == [1, 3]
    assert rejects["row_number"].to_list() == [2]
    assert rejects["reason"].item().startswith("not UTF-8")
