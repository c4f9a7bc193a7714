"""The demo generator's catalogs, loaded from ``data/`` (package data) and checked on load.

:func:`catalog` loads the packaged files once; :func:`load_catalog` loads any copy of the data
directory (tests point it at damaged copies).  Loading checks required fields, types, ICD code
formats and every reference between files (a disease's imaging key, lab item, comorbidity, drug,
...); a :class:`pipelines.datafiles.DataFileError` names the file, the record and the field.

The order of records in the files is part of the seeded output (diseases, comorbidities, panels
and weights are drawn in file order), so reordering a file changes the generated demo.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib.resources import files
from types import SimpleNamespace

from pipelines.datafiles import DataFileError, Record, Root, is_number, yaml_record, yaml_records

from . import tables
from .records import (
    QA,
    Code,
    Comorbidity,
    Disease,
    Drug,
    Imaging,
    LabItem,
    MedqaPhrases,
    NotePhrases,
    Population,
    SicDiagnosis,
    SicLab,
)

# primary diagnoses by chapter group; records are drawn in this order
DISEASE_FILES = ("diseases/cardio.yaml", "diseases/pulm_id.yaml", "diseases/gi.yaml", "diseases/endo_renal.yaml",
                 "diseases/neuro_msk_psy.yaml", "diseases/other.yaml")
ICD10 = r"[A-Z]\d\d(\.[0-9A-Z]{1,4})?"
ICD9 = r"(\d{3}|V\d\d|E\d{3})(\.\d{1,2})?"
ICD10_HINT = "dotted ICD-10-CM such as I21.09 (letter, 2 digits, optional dot and 1-4 characters)"
ICD9_HINT = "dotted ICD-9-CM such as 410.11, V12.55 or E888.9"
CHAPTER = r"[IVX]{1,5}"
PRIMARY = "primary"  # history.code value: the disease's own code
Refs = SimpleNamespace  # what records may refer to, filled in as the files are loaded


@dataclass(frozen=True)
class Catalog:
    lab_items: dict[int, LabItem]
    lab_ids: dict[str, int]  # lab key -> itemid
    panels: dict[str, tuple[int, ...]]
    d_items_rows: tuple[tuple[str, ...], ...]
    chart_items: dict[str, tuple[int, str]]  # chart key -> (itemid, unit)
    normal_vitals: dict[str, tuple]
    drugs: dict[str, Drug]
    specimens: dict[str, tuple[int, str, int, str]]
    organisms: dict[str, tuple[int, str]]
    susceptibility: dict[str, tuple[tuple[int, str, str, str], ...]]
    procedures: dict[str, tuple[tuple[str, str], tuple[str, str]]]
    procedure_notes: dict[str, str]
    sic_labs: tuple[SicLab, ...]
    sic_references: tuple[tuple, ...]
    sic_diagnoses: tuple[SicDiagnosis, ...]
    codes: dict[str, Code]
    comorbidities: dict[str, Comorbidity]
    imaging: dict[str, Imaging]
    diseases: tuple[Disease, ...]
    notes: NotePhrases
    medqa: MedqaPhrases
    population: Population


@functools.cache
def catalog() -> Catalog:
    """The packaged catalogs (loaded once per process)."""
    return load_catalog(files(__package__) / "data")


def load_catalog(root: Root) -> Catalog:
    """Load and check every data file under ``root`` (a directory laid out like ``data/``)."""
    # the flat tables first: the YAML records refer to them
    items = tables.lab_items(root)
    lab_ids = {it.key: it.itemid for it in items}
    panels: dict[str, list[int]] = {}
    for it in items:
        panels.setdefault(it.panel, []).append(it.itemid)
    chart = tables.chart_items(root)
    procedures, procedure_notes = tables.procedures(root)
    references = tables.sic_references(root)
    sic_labs = tables.sic_labs(root, lab_ids)
    for lab in sic_labs:
        if any(row[0] == lab.lab_id for row in references):
            raise DataFileError(str(root / "sicdb_labs.csv"), f"lab_id {lab.lab_id}", "lab_id",
                                "also a ReferenceGlobalID in sicdb_references.csv; d_references ids must be unique")
    refs = Refs(labs=lab_ids, panels=panels, vitals={k: n for k, _, n in chart if n is not None},
                drugs=tables.drugs(root), specimens=tables.specimens(root), organisms=tables.organisms(root),
                procedures=procedures, titles=_Titles())
    refs.codes = {r.key: _code(r, refs.titles) for r in yaml_records(root, "codes.yaml", "code")}
    refs.comorbidities = {r.key: _comorbidity(r, refs) for r in yaml_records(root, "comorbidities.yaml", "comorbidity")}
    if clash := sorted(refs.codes.keys() & refs.comorbidities.keys()):
        raise DataFileError(str(root / "codes.yaml"), f"code {clash[0]!r}", "",
                            "the key is also a comorbidity key; rename one of them (references would be ambiguous)")
    refs.imaging = {r.key: _imaging(r) for r in yaml_records(root, "imaging.yaml", "imaging study")}
    refs.notes = _notes(root)
    refs.population = _population(root)
    medqa = _medqa(root, refs, tables.medqa_labs(root, lab_ids))
    refs.question_kinds = medqa.question_stems
    return Catalog(
        lab_items={it.itemid: it for it in items}, lab_ids=lab_ids, panels={k: tuple(v) for k, v in panels.items()},
        d_items_rows=tuple(row for _, row, _ in chart), chart_items={k: (int(row[0]), row[5]) for k, row, _ in chart},
        normal_vitals=refs.vitals, drugs=refs.drugs, specimens=refs.specimens, organisms=refs.organisms,
        susceptibility=tables.susceptibility(root, refs.organisms), procedures=procedures,
        procedure_notes=procedure_notes, sic_labs=sic_labs, sic_references=references,
        sic_diagnoses=tables.sic_diagnoses(root, {row[0] for row in references if row[2] == "SurgicalSite"}),
        codes=refs.codes, comorbidities=refs.comorbidities, imaging=refs.imaging, diseases=_diseases(root, refs),
        notes=refs.notes, medqa=medqa, population=refs.population)


# ------------------------------------------------------------------------------------ codes
def _code(r: Record, titles: _Titles | None = None) -> Code:
    r.only(("icd10", "title10", "icd9", "title9"))
    code = Code(r.text("icd10", pattern=ICD10, hint=ICD10_HINT), r.text("title10"),
                r.text("icd9", pattern=ICD9, hint=ICD9_HINT + " (quote numeric codes: \"410.11\")"), r.text("title9"))
    if titles is not None:
        titles.check(r, "", code)
    return code


def _labs(r: Record, field: str, refs: Refs) -> dict[int, tuple]:
    """Lab distributions by lab key -> by itemid."""
    return {refs.labs[tables.ref(r, field, k, refs.labs, "lab item")]: _spec(r, field, k, v)
            for k, v in r.mapping(field, {}).items()}


def _comorbidity(r: Record, refs: Refs) -> Comorbidity:
    r.only(("code", "pmh", "home_meds", "sex", "min_age", "prevalence", "baseline_labs", "course"))
    return Comorbidity(
        key=r.key, code=_code(r.sub("code"), refs.titles), pmh=r.texts("pmh"),
        home_meds=tables.refs(r, "home_meds", refs.drugs, "drug", ()),
        sex=r.choice("sex", ("F", "M"), None), min_age=r.integer("min_age", 18, lo=0),
        prevalence=r.pair("prevalence", None), baseline_labs=_labs(r, "baseline_labs", refs),
        course=r.texts("course", ()))


def _imaging(r: Record) -> Imaging:
    r.only(("exam_name", "exam_code", "cpt", "technique", "indication", "findings", "impression"))
    return Imaging(r.key, r.text("exam_name"), r.text("exam_code"),
                   r.text("cpt", pattern=r"\d{5}", hint="a 5-digit CPT code (quote it: \"71046\")"),
                   r.text("technique"), r.texts("findings"), r.texts("impression"), r.text("indication"))


# ---------------------------------------------------------------------------------- phrases
def _notes(root: Root) -> NotePhrases:
    r = yaml_record(root, "notes.yaml",
                    ("exam_systems", "allergies", "family_history", "disposition", "discharge_condition"),
                    "notes phrases")
    labels, normal = {}, {}
    for system, s in r.records("exam_systems", ("labels", "normal")).items():
        labels[system] = s.texts("labels")
        if len(labels[system]) != 4:
            raise s.error("labels", "expected 4 labels, one per label style of a note")
        if s.has("normal"):
            normal[system] = s.texts("normal")
    return NotePhrases(tuple(labels), labels, normal, r.texts("allergies"), r.texts("family_history"),
                       r.text_mapping("disposition"), r.texts("discharge_condition"))


def _medqa(root: Root, refs: Refs, labs) -> MedqaPhrases:
    r = yaml_record(root, "medqa.yaml", ("settings", "diagnosis_stems", "question_stems", "imaging_phrases"),
                    "medqa phrases")
    exam_codes = {img.exam_code for img in refs.imaging.values()}
    phrases = r.text_mapping("imaging_phrases")
    for code in phrases:
        tables.ref(r, "imaging_phrases", code, exam_codes, "exam code")
    return MedqaPhrases(r.texts("settings"), r.texts("diagnosis_stems"), r.text_groups("question_stems"), phrases,
                        labs)


def _population(root: Root) -> Population:
    r = yaml_record(root, "population.yaml",
                    ("anchor_year_groups", "races", "admission_locations", "discharge_locations"), "population")
    groups = []
    for name, g in r.records("anchor_year_groups", ("weight", "icd9_share")).items():
        groups.append(((name, g.probability("icd9_share")), g.number("weight", lo=0)))
    admit = r.sub("admission_locations")
    return Population(tuple(groups), tuple(r.weights("races").items()),
                      {t: tuple(admit.weights(t).items()) for t in admit.data},
                      tuple(r.weights("discharge_locations").items()))


# --------------------------------------------------------------------------------- diseases
DISEASE_FIELDS = (
    "name", "synonyms", "code", "gm", "chapter", "system", "weight", "service", "careunit", "icu_unit",
    "admission_type", "age", "age_range", "sex", "female_share", "los", "icu_prob", "death_prob",
    "chief_complaints", "hpi", "negatives", "exam", "vitals", "labs", "ua", "panels", "imaging", "course",
    "admission_meds", "discharge_meds", "comorbidities", "associated", "procedures", "micro", "history",
    "discharge_instructions", "medqa",
)


def _diseases(root: Root, refs: Refs) -> tuple[Disease, ...]:
    out: list[Disease] = []
    seen: dict[str, str] = {}
    for name in DISEASE_FILES:
        for r in yaml_records(root, name, "disease"):
            if r.key in seen:
                raise r.error("", f"disease key already used in {seen[r.key]}; keys must be unique across the files")
            seen[r.key] = name
            d = _disease(r, refs)
            for other in out:
                if other.code.icd10 == d.code.icd10:
                    raise r.error("code.icd10", f"{d.code.icd10} is already the code of disease {other.key!r}")
            refs.titles.check(r, "code.", d.code)
            out.append(d)
    return tuple(out)


def _disease(r: Record, refs: Refs) -> Disease:
    r.only(DISEASE_FIELDS)
    code = _code(r.sub("code"))
    gm = r.sub("gm")
    gm.only(("code", "title"))
    history = r.sub("history")
    history.only(("phrase", "code"))
    medqa = r.sub("medqa")
    medqa.only(("presentation", "history_clues", "exam_clues", "questions"))
    return Disease(
        key=r.key, name=r.text("name"), synonyms=r.texts("synonyms"), code=code,
        gm=(gm.text("code", pattern=tables.GM, hint="dotted ICD-10-GM such as I21.0"), gm.text("title")),
        chapter=r.text("chapter", pattern=CHAPTER, hint="an ICD-10 chapter in roman numerals such as IX"),
        system=r.text("system"), weight=r.number("weight", lo=0), service=r.text("service"),
        careunit=r.text("careunit"), icu_unit=r.text("icu_unit"),
        admission_type=r.choice("admission_type", refs.population.admission_locations, "EW EMER."),
        age=r.pair("age"), age_range=r.pair("age_range", (18, 95)), sex=r.choice("sex", ("F", "M"), None),
        female_share=r.probability("female_share", 0.5), los=r.pair("los", (4.0, 2.0)),
        icu_prob=r.probability("icu_prob", 0.3), death_prob=r.probability("death_prob", 0.02),
        chief_complaints=r.texts("chief_complaints"), hpi=_hpi(r), negatives=r.texts("negatives"),
        exam=_exam(r, refs), vitals=_vitals(r, refs), labs=_labs(r, "labs", refs), ua=_ua(r, refs),
        panels=tables.refs(r, "panels", refs.panels, "lab panel"),
        imaging=tuple(refs.imaging[k] for k in tables.refs(r, "imaging", refs.imaging, "imaging study", ())),
        course=r.texts("course"), admission_meds=tables.refs(r, "admission_meds", refs.drugs, "drug", ()),
        discharge_meds=tables.refs(r, "discharge_meds", refs.drugs, "drug", ()),
        comorbidities=tuple(
            (tables.ref(r, "comorbidities", k, refs.comorbidities, "comorbidity"), p)
            for k, p in r.weights("comorbidities", probabilities=True).items()),
        associated=tuple((_code_ref(r, "associated", k, None, refs), p)
                         for k, p in r.weights("associated", {}, probabilities=True).items()),
        procedures=tuple((tables.ref(r, "procedures", k, refs.procedures, "procedure"), p)
                         for k, p in r.weights("procedures", {}, probabilities=True).items()),
        micro=_micro(r, refs), history_phrase=history.text("phrase"),
        history_code=_code_ref(history, "code", history.get("code", None), code, refs),
        discharge_instructions=r.text("discharge_instructions"), presentation=medqa.text("presentation"),
        history_clues=medqa.texts("history_clues"), exam_clues=medqa.texts("exam_clues"),
        medqa=_questions(medqa, refs))


def _hpi(r: Record) -> tuple[tuple[str, ...], ...]:
    facts = r.get("hpi")
    if not isinstance(facts, list) or not facts:
        raise r.error("hpi", "expected a list of facts, each a list of alternative phrasings")
    for fact in facts:
        if not isinstance(fact, list) or not fact or not all(isinstance(x, str) and x for x in fact):
            raise r.error("hpi", f"expected a list of alternative phrasings, got {fact!r}")
    return tuple(tuple(f) for f in facts)


def _exam(r: Record, refs: Refs) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((tables.ref(r, "exam", system, refs.notes.exam_labels, "exam system"), texts)
                 for system, texts in r.text_groups("exam").items())


def _spec(r: Record, field: str, name, v) -> tuple:
    """A value distribution: ``[mean, sd]`` (normal) or ``[median, sigma, log]`` (log-normal)."""
    ok = isinstance(v, list) and (
        (len(v) == 2 and all(is_number(x) for x in v))
        or (len(v) == 3 and is_number(v[0]) and is_number(v[1]) and v[2] == "log"))
    if not ok or v[1] < 0:
        raise r.error(field, f"{name!r}: expected [mean, sd] or [median, sigma, log], got {v!r}")
    return tuple(v)


def _vitals(r: Record, refs: Refs) -> dict[str, tuple]:
    """The normal vital signs with the disease's values over them (same key order)."""
    vitals = dict(refs.vitals)
    for k, v in r.mapping("vitals", {}).items():
        tables.ref(r, "vitals", k, refs.vitals, "chart item")
        vitals[k] = _spec(r, "vitals", k, v)
        if len(vitals[k]) != 2:
            raise r.error("vitals", f"{k!r}: expected [mean, sd]")
    return vitals


def _ua(r: Record, refs: Refs) -> dict[int, str]:
    ua = {}
    for k, v in r.mapping("ua", {}).items():
        tables.ref(r, "ua", k, refs.labs, "lab item")
        if not isinstance(v, str) or not v:
            raise r.error("ua", f"{k!r}: expected a text result such as POS or \"30\", got {v!r}")
        ua[refs.labs[k]] = v
    return ua


def _code_ref(r: Record, field: str, key, primary: Code | None, refs: Refs) -> Code | None:
    """A code by key: codes.yaml, a comorbidity's code, or (history only) the disease's own."""
    if key is None:
        return None
    if key == PRIMARY and primary is not None:
        return primary
    if key in refs.comorbidities:
        return refs.comorbidities[key].code
    return refs.codes[tables.ref(r, field, key, refs.codes, "code")]


def _micro(r: Record, refs: Refs) -> tuple[tuple[str, str, float], ...]:
    cultures = r.get("micro", [])
    if not isinstance(cultures, list):
        raise r.error("micro", "expected a list of {specimen, organism, positive}")
    out = []
    for n, culture in enumerate(cultures):
        c = Record(r.file, r.where, culture, key=r.key, prefix=f"{r.prefix}micro[{n}].")
        c.only(("specimen", "organism", "positive"))
        organism = c.text("organism", "")
        if organism:
            tables.ref(c, "organism", organism, refs.organisms, "organism")
        out.append((tables.ref(c, "specimen", c.text("specimen"), refs.specimens, "specimen"), organism,
                    c.probability("positive")))
    return tuple(out)


def _questions(medqa: Record, refs: Refs) -> tuple[QA, ...]:
    questions = medqa.get("questions")
    if not isinstance(questions, list) or not questions:
        raise medqa.error("questions", "expected a list of {kind, answer, distractors}")
    out = []
    for n, q in enumerate(questions):
        r = Record(medqa.file, medqa.where, q, key=medqa.key, prefix=f"{medqa.prefix}questions[{n}].")
        r.only(("kind", "answer", "distractors"))
        answer, distractors = r.text("answer"), r.texts("distractors")
        if len(set(distractors)) < 4 or answer in distractors:
            raise r.error("distractors", "expected at least 4 distinct distractors, none equal to the answer")
        out.append(QA(tables.ref(r, "kind", r.text("kind"), refs.question_kinds, "question kind"), answer, distractors))
    return tuple(out)


class _Titles:
    """One title per ICD code and version wherever the code appears (d_icd_diagnoses has one row each)."""

    def __init__(self):
        self.seen: dict[tuple[str, str], tuple[str, str]] = {}

    def check(self, r: Record, prefix: str, c: Code) -> None:
        for key, title, field in (((c.icd10, "10"), c.title10, "title10"), ((c.icd9, "9"), c.title9, "title9")):
            first, where = self.seen.setdefault(key, (title, f"{r.file}: {r.where}"))
            if first != title:
                raise r.error(prefix + field,
                              f"ICD-{key[1]} {key[0]} is titled {first!r} in {where}; use the same title")
