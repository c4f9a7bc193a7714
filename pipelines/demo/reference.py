"""Reference tables of the demo generator (data: ``data/*.csv``): lab and chart items, drugs,
microbiology, procedures and SICdb references, plus the ids the generator writes by name.

Item ids, labels, fluids, categories, units and reference ranges of the MIMIC-IV items are the
ones of the real MIMIC-IV v2.2 dictionaries (``hosp/d_labitems``, ``icu/d_items``); the "normal"
distributions and the per-disease shifts are synthetic.  SICdb ``LaboratoryID`` values are the ones
the ricu package maps its concepts to; labels, units and reference types of ``d_references`` are
not published openly and are approximations.
"""

from __future__ import annotations

from .catalog import catalog
from .records import Drug, LabItem, SicLab
from .tables import D_REFERENCES_COLUMNS

LAB_ITEMS: dict[int, LabItem] = catalog().lab_items
LAB_IDS: dict[str, int] = catalog().lab_ids  # lab key (lab_items.csv) -> itemid
PANELS: dict[str, tuple[int, ...]] = catalog().panels  # drawn together (one specimen_id per draw)
DAILY_PANELS = ("cbc", "chem", "mg_phos")  # repeated daily while in hospital

D_ITEMS_ROWS: tuple[tuple[str, ...], ...] = catalog().d_items_rows
CHART_ITEMS: dict[str, tuple[int, str]] = catalog().chart_items  # chart key -> (itemid, valueuom)
# normal GCS responses, charted for every ICU patient: (itemid, value, score)
GCS_ITEMS = ((CHART_ITEMS["gcs_eye"][0], "Spontaneously", 4), (CHART_ITEMS["gcs_verbal"][0], "Oriented", 5),
             (CHART_ITEMS["gcs_motor"][0], "Obeys Commands", 6))

DRUGS: dict[str, Drug] = catalog().drugs
SPECIMENS = catalog().specimens  # key -> (spec_itemid, spec_type_desc, test_itemid, test_name)
ORGANISMS = catalog().organisms  # key -> (org_itemid, org_name)
SUSCEPTIBILITY = catalog().susceptibility  # organism -> ((ab_itemid, ab_name, dilution, interpretation), ...)
PROCEDURES = catalog().procedures  # key -> ((icd9 dotless, title), (icd10-pcs, title))
PROCEDURE_NOTES = catalog().procedure_notes  # key -> how discharge summaries name it

# SICdb: d_references ids the generator writes (rows in sicdb_references.csv)
D_REFERENCES_HEADER = D_REFERENCES_COLUMNS
SIC_REFERENCE_ROWS = catalog().sic_references
SIC_SEX_MALE = 735
SIC_SEX_FEMALE = 736
SIC_DISCHARGE_ALIVE = 2202
SIC_DISCHARGE_DEAD = 2215
SIC_HOSP_DECEASED = 2028
SIC_HOSP_HOME = 2027
SIC_HOSP_TRANSFER = 2030
SIC_SEPSIS_YES = 740
SIC_SEPSIS_NO = 739
SIC_LABS: tuple[SicLab, ...] = catalog().sic_labs
