"""Opening presentations for EHR cases: who the patient is and why or how they came in.

A presentation says only what the disclosed units say (age, sex, chief complaint) plus how the
patient arrived, which the admitting team knows before any workup:

* with a chief complaint from the discharge note (disclosed ``chief_complaint`` units free of
  the diagnosis): "A 67-year-old man presenting with chest pain and dyspnea."
* otherwise from the admission record (MIMIC ``admission_type`` / ``admission_location``):
  "A 67-year-old man admitted as an emergency through the emergency department."
* SICdb has neither: "A 65-year-old woman admitted to the intensive care unit."

Unknown admission codes are left out rather than guessed.
"""

from __future__ import annotations

import re

import polars as pl

from pipelines.content.leakage_guard import case_terms, scrub_column

ADMISSION_TYPES = {
    "ELECTIVE": "for a planned admission",
    "SURGICAL SAME DAY ADMISSION": "for same-day surgery",
    "URGENT": "urgently",
    "EW EMER.": "as an emergency",
    "DIRECT EMER.": "directly as an emergency",
    "OBSERVATION ADMIT": "for observation",
    "EU OBSERVATION": "for observation",
    "DIRECT OBSERVATION": "directly for observation",
    "AMBULATORY OBSERVATION": "for observation",
}
ADMISSION_ROUTES = {
    "EMERGENCY ROOM": "through the emergency department",
    "TRANSFER FROM HOSPITAL": "on transfer from another hospital",
    "TRANSFER FROM SKILLED NURSING FACILITY": "from a skilled nursing facility",
    "PHYSICIAN REFERRAL": "on referral by a physician",
    "CLINIC REFERRAL": "on referral from a clinic",
    "WALK-IN/SELF REFERRAL": "as a walk-in",
    "PACU": "from the post-anaesthesia care unit",
    "PROCEDURE SITE": "from a procedure",
    "AMBULATORY SURGERY TRANSFER": "after ambulatory surgery",
    "INTERNAL TRANSFER TO OR FROM PSYCH": "from the psychiatric unit",
}


def person(age: int | None, sex: str | None) -> str:
    """'A 67-year-old man', 'An 80-year-old woman', 'A 12-year-old girl', 'An adult patient'."""
    if age is None:
        noun = {"F": "woman", "M": "man"}.get(sex or "", "patient")
        return f"An adult {noun}" if noun == "patient" else f"A {noun}"
    noun = {"F": "woman" if age >= 18 else "girl", "M": "man" if age >= 18 else "boy"}.get(sex or "", "patient")
    article = "An" if str(age).startswith("8") or age in (11, 18) else "A"
    return f"{article} {age}-year-old {noun}"


# A complaint in the patient's words ("my heart stopping", ED triage) is told of the patient here.
# Not "I": a note's complaint may hold a roman numeral ("type I diabetes").
FIRST_PERSON = {"F": {"my": "her", "me": "her", "myself": "herself"},
                "M": {"my": "his", "me": "him", "myself": "himself"}}
FIRST_PERSON_UNKNOWN = {"my": "their", "me": "them", "myself": "themself"}
_FIRST_PERSON_WORD = re.compile(r"\b(my|me|myself)\b", re.IGNORECASE)


def third_person(text: str, sex: str | None) -> str:
    """'my heart stopping' -> 'her heart stopping' (a woman), 'his' (a man), 'their' (unknown)."""
    words = FIRST_PERSON.get(sex or "", FIRST_PERSON_UNKNOWN)
    return _FIRST_PERSON_WORD.sub(lambda m: words[m.group(1).lower()], text)


def _acronym(word: str) -> bool:
    return len(word) > 1 and word[:2].isupper()


def _joined(items: list[str]) -> str:
    # "Chest pain" reads "chest pain" mid-sentence; acronyms ("SOB", "CP") keep their case ("A cough" does not).
    items = [i if _acronym(i.split(" ", 1)[0]) else i[:1].lower() + i[1:]
             for i in (t.strip().rstrip(".") for t in items)]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def compose(age: int | None, sex: str | None, complaints: list[str], admission_type: str | None = None,
            admission_location: str | None = None, setting: str | None = None) -> str:
    """One presentation sentence; see the module docstring for which parts are used when."""
    who = person(age, sex)
    if complaints:
        return f"{who} presenting with {_joined([third_person(c, sex) for c in complaints])}."
    if setting:
        return f"{who} admitted to {setting}."
    how = [p for p in (ADMISSION_TYPES.get((admission_type or "").strip().upper()),
                       ADMISSION_ROUTES.get((admission_location or "").strip().upper())) if p]
    return f"{who} admitted {' '.join(how)}." if how else f"{who} admitted to hospital."


def clean_complaints(units: pl.DataFrame, skeleton: pl.DataFrame) -> pl.DataFrame:
    """The disclosed chief-complaint units of ``units`` (the note producer's unit_candidates) that do
    not name the case's diagnosis (``skeleton`` gives it), as case_id, text in unit order."""
    units = units.filter((pl.col("category") == "chief_complaint") & pl.col("disclosed")).select(
        "case_id", "ordinal", "text").sort("case_id", "ordinal")
    checked = scrub_column(units, "text", case_terms(skeleton.join(units.select("case_id").unique(), on="case_id")))
    return checked.filter(pl.col("leak_terms").is_null()).select("case_id", "text")


def mimic_presentations(cases: pl.DataFrame, complaints: pl.DataFrame) -> pl.DataFrame:
    """``cases`` from pipelines.content.case_keys.mimic_cases; ``complaints``: case_id, text (clean, in order)."""
    by_case = complaints.group_by("case_id", maintain_order=True).agg(pl.col("text"))
    rows = cases.join(by_case, on="case_id", how="left")
    return pl.DataFrame(
        {
            "case_id": rows["case_id"],
            "presentation": [
                compose(r["age"], r["sex"], r["text"] or [], r["admission_type"], r["admission_location"])
                for r in rows.iter_rows(named=True)
            ],
        },
        schema={"case_id": pl.Utf8, "presentation": pl.Utf8},
    )


def sicdb_presentations(cases: pl.DataFrame) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "case_id": cases["case_id"],
            "presentation": [compose(a, s, [], setting="the intensive care unit")
                             for a, s in cases.select("age", "sex").iter_rows()],
        },
        schema={"case_id": pl.Utf8, "presentation": pl.Utf8},
    )
