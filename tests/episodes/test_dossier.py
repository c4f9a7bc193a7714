"""The case dossier of `clinverse show`: every view of a case, in the order an auditor reads it."""

from __future__ import annotations

from pipelines.episodes.dossier import case_dossier
from pipelines.episodes.lab import render


def test_the_dossier_lays_out_every_view_of_the_case(heart_failure):
    text = case_dossier(heart_failure)
    sections = [text.index(s) for s in ("## Presentation", "## Patient view", "## Exam view", "## Manager view")]
    assert sections == sorted(sections)
    patient, exams, manager = text[sections[1]:sections[2]], text[sections[2]:sections[3]], text[sections[3]:]
    assert heart_failure.presentation in text[sections[0]:sections[1]]
    assert f"{len(heart_failure.patient.units)} units" in patient
    assert any(u.negated for u in heart_failure.patient.units)
    for unit in heart_failure.patient.units:
        marks = "".join(mark if on else " " for mark, on in (("*", unit.importance == "key"), ("+", unit.disclosed),
                                                              ("~", unit.negated)))
        assert f"- {marks} {unit.category}: {unit.text}\n" in patient
    assert [line for line in exams.splitlines() if line.startswith("- ")] == [
        f"- {r.kind}: {render(r)}" for r in heart_failure.exams.results]
    m = heart_failure.manager
    assert f"{m.diagnosis_name} ({m.primary_icd10}; block {m.primary_icd10_block})" in manager
    assert m.diagnosis_name not in text[:sections[3]]  # the answer is only in the manager's section
