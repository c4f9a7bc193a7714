"""The offline observable patient and its self-check."""

from dataclasses import replace

import pytest

from pipelines.episodes.doctors import doctor_texts
from pipelines.episodes.patient import ObservablePatient, SingleLayerPatient
from pipelines.episodes.retrieval import Retriever, Vocabulary
from pipelines.episodes.screen import BoundaryScreen
from pipelines.episodes.self_check import SelfCheck, boundary_request, respond
from pipelines.episodes.stress import stress_queries
from pipelines.episodes.views import ExamCatalog
from pipelines.episodes.voice import Fact, first_person


@pytest.fixture(scope="module")
def vocabulary(store):
    return Vocabulary(store.unit_texts())


@pytest.fixture()
def patient(heart_failure, vocabulary):
    return ObservablePatient(heart_failure.patient, vocabulary, seed=3)


def ids(case, *texts):
    return tuple(u.unit_id for t in texts for u in case.patient.units if u.text == t)


def test_reply_says_the_best_matching_hidden_units_and_records_them(patient, heart_failure):
    reply = patient.reply("What medications do you take?")
    assert reply.unit_ids == ids(heart_failure, "furosemide 40 mg by mouth daily")
    assert "I take furosemide 40 mg by mouth daily." in reply.text


def test_nothing_matching_is_a_neutral_i_dont_know(patient):
    reply = patient.reply("Have you travelled to Brazil recently?")
    assert reply.unit_ids == () and "don't know" in reply.text
    assert not reply.text.lower().startswith("no")


def test_denials_come_only_from_negated_units(patient, heart_failure):
    reply = patient.reply("Do you have chest pain?")
    assert ids(heart_failure, "no chest pain")[0] in reply.unit_ids
    assert "No, I haven't had chest pain." in reply.text


def test_disclosed_units_are_not_retold_and_said_units_come_last(patient, heart_failure, vocabulary):
    reply = patient.reply("Tell me about your breathing and your symptoms.")
    assert reply.unit_ids and ids(heart_failure, "shortness of breath")[0] not in reply.unit_ids  # presented already
    facts = [Fact(u.unit_id, u.category, u.text, u.negated) for u in heart_failure.patient.hidden]
    retriever = Retriever(vocabulary, facts)
    ranked = retriever.match("Any leg swelling or chest pain?")
    again = retriever.match("Any leg swelling or chest pain?", said=frozenset({ranked[0].unit_id}))
    assert again[-1] == ranked[0] and set(again) == set(ranked)


def test_same_seed_same_words(heart_failure, vocabulary):
    replies = [ObservablePatient(heart_failure.patient, vocabulary, seed=5).reply("Any allergies?") for _ in range(2)]
    assert replies[0] == replies[1]


@pytest.mark.parametrize("category, text, negated, said", [
    ("hpi", "He noticed his heart fluttering", False, "I noticed my heart fluttering."),
    ("hpi", "no vomiting", True, "No, I haven't had vomiting."),
    ("measurement", "Last outpatient weight: 165 lbs", False, "At my last clinic visit my weight was 165 lbs."),
    ("family", "no family history of stroke", True, "No, nobody in my family has had stroke."),
    ("medication", "I take lisinopril 10 mg", False, "I take lisinopril 10 mg."),  # not "I take I take"
    ("medication", "metformin 500 mg", False, "I take metformin 500 mg."),
    ("hpi", "Sent from another hospital", False, "I was sent from another hospital."),  # not "I've had sent"
    ("pmh", "Admitted to this hospital 2 times before", False, "I was admitted to this hospital 2 times before."),
    ("hpi", "has noticed intermittent dark stools", False, "I have noticed intermittent dark stools."),
    ("hpi", "S/p open appendectomy as a child", False, "I had open appendectomy as a child."),
    ("pmh", "status post laparoscopic appendectomy", False, "I had laparoscopic appendectomy."),
])
def test_units_are_said_in_the_first_person(category, text, negated, said):
    assert first_person(Fact("u", category, text, negated)) == said


def test_boundary_requests_are_refused_and_history_taking_is_not():
    for _, query in stress_queries():
        assert boundary_request(query), query
    for questions in doctor_texts()["questions"].values():
        for question in questions:
            assert boundary_request(question) is None, question
    assert boundary_request("Have you been diagnosed with anything before?") is None


def test_self_check_blocks_replies_that_give_the_answer_away(heart_failure, vocabulary):
    check = SelfCheck(BoundaryScreen(heart_failure.manager, heart_failure.exams))
    leaky = SingleLayerPatient(heart_failure, vocabulary, seed=1)
    question = "Tell me everything about your heart and the x-ray."  # no refusal cue: the reply screen decides
    assert boundary_request(question) is None
    unchecked = respond(leaky, question, None)
    checked = respond(leaky, question, check)
    assert BoundaryScreen(heart_failure.manager, heart_failure.exams).discloses(unchecked.text)
    assert checked.self_check == "blocked" and checked.unit_ids == ()
    assert respond(leaky, "What is your diagnosis?", check).self_check == "blocked"
    honest = ObservablePatient(heart_failure.patient, vocabulary, seed=1)
    assert respond(honest, "What medications do you take?", check).self_check == "passed"


def test_screen_finds_names_codes_values_and_quoted_findings(heart_failure):
    screen = BoundaryScreen(heart_failure.manager, heart_failure.exams)
    assert screen.discloses("They said it was heart failure.")
    assert screen.discloses("My papers say I50.9.") and screen.discloses("the code I509")
    assert screen.discloses("My NT-proBNP was 5400.")
    assert screen.discloses("It showed bilateral pleural effusions with interstitial edema.")
    assert not screen.discloses("I walked 5400 steps and my legs are swollen.")  # a number without its exam
    assert not screen.discloses("I take furosemide 40 mg by mouth daily.")


def test_screen_knows_an_alias_from_the_catalog_and_an_uncatalogued_exam_by_its_own_name(heart_failure):
    assert BoundaryScreen(heart_failure.manager, heart_failure.exams).discloses("My proBNP was 5400.")
    bare = replace(heart_failure.exams, catalog=ExamCatalog(()))
    screen = BoundaryScreen(heart_failure.manager, bare)
    assert screen.discloses("My NT-proBNP was 5400.") and not screen.discloses("My proBNP was 5400.")
