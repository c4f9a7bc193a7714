"""A case as an auditor reads it (``clinverse show``): what the doctor starts from, what the patient
can tell, what the exams return, and the answer, one section per view.

Auditing a case means asking whether a doctor could reach its diagnosis from what the episode can
give; the dossier lays exactly that out, nothing from the source beyond the curated tables. Results
are rendered as the laboratory physician reports them (lab.render).
"""

from __future__ import annotations

from pipelines.episodes.lab import render
from pipelines.episodes.store import EpisodeCase


def case_dossier(case: EpisodeCase) -> str:
    m = case.manager
    age = "age ?" if case.age is None else f"age {case.age}"
    units = case.patient.units
    lines = [f"# {case.case_id}  ({case.split}, {case.sex or 'sex ?'}, {age})", "",
             "## Presentation", case.presentation, "",
             f"## Patient view: {len(units)} units (* key, + disclosed, ~ negated)"]
    lines += [f"- {'*' if u.importance == 'key' else ' '}{'+' if u.disclosed else ' '}{'~' if u.negated else ' '} "
              f"{u.category}: {u.text}" for u in units]
    lines += ["", f"## Exam view: {len(case.exams.results)} results"]
    lines += [f"- {r.kind}: {render(r)}" for r in case.exams.results]
    lines += ["", "## Manager view",
              f"- diagnosis: {m.diagnosis_name} ({m.primary_icd10}; block {m.primary_icd10_block})",
              f"- acceptable codes: {', '.join(m.acceptable_icd10) or 'none'}",
              f"- acceptable names: {'; '.join(m.acceptable_names) or 'none'}",
              f"- secondary codes: {', '.join(m.secondary_icd10) or 'none'}"]
    return "\n".join(lines) + "\n"
