"""The doctor's output (Template B.1 + icd10) and the named presets."""

import json

import pytest

from pipelines.episodes.actions import Ask, CallMdt, Finalize, ProtocolError, RequestTest, parse, to_json
from pipelines.episodes.config import preset


@pytest.mark.parametrize("action", [
    Ask(("Any fever?", "Any cough?")),
    RequestTest(("CBC",)),
    RequestTest(("Sodium", "Potassium")),
    CallMdt("Please review."),
    Finalize("Heart failure", "I50.9", ("edema",), ("diuretics",), ("review in 2 weeks",)),
])
def test_every_action_survives_the_template(action):
    assert parse(to_json(action)) == action


def test_template_b1_output_with_all_fields_parses():
    output = {"action": "FINALIZE", "utterance": "", "question": "", "test_name": "", "rationale": ["r"],
              "working_diagnoses": ["HF"], "needs_mdt": False, "diagnosis": ["Heart failure"], "evidence": ["edema"],
              "plan": ["diuretics"], "followup": ["clinic"], "icd10": "I50.9"}
    assert parse(json.dumps(output)) == Finalize("Heart failure", "I50.9", ("edema",), ("diuretics",), ("clinic",))


@pytest.mark.parametrize("output, reason", [
    ("not json", "not one JSON object"),
    ("[1, 2]", "not one JSON object"),
    ('{"action": "ORDER"}', "action must be one of"),
    ('{"action": "ASK", "question": "", "mood": "calm"}', "not in the template"),
    ('{"action": "ASK", "question": "   "}', "non-empty question"),
    ('{"action": "ASK", "question": "Fever? Cough? Pain?"}', "at most 2 questions"),
    ('{"action": "REQUEST_TEST", "test_name": ""}', "needs a test_name"),
    ('{"action": "FINALIZE", "diagnosis": ["HF", "COPD"], "icd10": "I50.9"}', "exactly one diagnosis"),
    ('{"action": "FINALIZE", "diagnosis": ["HF"]}', "needs an icd10"),
    ('{"action": "FINALIZE", "diagnosis": ["HF"], "icd10": "I50.9", "plan": "rest"}', None),
    ('{"action": "FINALIZE", "diagnosis": ["HF"], "icd10": "I50.9", "plan": [3]}', "list of strings"),
])
def test_unusable_outputs_are_protocol_errors(output, reason):
    if reason is None:  # a single string where a list is expected is read as a one-item list
        assert parse(output).plan == ("rest",)
        return
    with pytest.raises(ProtocolError, match=reason):
        parse(output)


def test_presets_carry_the_papers_budgets():
    medevoeval, clinverse = preset("medevoeval"), preset("clinverse")
    assert (medevoeval.action_budget, medevoeval.test_limit, medevoeval.lookup, medevoeval.panels,
            medevoeval.unrecorded) == (10, 3, "exact", False, "not_in_case")
    assert clinverse.action_budget > medevoeval.action_budget
    assert (clinverse.lookup, clinverse.panels, clinverse.unrecorded) == ("alias", True, "predict")
    assert json.loads(medevoeval.to_json())["action_budget"] == 10


def test_preset_overrides_are_checked():
    assert preset("medevoeval", unrecorded="null").unrecorded == "null"
    with pytest.raises(KeyError, match="unknown episode settings"):
        preset("medevoeval", budget=3)
    with pytest.raises(KeyError, match="no episode preset"):
        preset("aihospital")
    with pytest.raises(ValueError, match="unrecorded must be one of"):
        preset("clinverse", unrecorded="normal")
