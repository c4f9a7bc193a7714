"""The flat reference tables of the demo (CSV files under ``data/``), read into records and checked.

Each function takes the data root and what it may refer to, and returns the table in the form the
generator uses; errors name the file, the row and the column (:class:`pipelines.datafiles.DataFileError`).
"""

from __future__ import annotations

from pipelines.datafiles import Record, Root, csv_records, unique

from .records import Drug, LabItem, MedqaLab, SicDiagnosis, SicLab

KEY = r"[a-z][a-z0-9_]*"
KEY_HINT = "use lower case letters, digits and _"
GM = r"[A-Z]\d\d(\.\d{1,2})?"
D_ITEMS_COLUMNS = ("itemid", "label", "abbreviation", "linksto", "category", "unitname", "param_type",
                   "lownormalvalue", "highnormalvalue")
D_REFERENCES_COLUMNS = ("ReferenceGlobalID", "ReferenceValue", "ReferenceName", "ReferenceDescription",
                        "ReferenceUnit", "ReferenceOrder", "ReferenceType", "Data", "LOINC_code")
MEDQA_SECTIONS = ("hematology", "serum", "blood_gas", "other")
# where the keys of each kind of reference are defined (for "unknown ..." errors)
DEFINED_IN = {
    "lab item": "lab_items.csv (key column)", "lab panel": "lab_items.csv (panel column)",
    "chart item": "chart_items.csv (key column, rows with mean and sd)", "drug": "drugs.csv",
    "specimen": "specimens.csv", "organism": "organisms.csv", "procedure": "procedures.csv",
    "imaging study": "imaging.yaml", "comorbidity": "comorbidities.yaml",
    "code": "codes.yaml or comorbidities.yaml, or primary for the disease's own code",
    "exam system": "notes.yaml (exam_systems)", "question kind": "medqa.yaml (question_stems)",
    "surgical site": "sicdb_references.csv (SurgicalSite rows)", "exam code": "imaging.yaml (exam_code)",
}


def ref(r: Record, field: str, value, known, what: str):
    """``value`` must be a key of ``known``; the error says where such keys are defined."""
    return r.ref(field, value, known, what, f"use one defined in {DEFINED_IN[what]}")


def refs(r: Record, field: str, known, what: str, *default) -> tuple[str, ...]:
    """A list of references (:func:`ref`); ``default`` as for :meth:`Record.texts`."""
    return r.refs(field, known, what, *default, hint=f"use one defined in {DEFINED_IN[what]}")


def _keyed(records: list[Record], column: str = "key") -> list[Record]:
    """Check the key column (well-formed, unique)."""
    for r in records:
        r.text(column, pattern=KEY, hint=KEY_HINT)
    unique(records, column)
    return records


def _range(r: Record, lower: str, upper: str) -> tuple[str, str] | None:
    """A reference range written as text (both ends or none); the ends must read as numbers."""
    if not r.has(lower) and not r.has(upper):
        return None
    lo, hi = r.text(lower), r.text(upper)
    for column, v in ((lower, lo), (upper, hi)):
        try:
            float(v)
        except ValueError:
            raise r.error(column, f"expected a number, got {v!r}")
    if float(lo) > float(hi):
        raise r.error(upper, f"range [{lo}, {hi}] is reversed")
    return lo, hi


def _distribution(r: Record, mean: str, sd: str) -> tuple | None:
    if not r.has(mean) and not r.has(sd):
        return None
    return r.number(mean), r.number(sd, lo=0)


def lab_items(root: Root) -> list[LabItem]:
    columns = ("key", "itemid", "panel", "label", "fluid", "category", "uom", "ref_lower", "ref_upper",
               "ref_lower_f", "ref_upper_f", "mean", "sd", "mean_f", "sd_f", "decimals", "short", "vmin", "vmax",
               "text_value", "comment")
    items, ids = [], set()
    for r in _keyed(csv_records(root, "lab_items.csv", columns, "key")):
        itemid = r.integer("itemid", lo=1)
        if itemid in ids:
            raise r.error("itemid", f"duplicate itemid {itemid}")
        ids.add(itemid)
        normal = _distribution(r, "mean", "sd")
        if normal is None:
            raise r.error("mean", "missing; mean and sd are required (0 and 0 for text results)")
        items.append(LabItem(
            key=r.key, itemid=itemid, panel=r.text("panel", pattern=KEY, hint=KEY_HINT), label=r.text("label"),
            fluid=r.text("fluid"), category=r.text("category"), uom=r.get("uom", ""),
            ref=_range(r, "ref_lower", "ref_upper"), normal=normal, decimals=r.integer("decimals", lo=0),
            short=r.text("short"), vmin=r.number("vmin", 0.0), vmax=r.number("vmax", 1e9),
            comment=r.get("comment", ""), ref_f=_range(r, "ref_lower_f", "ref_upper_f"),
            normal_f=_distribution(r, "mean_f", "sd_f"), text_value=r.get("text_value", "")))
    return items


def chart_items(root: Root) -> list[tuple[str, tuple[str, ...], tuple | None]]:
    """(key, d_items row, normal (mean, sd) or None) per chart item."""
    out = []
    for r in _keyed(csv_records(root, "chart_items.csv", ("key", *D_ITEMS_COLUMNS, "mean", "sd"), "key")):
        r.integer("itemid", lo=1)
        out.append((r.key, tuple(r.data.get(c, "") for c in D_ITEMS_COLUMNS), _distribution(r, "mean", "sd")))
    return out


def drugs(root: Root) -> dict[str, Drug]:
    columns = ("key", "drug", "formulary_drug_cd", "gsn", "ndc", "prod_strength", "dose_val_rx", "dose_unit_rx",
               "form_val_disp", "form_unit_disp", "doses_per_24_hrs", "route", "drug_type", "sig")
    out = {}
    for r in _keyed(csv_records(root, "drugs.csv", columns, "key")):
        cell = {c: r.data.get(c, "") for c in columns}
        out[r.key] = Drug(r.key, r.text("drug"), cell["formulary_drug_cd"], cell["gsn"], cell["ndc"],
                          cell["prod_strength"], cell["dose_val_rx"], cell["dose_unit_rx"], cell["form_val_disp"],
                          cell["form_unit_disp"], cell["doses_per_24_hrs"], r.text("route"),
                          r.choice("drug_type", ("MAIN", "BASE", "ADDITIVE")), r.text("sig"))
    return out


def specimens(root: Root) -> dict[str, tuple[int, str, int, str]]:
    columns = ("key", "spec_itemid", "spec_type_desc", "test_itemid", "test_name")
    return {r.key: (r.integer("spec_itemid"), r.text("spec_type_desc"), r.integer("test_itemid"), r.text("test_name"))
            for r in _keyed(csv_records(root, "specimens.csv", columns, "key"))}


def organisms(root: Root) -> dict[str, tuple[int, str]]:
    return {r.key: (r.integer("org_itemid"), r.text("org_name"))
            for r in _keyed(csv_records(root, "organisms.csv", ("key", "org_itemid", "org_name"), "key"))}


def susceptibility(root: Root, known_organisms) -> dict[str, tuple[tuple[int, str, str, str], ...]]:
    columns = ("organism", "ab_itemid", "ab_name", "dilution", "interpretation")
    out: dict[str, list] = {}
    for r in csv_records(root, "susceptibility.csv", columns, "organism"):
        org = ref(r, "organism", r.text("organism"), known_organisms, "organism")
        out.setdefault(org, []).append((r.integer("ab_itemid"), r.text("ab_name"),
                                        r.text("dilution", pattern=r"(<=|=>)?\d+(\.\d+)?",
                                               hint="a number, optionally after <= or =>"),
                                        r.choice("interpretation", ("S", "I", "R"))))
    return {k: tuple(v) for k, v in out.items()}


def procedures(root: Root) -> tuple[dict[str, tuple[tuple[str, str], tuple[str, str]]], dict[str, str]]:
    """({key: ((icd9, title9), (icd10-pcs, title10))}, {key: discharge-summary name})."""
    codes, notes = {}, {}
    for r in _keyed(csv_records(root, "procedures.csv", ("key", "icd9", "title9", "icd10", "title10", "note"), "key")):
        icd9 = r.text("icd9", pattern=r"\d{3,4}", hint="3-4 digits, no dot (MIMIC's ICD-9-CM procedure codes)")
        icd10 = r.text("icd10", pattern=r"[0-9A-HJ-NP-Z]{7}", hint="7 characters of ICD-10-PCS (no I or O)")
        codes[r.key] = ((icd9, r.text("title9")), (icd10, r.text("title10")))
        notes[r.key] = r.text("note")
    return codes, notes


def sic_labs(root: Root, lab_ids: dict[str, int]) -> tuple[SicLab, ...]:
    columns = ("lab_id", "name", "unit", "loinc", "mimic_lab", "factor", "decimals", "serial", "point_of_care")
    return tuple(
        SicLab(r.integer("lab_id", lo=1), r.text("name"), r.text("unit"),
               r.text("loinc", pattern=r"\d{1,7}-\d", hint="a LOINC code such as 2160-0"),
               lab_ids[ref(r, "mimic_lab", r.text("mimic_lab"), lab_ids, "lab item")], r.number("factor", lo=0),
               r.integer("decimals", lo=0), r.flag("serial"), r.flag("point_of_care"))
        for r in csv_records(root, "sicdb_labs.csv", columns, "lab_id"))


def sic_references(root: Root) -> tuple[tuple, ...]:
    """d_references rows; the id as an int (rows are written sorted by it), the other cells as text."""
    rows, ids = [], set()
    for r in csv_records(root, "sicdb_references.csv", D_REFERENCES_COLUMNS, "ReferenceGlobalID"):
        if r.integer("ReferenceGlobalID") in ids:
            raise r.error("ReferenceGlobalID", "duplicate id; d_references ids must be unique")
        ids.add(r.integer("ReferenceGlobalID"))
        rows.append((r.integer("ReferenceGlobalID", lo=1), r.text("ReferenceValue"), r.text("ReferenceName"),
                     *(r.data.get(c, "") for c in D_REFERENCES_COLUMNS[3:])))
    return tuple(rows)


def sic_diagnoses(root: Root, surgical_sites: set[int]) -> tuple[SicDiagnosis, ...]:
    out = []
    for r in csv_records(root, "sicdb_diagnoses.csv", ("icd10_gm", "title", "surgical_site", "weight"), "icd10_gm"):
        site = r.integer("surgical_site", None)
        if site is not None:
            ref(r, "surgical_site", site, surgical_sites, "surgical site")
        out.append(SicDiagnosis(r.text("icd10_gm", pattern=GM, hint="dotted ICD-10-GM such as I35.0"),
                                r.text("title"), site, r.number("weight", lo=0)))
    return tuple(out)


def medqa_labs(root: Root, lab_ids: dict[str, int]) -> dict[int, MedqaLab]:
    out = {}
    for r in csv_records(root, "medqa_labs.csv", ("lab", "name", "unit", "decimals", "section"), "lab"):
        itemid = lab_ids[ref(r, "lab", r.text("lab"), lab_ids, "lab item")]
        if itemid in out:
            raise r.error("lab", "listed twice")
        out[itemid] = MedqaLab(r.text("name"), r.get("unit", ""), r.integer("decimals"),
                               r.choice("section", MEDQA_SECTIONS))
    return out
