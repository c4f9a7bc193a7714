"""Static reference tables of the demo generator: lab items, chart items, drugs, organisms,
procedures and SICdb references.

Item ids, labels, fluids, categories, units and reference ranges of the MIMIC-IV items are the
ones of the real MIMIC-IV v2.2 dictionaries (``hosp/d_labitems``, ``icu/d_items``; ranges are the
most frequent ``ref_range_lower``/``ref_range_upper`` seen in the open MIMIC-IV demo).  The
"normal" distributions and the per-disease shifts (see :mod:`pipelines.demo.diseases`) are
synthetic.

SICdb ``LaboratoryID`` values are the ones the ricu package maps its concepts to (ricu
``concept-dict`` ``sic`` sources); labels, units and reference types of ``d_references`` are not
published openly and are approximations (German labels, SICdb units).
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------------------------
# Lab items (MIMIC-IV hosp/d_labitems)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LabItem:
    itemid: int
    label: str
    fluid: str
    category: str
    uom: str
    ref: tuple[str, str] | None  # (ref_range_lower, ref_range_upper) as written in labevents
    normal: tuple[float, float]  # (mean, sd) of a healthy adult (male when sex-specific)
    decimals: int
    short: str  # name used in discharge-summary "Pertinent Results" lines
    vmin: float = 0.0
    vmax: float = 1e9
    comment: str = ""
    ref_f: tuple[str, str] | None = None  # female reference range when different
    normal_f: tuple[float, float] | None = None
    text_value: str = ""  # "___" => value column de-identified while valuenum is kept

    def ref_for(self, sex: str) -> tuple[str, str] | None:
        return self.ref_f if (sex == "F" and self.ref_f is not None) else self.ref

    def normal_for(self, sex: str) -> tuple[float, float]:
        return self.normal_f if (sex == "F" and self.normal_f is not None) else self.normal


def _l(itemid, label, fluid, category, uom, ref, normal, dec, short, **kw) -> LabItem:
    return LabItem(itemid, label, fluid, category, uom, ref, normal, dec, short, **kw)


_B, _U, _C = "Blood", "Urine", "Cerebrospinal Fluid"
_HEM, _CHEM, _BG = "Hematology", "Chemistry", "Blood Gas"

LAB_ITEMS: dict[int, LabItem] = {
    it.itemid: it
    for it in (
        # complete blood count
        _l(51301, "White Blood Cells", _B, _HEM, "K/uL", ("4.0", "10.0"), (7.2, 1.8), 1, "WBC", vmin=0.2, vmax=80),
        _l(51222, "Hemoglobin", _B, _HEM, "g/dL", ("13.7", "17.5"), (14.6, 1.1), 1, "Hgb", vmin=3.5, vmax=21,
           ref_f=("11.2", "15.7"), normal_f=(13.0, 1.0)),
        _l(51221, "Hematocrit", _B, _HEM, "%", ("40", "51"), (44.0, 3.0), 1, "Hct", vmin=11, vmax=62,
           ref_f=("34", "45"), normal_f=(39.0, 3.0)),
        _l(51265, "Platelet Count", _B, _HEM, "K/uL", ("150", "400"), (255, 55), 0, "Plt", vmin=5, vmax=1200),
        _l(51279, "Red Blood Cells", _B, _HEM, "m/uL", ("4.6", "6.1"), (4.9, 0.4), 2, "RBC", vmin=1.0, vmax=7.5,
           ref_f=("3.9", "5.2"), normal_f=(4.4, 0.35)),
        _l(51250, "MCV", _B, _HEM, "fL", ("82", "98"), (90, 4), 0, "MCV", vmin=55, vmax=125),
        _l(51248, "MCH", _B, _HEM, "pg", ("26", "32"), (30.0, 1.5), 1, "MCH", vmin=17, vmax=40),
        _l(51249, "MCHC", _B, _HEM, "g/dL", ("32", "37"), (33.5, 1.0), 1, "MCHC", vmin=26, vmax=39),
        _l(51277, "RDW", _B, _HEM, "%", ("10.5", "15.5"), (13.4, 0.9), 1, "RDW", vmin=10, vmax=28),
        _l(51256, "Neutrophils", _B, _HEM, "%", ("34", "71"), (60, 8), 1, "Neuts", vmin=5, vmax=97),
        _l(51244, "Lymphocytes", _B, _HEM, "%", ("19", "53"), (28, 7), 1, "Lymphs", vmin=1, vmax=80),
        # basic metabolic panel
        _l(50983, "Sodium", _B, _CHEM, "mEq/L", ("133", "145"), (139, 2.2), 0, "Na", vmin=105, vmax=175),
        _l(50971, "Potassium", _B, _CHEM, "mEq/L", ("3.3", "5.1"), (4.2, 0.35), 1, "K", vmin=2.0, vmax=8.5),
        _l(50902, "Chloride", _B, _CHEM, "mEq/L", ("96", "108"), (102, 2.5), 0, "Cl", vmin=70, vmax=130),
        _l(50882, "Bicarbonate", _B, _CHEM, "mEq/L", ("22", "32"), (26, 2.0), 0, "HCO3", vmin=4, vmax=48),
        _l(50868, "Anion Gap", _B, _CHEM, "mEq/L", ("8", "20"), (12, 2.0), 0, "AnGap", vmin=3, vmax=45),
        _l(51006, "Urea Nitrogen", _B, _CHEM, "mg/dL", ("6", "20"), (15, 4.5), 0, "UreaN", vmin=2, vmax=180),
        _l(50912, "Creatinine", _B, _CHEM, "mg/dL", ("0.5", "1.2"), (0.95, 0.15), 1, "Creat", vmin=0.2, vmax=14,
           ref_f=("0.4", "1.1"), normal_f=(0.75, 0.13)),
        _l(50931, "Glucose", _B, _CHEM, "mg/dL", ("70", "100"), (104, 16), 0, "Glucose", vmin=25, vmax=1200,
           comment="If fasting, 70-100 normal, >125 provisional diabetes.", text_value="___"),
        _l(50893, "Calcium, Total", _B, _CHEM, "mg/dL", ("8.4", "10.3"), (9.2, 0.35), 1, "Calcium", vmin=5, vmax=15),
        _l(50960, "Magnesium", _B, _CHEM, "mg/dL", ("1.6", "2.6"), (2.0, 0.18), 1, "Mg", vmin=0.6, vmax=5),
        _l(50970, "Phosphate", _B, _CHEM, "mg/dL", ("2.7", "4.5"), (3.5, 0.45), 1, "Phos", vmin=0.8, vmax=12),
        # liver / pancreas
        _l(50861, "Alanine Aminotransferase (ALT)", _B, _CHEM, "IU/L", ("0", "40"), (22, 8), 0, "ALT", vmin=4, vmax=9000),
        _l(50878, "Asparate Aminotransferase (AST)", _B, _CHEM, "IU/L", ("0", "40"), (24, 7), 0, "AST", vmin=6, vmax=9000),
        _l(50863, "Alkaline Phosphatase", _B, _CHEM, "IU/L", ("40", "130"), (78, 18), 0, "AlkPhos", vmin=20, vmax=1500,
           ref_f=("35", "105"), normal_f=(72, 17)),
        _l(50885, "Bilirubin, Total", _B, _CHEM, "mg/dL", ("0", "1.5"), (0.6, 0.25), 1, "TotBili", vmin=0.1, vmax=40),
        _l(50862, "Albumin", _B, _CHEM, "g/dL", ("3.5", "5.2"), (4.1, 0.3), 1, "Albumin", vmin=1.2, vmax=5.6),
        _l(50956, "Lipase", _B, _CHEM, "IU/L", ("0", "60"), (32, 10), 0, "Lipase", vmin=3, vmax=12000),
        _l(50867, "Amylase", _B, _CHEM, "IU/L", ("0", "100"), (55, 18), 0, "Amylase", vmin=10, vmax=6000),
        _l(50954, "Lactate Dehydrogenase (LD)", _B, _CHEM, "IU/L", ("94", "250"), (180, 35), 0, "LD(LDH)", vmin=60, vmax=5000),
        # cardiac
        _l(51003, "Troponin T", _B, _CHEM, "ng/mL", ("0", "0.01"), (0.005, 0.003), 2, "cTropnT", vmin=0.0, vmax=25,
           comment="cTropnT > 0.10 ng/mL suggests Acute MI.", text_value="___"),
        _l(50963, "NTproBNP", _B, _CHEM, "pg/mL", ("0", "353"), (110, 60), 0, "proBNP", vmin=5, vmax=70000,
           comment="Reference values vary with age, sex, and renal function.   at 35% prevalence, NTproBNP values:."
                   "      < 450 have 99% Neg pred value.      >1000 have 78% Pos pred value.   See online lab manual"
                   " for more detailed information.", text_value="___"),
        _l(50910, "Creatine Kinase (CK)", _B, _CHEM, "IU/L", ("47", "322"), (130, 50), 0, "CK(CPK)", vmin=15, vmax=60000,
           ref_f=("29", "201"), normal_f=(95, 35)),
        _l(50911, "Creatine Kinase, MB Isoenzyme", _B, _CHEM, "ng/mL", ("0", "10"), (3, 1.5), 0, "CK-MB", vmin=1, vmax=500),
        # coagulation
        _l(51237, "INR(PT)", _B, _HEM, "", ("0.9", "1.1"), (1.05, 0.07), 1, "INR(PT)", vmin=0.8, vmax=12),
        _l(51274, "PT", _B, _HEM, "sec", ("9.4", "12.5"), (11.2, 0.8), 1, "PT", vmin=8.5, vmax=120),
        _l(51275, "PTT", _B, _HEM, "sec", ("25", "36.5"), (30.0, 2.8), 1, "PTT", vmin=18, vmax=150),
        _l(50915, "D-Dimer", _B, _CHEM, "ng/mL", ("0", "500"), (300, 120), 0, "D-Dimer", vmin=150, vmax=20000,
           comment="IN AMBULATORY PATIENTS WITH LOW PRE-TEST PROBABILITY (WELLS CRITERIA),;D-DIMER <500 CAN BE"
                   " USED TO EXCLUDE VENOUS THROMBOEMBOLIC DISEASE.", text_value="___"),
        # inflammation / misc chemistry
        _l(50889, "C-Reactive Protein", _B, _CHEM, "mg/L", ("0", "5"), (2.5, 1.5), 1, "CRP", vmin=0.2, vmax=480,
           text_value="___"),
        _l(50993, "Thyroid Stimulating Hormone", _B, _CHEM, "uIU/mL", ("0.27", "4.2"), (1.8, 0.8), 2, "TSH",
           vmin=0.01, vmax=150),
        _l(50995, "Thyroxine (T4), Free", _B, _CHEM, "ng/dL", ("0.93", "1.7"), (1.25, 0.18), 2, "Free T4",
           vmin=0.1, vmax=8),
        _l(50852, "% Hemoglobin A1c", _B, _CHEM, "%", ("4", "6"), (5.5, 0.35), 1, "%HbA1c", vmin=3.8, vmax=16,
           comment="ADA recommendations:.    <7%  goal of therapy.    >8%  warrants therapeutic action.",
           text_value="___"),
        _l(51007, "Uric Acid", _B, _CHEM, "mg/dL", ("3.4", "7"), (5.4, 1.0), 1, "UricAcd", vmin=1, vmax=18,
           ref_f=("2.4", "5.7"), normal_f=(4.4, 0.9)),
        _l(50924, "Ferritin", _B, _CHEM, "ng/mL", ("30", "400"), (120, 60), 0, "Ferritn", vmin=2, vmax=5000,
           ref_f=("13", "150"), normal_f=(70, 35)),
        _l(50952, "Iron", _B, _CHEM, "ug/dL", ("45", "160"), (95, 25), 0, "Iron", vmin=5, vmax=300,
           ref_f=("30", "160"), normal_f=(85, 25)),
        _l(50856, "Acetaminophen", _B, _CHEM, "ug/mL", ("10", "30"), (0, 0), 0, "ASA/Acetmnp", vmin=0, vmax=600),
        _l(50922, "Ethanol", _B, _CHEM, "mg/dL", ("10", "10"), (0, 0), 0, "EtOH", vmin=0, vmax=600,
           comment="80 (these units) = 0.08 (% by weight).", text_value="___"),
        _l(50866, "Ammonia", _B, _CHEM, "umol/L", ("10", "60"), (30, 10), 0, "Ammonia", vmin=8, vmax=400),
        _l(50964, "Osmolality, Measured", _B, _CHEM, "mOsm/kg", ("275", "310"), (290, 5), 0, "Osmolal", vmin=220,
           vmax=400),
        _l(51100, "Sodium, Urine", _U, _CHEM, "mEq/L", None, (60, 25), 0, "UreaNa", vmin=10, vmax=250),
        # blood gas (priority empty in real data)
        _l(50813, "Lactate", _B, _BG, "mmol/L", ("0.5", "2"), (1.2, 0.35), 1, "Lactate", vmin=0.4, vmax=25),
        _l(50820, "pH", _B, _BG, "units", ("7.35", "7.45"), (7.40, 0.02), 2, "pH", vmin=6.8, vmax=7.7),
        _l(50818, "pCO2", _B, _BG, "mm Hg", ("35", "45"), (40, 3), 0, "pCO2", vmin=12, vmax=120),
        _l(50821, "pO2", _B, _BG, "mm Hg", ("85", "105"), (92, 8), 0, "pO2", vmin=30, vmax=500),
        # urinalysis (Hematology category, Urine fluid, as in MIMIC)
        _l(51491, "pH", _U, _HEM, "units", ("5", "8"), (6.0, 0.6), 1, "pH", vmin=5, vmax=9),
        _l(51498, "Specific Gravity", _U, _HEM, " ", ("1.001", "1.035"), (1.015, 0.006), 3, "Sp ___",
           vmin=1.001, vmax=1.050),
        _l(51516, "WBC", _U, _HEM, "#/hpf", ("0", "5"), (2, 1.5), 0, "WBC", vmin=0, vmax=182),
        _l(51493, "RBC", _U, _HEM, "#/hpf", ("0", "2"), (1, 1.0), 0, "RBC", vmin=0, vmax=182),
        _l(51486, "Leukocytes", _U, _HEM, "", None, (0, 0), 0, "Leuks"),
        _l(51487, "Nitrite", _U, _HEM, "", None, (0, 0), 0, "Nitrite"),
        _l(51484, "Ketone", _U, _HEM, "mg/dL", None, (0, 0), 0, "Ketone"),
        _l(51478, "Glucose", _U, _HEM, "mg/dL", None, (0, 0), 0, "Glucose"),
        _l(51492, "Protein", _U, _HEM, "mg/dL", None, (0, 0), 0, "Protein"),
        _l(51085, "HCG, Urine, Qualitative", _U, _CHEM, "+/-", None, (0, 0), 0, "UCG"),
        # cerebrospinal fluid
        _l(51802, "Total Protein, CSF", _C, _CHEM, "mg/dL", ("15", "45"), (32, 7), 0, "TotProt", vmin=5, vmax=1500),
        _l(51790, "Glucose, CSF", _C, _CHEM, "mg/dL", None, (62, 8), 0, "Glucose", vmin=2, vmax=200),
        # estimated GFR: no value, only a comment (as in MIMIC)
        _l(50920, "Estimated GFR (MDRD equation)", _B, _CHEM, "", None, (0, 0), 0, "eGFR"),
    )
}

# Panels drawn together (one specimen_id per panel draw).
PANELS: dict[str, tuple[int, ...]] = {
    "cbc": (51301, 51222, 51221, 51265, 51279, 51250, 51248, 51249, 51277),
    "diff": (51256, 51244),
    "chem": (50983, 50971, 50902, 50882, 50868, 51006, 50912, 50931, 50920),
    "mg_phos": (50893, 50960, 50970),
    "lft": (50861, 50878, 50863, 50885, 50862),
    "pancreas": (50956, 50867),
    "ldh": (50954,),
    "trop": (51003,),
    "ck": (50910, 50911),
    "bnp": (50963,),
    "coag": (51237, 51274, 51275),
    "ddimer": (50915,),
    "crp": (50889,),
    "thyroid": (50993, 50995),
    "a1c": (50852,),
    "uric": (51007,),
    "iron": (50924, 50952),
    "tox": (50856, 50922),
    "ammonia": (50866,),
    "osm": (50964,),
    "urine_na": (51100,),
    "lactate": (50813,),
    "abg": (50820, 50818, 50821),
    "ua": (51491, 51498, 51516, 51493, 51486, 51487, 51484, 51478, 51492),
    "hcg": (51085,),
    "csf": (51802, 51790),
}
# panels repeated daily while in hospital
DAILY_PANELS = ("cbc", "chem", "mg_phos")
# panels that may be drawn as outpatient labs (empty hadm_id)
OUTPATIENT_PANELS = ("cbc", "chem", "lft", "a1c", "thyroid", "mg_phos")

# --------------------------------------------------------------------------------------------
# ICU chart items (MIMIC-IV icu/d_items, exact rows)
# --------------------------------------------------------------------------------------------

D_ITEMS_HEADER = (
    "itemid", "label", "abbreviation", "linksto", "category", "unitname", "param_type",
    "lownormalvalue", "highnormalvalue",
)
D_ITEMS_ROWS: tuple[tuple[str, ...], ...] = (
    ("220045", "Heart Rate", "HR", "chartevents", "Routine Vital Signs", "bpm", "Numeric", "", ""),
    ("220179", "Non Invasive Blood Pressure systolic", "NBPs", "chartevents", "Routine Vital Signs", "mmHg",
     "Numeric", "", ""),
    ("220180", "Non Invasive Blood Pressure diastolic", "NBPd", "chartevents", "Routine Vital Signs", "mmHg",
     "Numeric", "", ""),
    ("220181", "Non Invasive Blood Pressure mean", "NBPm", "chartevents", "Routine Vital Signs", "mmHg",
     "Numeric", "", ""),
    ("220210", "Respiratory Rate", "RR", "chartevents", "Respiratory", "insp/min", "Numeric", "", ""),
    ("223761", "Temperature Fahrenheit", "Temperature F", "chartevents", "Routine Vital Signs", "°F", "Numeric",
     "", ""),
    ("220277", "O2 saturation pulseoxymetry", "SpO2", "chartevents", "Respiratory", "%", "Numeric", "", ""),
    ("225664", "Glucose finger stick (range 70-100)", "Glucose FS (range 70 -100)", "chartevents", "Labs", "None",
     "Numeric", "", ""),
    ("220739", "GCS - Eye Opening", "Eye Opening", "chartevents", "Neurological", "", "Text", "", ""),
    ("223900", "GCS - Verbal Response", "Verbal Response", "chartevents", "Neurological", "", "Text", "", ""),
    ("223901", "GCS - Motor Response", "Motor Response", "chartevents", "Neurological", "", "Text", "", ""),
)

# vital sign key -> (itemid, unit) written to chartevents
VITAL_ITEMS = {
    "hr": (220045, "bpm"),
    "sbp": (220179, "mmHg"),
    "dbp": (220180, "mmHg"),
    "map": (220181, "mmHg"),
    "rr": (220210, "insp/min"),
    "temp": (223761, "°F"),
    "spo2": (220277, "%"),
}
GCS_ITEMS = (
    (220739, "Spontaneously", 4),
    (223900, "Oriented", 5),
    (223901, "Obeys Commands", 6),
)

# --------------------------------------------------------------------------------------------
# Drugs (prescriptions rows and discharge-summary medication lines)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drug:
    key: str
    drug: str  # prescriptions.drug
    code: str  # formulary_drug_cd
    gsn: str
    ndc: str
    strength: str  # prod_strength
    dose: str  # dose_val_rx
    unit: str  # dose_unit_rx
    form_val: str  # form_val_disp
    form_unit: str  # form_unit_disp
    per_day: str  # doses_per_24_hrs
    route: str
    sig: str  # discharge-summary line, e.g. "Aspirin 81 mg PO DAILY"
    drug_type: str = "MAIN"
    mechanism: str = ""  # used by MedQA mechanism questions


def _d(key, drug, code, gsn, ndc, strength, dose, unit, fv, fu, per_day, route, sig, mech="", dtype="MAIN"):
    return Drug(key, drug, code, gsn, ndc, strength, dose, unit, fv, fu, per_day, route, sig, dtype, mech)


DRUGS: dict[str, Drug] = {
    d.key: d
    for d in (
        _d("aspirin", "Aspirin", "ASA81", "004380", "63739052201", "81mg Chewable Tablet", "81", "mg", "1", "TAB",
           "1", "PO", "Aspirin 81 mg PO DAILY", "Irreversible inhibition of cyclooxygenase"),
        _d("aspirin325", "Aspirin", "ASA325", "004376", "00904201559", "325mg Tablet", "325", "mg", "1", "TAB", "1",
           "PO", "Aspirin 325 mg PO ONCE", "Irreversible inhibition of cyclooxygenase"),
        _d("atorva80", "Atorvastatin", "ATOR80", "029967", "00071015823", "80mg Tablet", "80", "mg", "1", "TAB", "1",
           "PO", "Atorvastatin 80 mg PO QPM", "Inhibition of HMG-CoA reductase"),
        _d("atorva40", "Atorvastatin", "ATOR40", "029968", "00071015723", "40mg Tablet", "40", "mg", "1", "TAB", "1",
           "PO", "Atorvastatin 40 mg PO QPM", "Inhibition of HMG-CoA reductase"),
        _d("ticagrelor", "Ticagrelor", "TICA90", "066835", "00186077760", "90 mg Tablet", "90", "mg", "1", "TAB",
           "2", "PO", "Ticagrelor 90 mg PO BID", "Reversible blockade of the P2Y12 ADP receptor"),
        _d("clopidogrel", "Clopidogrel", "CLOP75", "046906", "63653117103", "75 mg Tablet", "75", "mg", "1", "TAB",
           "1", "PO", "Clopidogrel 75 mg PO DAILY", "Irreversible blockade of the P2Y12 ADP receptor"),
        _d("heparin_gtt", "Heparin", "HEPAPREMIX", "006522", "00264958720", "25,000 unit/500 mL", "1000", "UNIT",
           "0.02", "BAG", "", "IV", "Heparin IV per weight-based nomogram",
           "Potentiation of antithrombin III"),
        _d("heparin_sc", "Heparin", "HEPA5I", "006549", "63323026201", "5000 Units / mL- 1mL Vial", "5000", "UNIT",
           "1", "mL", "3", "SC", "Heparin 5000 UNIT SC TID", "Potentiation of antithrombin III"),
        _d("enoxaparin", "Enoxaparin Sodium", "ENOX40I", "043264", "00075062040", "40mg/0.4mL Syringe", "40", "mg",
           "0.4", "mL", "1", "SC", "Enoxaparin Sodium 40 mg SC DAILY",
           "Potentiation of antithrombin III with preferential inhibition of factor Xa"),
        _d("apixaban", "Apixaban", "APIX5", "066483", "00003089421", "5 mg Tablet", "5", "mg", "1", "TAB", "2", "PO",
           "Apixaban 5 mg PO BID", "Direct inhibition of factor Xa"),
        _d("metoprolol_t", "Metoprolol Tartrate", "METO25", "005132", "51079025520", "25mg Tablet", "25", "mg", "1",
           "TAB", "2", "PO", "Metoprolol Tartrate 25 mg PO BID", "Selective blockade of beta-1 adrenergic receptors"),
        _d("metoprolol_s", "Metoprolol Succinate XL", "METS50", "020716", "00186109205", "50 mg Tablet", "50", "mg",
           "1", "TAB", "1", "PO", "Metoprolol Succinate XL 50 mg PO DAILY",
           "Selective blockade of beta-1 adrenergic receptors"),
        _d("diltiazem", "Diltiazem", "DILT30", "016480", "00093031801", "30mg Tablet", "30", "mg", "1", "TAB", "4",
           "PO", "Diltiazem 30 mg PO QID", "Blockade of L-type calcium channels in the AV node"),
        _d("lisinopril", "Lisinopril", "LISI10", "000389", "00172375860", "10mg Tablet", "10", "mg", "1", "TAB", "1",
           "PO", "Lisinopril 10 mg PO DAILY", "Inhibition of angiotensin-converting enzyme"),
        _d("losartan", "Losartan Potassium", "LOSA50", "020690", "00093736598", "50mg Tablet", "50", "mg", "1", "TAB",
           "1", "PO", "Losartan Potassium 50 mg PO DAILY", "Blockade of angiotensin II type 1 receptors"),
        _d("amlodipine", "Amlodipine", "AMLO5", "016926", "00069152068", "5 mg Tablet", "5", "mg", "1", "TAB", "1",
           "PO", "amLODIPine 5 mg PO DAILY", "Blockade of L-type calcium channels in vascular smooth muscle"),
        _d("hctz", "Hydrochlorothiazide", "HCTZ25", "008182", "00172208360", "25 mg Tablet", "25", "mg", "1", "TAB",
           "1", "PO", "Hydrochlorothiazide 25 mg PO DAILY",
           "Inhibition of the Na-Cl cotransporter in the distal convoluted tubule"),
        _d("furosemide_iv", "Furosemide", "FURO40I", "008209", "00409610202", "40mg/4mL Vial", "40", "mg", "1",
           "VIAL", "2", "IV", "Furosemide 40 mg IV BID",
           "Inhibition of the Na-K-2Cl cotransporter in the thick ascending limb"),
        _d("furosemide", "Furosemide", "FURO20", "008208", "51079007220", "20mg Tablet", "20", "mg", "1", "TAB", "1",
           "PO", "Furosemide 20 mg PO DAILY",
           "Inhibition of the Na-K-2Cl cotransporter in the thick ascending limb"),
        _d("spironolactone", "Spironolactone", "SPIR25", "006562", "00378214601", "25mg Tablet", "25", "mg", "1",
           "TAB", "1", "PO", "Spironolactone 25 mg PO DAILY", "Antagonism of the aldosterone receptor"),
        _d("nitro_sl", "Nitroglycerin SL", "NTG4SL", "000484", "00071041824", "0.4 mg SL Tablet", "0.4", "mg", "1",
           "TAB", "", "SL", "Nitroglycerin SL 0.4 mg SL Q5MIN:PRN chest pain",
           "Release of nitric oxide with venodilation"),
        _d("morphine", "Morphine Sulfate", "MORP2I", "004107", "00409189001", "2mg Syringe", "2", "mg", "1", "SYR",
           "", "IV", "Morphine Sulfate 2 mg IV Q4H:PRN pain", "Agonism at mu-opioid receptors"),
        _d("hydromorphone", "HYDROmorphone (Dilaudid)", "HYDR1I", "004220", "00409131201", "1mg/mL Syringe", "0.5",
           "mg", "0.5", "mL", "", "IV", "HYDROmorphone (Dilaudid) 0.5 mg IV Q3H:PRN pain",
           "Agonism at mu-opioid receptors"),
        _d("oxycodone", "OxyCODONE (Immediate Release)", "OXYIR5", "004225", "00406055262", "5mg Tablet", "5", "mg",
           "1", "TAB", "", "PO", "OxyCODONE (Immediate Release) 5 mg PO Q4H:PRN pain",
           "Agonism at mu-opioid receptors"),
        _d("acetaminophen", "Acetaminophen", "ACET325", "004489", "00904198261", "325mg Tablet", "650", "mg", "2",
           "TAB", "", "PO", "Acetaminophen 650 mg PO Q6H:PRN pain or fever",
           "Central inhibition of prostaglandin synthesis"),
        _d("ondansetron", "Ondansetron", "ONDA4I", "016424", "00409475503", "2mg/mL-2mL", "4", "mg", "2", "mL", "",
           "IV", "Ondansetron 4 mg IV Q8H:PRN nausea", "Antagonism of 5-HT3 receptors"),
        _d("pantoprazole_iv", "Pantoprazole", "PANT40I", "027462", "00008092355", "40mg Vial", "40", "mg", "1",
           "VIAL", "2", "IV", "Pantoprazole 40 mg IV Q12H",
           "Irreversible inhibition of the parietal cell H+/K+ ATPase"),
        _d("pantoprazole", "Pantoprazole", "PANT40", "027461", "00008084181", "40 mg Tablet", "40", "mg", "1", "TAB",
           "1", "PO", "Pantoprazole 40 mg PO Q24H", "Irreversible inhibition of the parietal cell H+/K+ ATPase"),
        _d("octreotide", "Octreotide Acetate", "OCTR50I", "011476", "00078018001", "50mcg/mL Ampule", "50", "mcg",
           "1", "mL", "", "IV", "Octreotide Acetate 50 mcg/hr IV DRIP", "Somatostatin analogue reducing splanchnic flow"),
        _d("ceftriaxone", "CefTRIAXone", "CEFX1F", "009225", "00338500341", "1 g / 50 mL Frozen Bag", "1", "g", "1",
           "BAG", "1", "IV", "CefTRIAXone 1 gm IV Q24H", "Inhibition of bacterial cell wall synthesis"),
        _d("ceftriaxone2", "CefTRIAXone", "CEFX2F", "009226", "00338500441", "2 g / 50 mL Frozen Bag", "2", "g", "1",
           "BAG", "2", "IV", "CefTRIAXone 2 gm IV Q12H", "Inhibition of bacterial cell wall synthesis"),
        _d("azithromycin", "Azithromycin", "AZIT500I", "016922", "00069315083", "500 mg Vial", "500", "mg", "1",
           "VIAL", "1", "IV", "Azithromycin 500 mg IV Q24H", "Inhibition of the 50S ribosomal subunit"),
        _d("vancomycin", "Vancomycin", "VANC1F", "009327", "00338355248", "1 g / 200 mL Premix", "1000", "mg", "1",
           "BAG", "2", "IV", "Vancomycin 1000 mg IV Q 12H", "Binding of D-Ala-D-Ala cell wall precursors"),
        _d("pip_tazo", "Piperacillin-Tazobactam", "PIPT4.5F", "019771", "00206886202", "4.5 g Frozen Bag", "4.5",
           "g", "1", "BAG", "3", "IV", "Piperacillin-Tazobactam 4.5 g IV Q8H",
           "Inhibition of bacterial cell wall synthesis with beta-lactamase inhibition"),
        _d("cefazolin", "CeFAZolin", "CEFA2F", "009165", "00264310311", "2 g / 100 mL Bag", "2", "g", "1", "BAG",
           "3", "IV", "CeFAZolin 2 g IV Q8H", "Inhibition of bacterial cell wall synthesis"),
        _d("ampicillin", "Ampicillin Sodium", "AMP2I", "008947", "63323038810", "2 g Vial", "2", "g", "1", "VIAL",
           "6", "IV", "Ampicillin Sodium 2 g IV Q4H", "Inhibition of bacterial cell wall synthesis"),
        _d("metronidazole", "MetroNIDAZOLE", "METR500", "008757", "00591521701", "500mg Tablet", "500", "mg", "1",
           "TAB", "3", "PO", "MetroNIDAZOLE 500 mg PO Q8H", "Formation of toxic free radicals that damage DNA"),
        _d("vanco_po", "Vancomycin Oral Liquid", "VANCOR", "009328", "00904558246", "125 mg/2.5 mL Oral Solution",
           "125", "mg", "2.5", "mL", "4", "PO", "Vancomycin Oral Liquid 125 mg PO Q6H",
           "Binding of D-Ala-D-Ala cell wall precursors"),
        _d("cipro", "Ciprofloxacin HCl", "CIPR500", "009482", "00093086401", "500mg Tablet", "500", "mg", "1", "TAB",
           "2", "PO", "Ciprofloxacin HCl 500 mg PO Q12H", "Inhibition of DNA gyrase"),
        _d("ns", "Sodium Chloride 0.9%", "NS1000", "001210", "00338004904", "1000 mL Bag", "1000", "mL", "1000",
           "mL", "", "IV", "Sodium Chloride 0.9% 1000 mL IV", dtype="BASE"),
        _d("lr", "Lactated Ringers", "LR1000", "001187", "00338011704", "1000 mL Bag", "1000", "mL", "1000", "mL",
           "", "IV", "Lactated Ringers 1000 mL IV", dtype="BASE"),
        _d("insulin_gtt", "Insulin", "INSULIN", "001723", "00002821501", "100 Units / mL - 10 mL Vial", "0.1",
           "UNIT/KG/HR", "0", "mL", "", "IV", "Insulin IV infusion per DKA protocol",
           "Activation of the insulin receptor tyrosine kinase"),
        _d("insulin_ss", "Insulin", "INRHI", "001723", "00002821501", "100 Units / mL - 10 mL Vial", "0", "UNIT",
           "0", "mL", "", "SC", "Insulin SC Sliding Scale", "Activation of the insulin receptor tyrosine kinase"),
        _d("glargine", "Glargine", "GLAR100I", "025688", "00088222033", "100 Units / mL - 3 mL Pen", "20", "UNIT",
           "0.2", "mL", "1", "SC", "Glargine 20 Units Bedtime", "Activation of the insulin receptor tyrosine kinase"),
        _d("metformin", "MetFORMIN (Glucophage)", "METF500", "010855", "00093104801", "500 mg Tablet", "500", "mg",
           "1", "TAB", "2", "PO", "MetFORMIN (Glucophage) 500 mg PO BID", "Inhibition of hepatic gluconeogenesis"),
        _d("potassium", "Potassium Chloride", "KCL20PM", "001332", "00338070941", "20 mEq / 50 mL Premix", "20",
           "mEq", "1", "BAG", "", "IV", "Potassium Chloride 20 mEq IV ONCE"),
        _d("albuterol", "Albuterol 0.083% Neb Soln", "ALBU3H", "028090", "00487950101", "2.5mg/3mL Neb", "1", "NEB",
           "1", "NEB", "6", "IH", "Albuterol 0.083% Neb Soln 1 NEB IH Q4H:PRN wheezing",
           "Agonism at beta-2 adrenergic receptors"),
        _d("ipratropium", "Ipratropium Bromide Neb", "IPRA2H", "011586", "00487980125", "0.02% Neb", "1", "NEB", "1",
           "NEB", "4", "IH", "Ipratropium Bromide Neb 1 NEB IH Q6H", "Antagonism of muscarinic receptors"),
        _d("tiotropium", "Tiotropium Bromide", "TIOT", "050714", "00597007575", "18mcg Capsule-Inhalation Device",
           "1", "CAP", "1", "CAP", "1", "IH", "Tiotropium Bromide 1 CAP IH DAILY",
           "Antagonism of muscarinic receptors"),
        _d("prednisone", "PredniSONE", "PRED20", "006747", "00054476025", "20 mg Tablet", "40", "mg", "2", "TAB", "1",
           "PO", "PredniSONE 40 mg PO DAILY", "Inhibition of phospholipase A2 and inflammatory gene transcription"),
        _d("methylpred", "MethylPREDNISolone Sodium Succ", "METH125I", "006771", "00009004722", "125mg Vial", "125",
           "mg", "1", "VIAL", "1", "IV", "MethylPREDNISolone Sodium Succ 125 mg IV Q24H",
           "Inhibition of phospholipase A2 and inflammatory gene transcription"),
        _d("lorazepam", "Lorazepam", "LORA1I", "003758", "00641604425", "2mg/mL Vial", "1", "mg", "0.5", "mL", "",
           "IV", "Lorazepam 1 mg IV Q4H:PRN CIWA > 10",
           "Increase in the frequency of GABA-A chloride channel opening"),
        _d("diazepam", "Diazepam", "DIAZ10", "003764", "00140000401", "10 mg Tablet", "10", "mg", "1", "TAB", "",
           "PO", "Diazepam 10 mg PO Q2H:PRN CIWA > 10",
           "Increase in the frequency of GABA-A chloride channel opening"),
        _d("thiamine", "Thiamine", "THIA100", "002544", "00904054460", "100mg Tablet", "100", "mg", "1", "TAB", "1",
           "PO", "Thiamine 100 mg PO DAILY", "Cofactor replacement for pyruvate dehydrogenase"),
        _d("folic", "FoLIC Acid", "FOLI1", "002366", "00904194960", "1 mg Tablet", "1", "mg", "1", "TAB", "1", "PO",
           "FoLIC Acid 1 mg PO DAILY"),
        _d("levetiracetam", "LevETIRAcetam", "LEVE500", "043125", "50474059440", "500mg Tablet", "500", "mg", "1",
           "TAB", "2", "PO", "LevETIRAcetam 500 mg PO BID", "Binding of synaptic vesicle protein SV2A"),
        _d("nac", "Acetylcysteine", "ACET6I", "008700", "00517760030", "6 g / 30 mL Vial", "150", "mg/kg", "0",
           "mL", "", "IV", "Acetylcysteine IV per 21-hour protocol", "Replenishment of hepatic glutathione"),
        _d("alteplase", "Alteplase", "ALTE100I", "015616", "50242004413", "100mg Vial", "0.9", "mg/kg", "0", "VIAL",
           "", "IV", "Alteplase 0.9 mg/kg IV ONCE", "Conversion of plasminogen to plasmin"),
        _d("colchicine", "Colchicine", "COLC6", "007466", "64764011907", "0.6 mg Tablet", "0.6", "mg", "1", "TAB",
           "2", "PO", "Colchicine 0.6 mg PO BID", "Inhibition of microtubule polymerization in neutrophils"),
        _d("allopurinol", "Allopurinol", "ALLO100", "002767", "00591554301", "100 mg Tablet", "100", "mg", "1", "TAB",
           "1", "PO", "Allopurinol 100 mg PO DAILY", "Inhibition of xanthine oxidase"),
        _d("hcq", "Hydroxychloroquine Sulfate", "HCQ200", "009553", "63304029601", "200 mg Tablet", "200", "mg", "1",
           "TAB", "2", "PO", "Hydroxychloroquine Sulfate 200 mg PO BID", "Inhibition of toll-like receptor signaling"),
        _d("methimazole", "Methimazole", "METH10", "005064", "00781229901", "10 mg Tablet", "10", "mg", "1", "TAB",
           "3", "PO", "Methimazole 10 mg PO TID", "Inhibition of thyroid peroxidase"),
        _d("propranolol", "Propranolol", "PROP20", "005198", "00603548221", "20 mg Tablet", "20", "mg", "1", "TAB",
           "4", "PO", "Propranolol 20 mg PO Q6H", "Nonselective blockade of beta adrenergic receptors"),
        _d("levothyroxine", "Levothyroxine Sodium", "LEVO50", "006628", "00378180501", "50 mcg Tablet", "50", "mcg",
           "1", "TAB", "1", "PO", "Levothyroxine Sodium 50 mcg PO DAILY", "Thyroid hormone receptor agonism"),
        _d("labetalol", "Labetalol", "LABE20I", "005178", "00409233920", "5mg/mL Vial", "20", "mg", "4", "mL", "",
           "IV", "Labetalol 20 mg IV ONCE", "Blockade of alpha-1 and beta adrenergic receptors"),
        _d("mag_sulfate", "Magnesium Sulfate", "MAG4PM", "001308", "00409672903", "4 g / 100 mL Premix", "4", "g",
           "1", "BAG", "", "IV", "Magnesium Sulfate 4 g IV ONCE", "Blockade of NMDA receptors and calcium channels"),
        _d("lactulose", "Lactulose", "LACT30L", "006089", "00121057730", "30mL UD Cup", "30", "mL", "1", "UDCUP", "3",
           "PO", "Lactulose 30 mL PO TID", "Acidification of colonic contents trapping ammonia"),
        _d("rifaximin", "Rifaximin", "RIFA550", "065633", "65649030103", "550 mg Tablet", "550", "mg", "1", "TAB",
           "2", "PO", "Rifaximin 550 mg PO BID", "Inhibition of bacterial RNA polymerase"),
        _d("ferrous", "Ferrous Sulfate", "FERR325", "002432", "00904759160", "325 mg Tablet", "325", "mg", "1", "TAB",
           "1", "PO", "Ferrous Sulfate 325 mg PO DAILY"),
        _d("sertraline", "Sertraline", "SERT50", "016367", "00049490041", "50mg Tablet", "50", "mg", "1", "TAB", "1",
           "PO", "Sertraline 50 mg PO DAILY", "Selective inhibition of serotonin reuptake"),
        _d("tamsulosin", "Tamsulosin", "TAMS4", "024890", "00597005801", "0.4 mg Capsule", "0.4", "mg", "1", "CAP",
           "1", "PO", "Tamsulosin 0.4 mg PO QHS", "Blockade of alpha-1A adrenergic receptors"),
        _d("omeprazole", "Omeprazole", "OMEP20", "026311", "62175013643", "20 mg Capsule", "20", "mg", "1", "CAP",
           "1", "PO", "Omeprazole 20 mg PO DAILY", "Irreversible inhibition of the parietal cell H+/K+ ATPase"),
        _d("norepinephrine", "Norepinephrine", "NORE4I", "007578", "00409144301", "4 mg / 250 mL", "0.06",
           "mcg/kg/min", "0", "BAG", "", "IV", "Norepinephrine 0.06 mcg/kg/min IV DRIP",
           "Agonism at alpha-1 adrenergic receptors"),
        _d("docusate", "Docusate Sodium", "DOCU100", "003009", "00904718061", "100mg Capsule", "100", "mg", "1", "CAP",
           "2", "PO", "Docusate Sodium 100 mg PO BID"),
        _d("senna", "Senna", "SENN187", "004162", "00536355401", "8.6 mg Tablet", "8.6", "mg", "1", "TAB", "2", "PO",
           "Senna 8.6 mg PO BID:PRN constipation"),
    )
}

# --------------------------------------------------------------------------------------------
# Microbiology (ids from the real MIMIC-IV demo)
# --------------------------------------------------------------------------------------------

SPECIMENS = {
    "blood": (70012, "BLOOD CULTURE", 90201, "Blood Culture, Routine"),
    "urine": (70079, "URINE", 90039, "URINE CULTURE"),
    "sputum": (70062, "SPUTUM", 90055, "RESPIRATORY CULTURE"),
    "stool": (70064, "STOOL", 90221, "C. difficile PCR"),
    "wound": (70070, "SWAB", 90046, "WOUND CULTURE"),
    "mrsa": (70091, "MRSA SCREEN", 90189, "MRSA SCREEN"),
}
ORGANISMS = {
    "ecoli": (80002, "ESCHERICHIA COLI"),
    "kleb": (80004, "KLEBSIELLA PNEUMONIAE"),
    "saureus": (80023, "STAPH AUREUS COAG +"),
    "proteus": (80017, "PROTEUS MIRABILIS"),
    "pseudo": (80026, "PSEUDOMONAS AERUGINOSA"),
    "cdiff": (80139, "CLOSTRIDIUM DIFFICILE"),
    "viridans": (80280, "VIRIDANS STREPTOCOCCI"),
}
# organism -> antibiotics tested: (ab_itemid, ab_name, dilution_value, interpretation)
SUSCEPTIBILITY = {
    "ecoli": ((90004, "AMPICILLIN", "=>32", "R"), (90005, "CEFAZOLIN", "<=4", "S"), (90018, "CEFTRIAXONE", "<=1", "S"),
              (90019, "CIPROFLOXACIN", "<=0.25", "S"), (90012, "GENTAMICIN", "<=1", "S"),
              (90010, "NITROFURANTOIN", "<=16", "S"), (90026, "PIPERACILLIN/TAZO", "<=4", "S"),
              (90008, "TRIMETHOPRIM/SULFA", "<=1", "S")),
    "kleb": ((90005, "CEFAZOLIN", "<=4", "S"), (90018, "CEFTRIAXONE", "<=1", "S"), (90028, "CEFEPIME", "<=1", "S"),
             (90019, "CIPROFLOXACIN", "<=0.25", "S"), (90029, "MEROPENEM", "<=0.25", "S"),
             (90008, "TRIMETHOPRIM/SULFA", "<=1", "S")),
    "proteus": ((90004, "AMPICILLIN", "<=2", "S"), (90018, "CEFTRIAXONE", "<=1", "S"),
                (90019, "CIPROFLOXACIN", "<=0.25", "S"), (90008, "TRIMETHOPRIM/SULFA", "<=1", "S")),
    "saureus": ((90007, "CLINDAMYCIN", "<=0.25", "S"), (90006, "ERYTHROMYCIN", "=>8", "R"),
                (90016, "OXACILLIN", "0.5", "S"), (90011, "TETRACYCLINE", "<=1", "S"),
                (90008, "TRIMETHOPRIM/SULFA", "<=0.5", "S"), (90015, "VANCOMYCIN", "1", "S")),
    "pseudo": ((90028, "CEFEPIME", "2", "S"), (90017, "CEFTAZIDIME", "4", "S"), (90019, "CIPROFLOXACIN", "<=0.25", "S"),
               (90029, "MEROPENEM", "<=0.25", "S"), (90026, "PIPERACILLIN/TAZO", "8", "S"),
               (90013, "TOBRAMYCIN", "<=1", "S")),
}

# --------------------------------------------------------------------------------------------
# ICD procedures: key -> ((icd9 dotless, title), (icd10-pcs, title)); titles from d_icd_procedures
# --------------------------------------------------------------------------------------------

PROCEDURES: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "pci": (("3607", "Insertion of drug-eluting coronary artery stent(s)"),
            ("027034Z", "Dilation of Coronary Artery, One Artery with Drug-eluting Intraluminal Device, "
                        "Percutaneous Approach")),
    "cath": (("3722", "Left heart cardiac catheterization"),
             ("4A023N7", "Measurement of Cardiac Sampling and Pressure, Left Heart, Percutaneous Approach")),
    "lap_appy": (("4701", "Laparoscopic appendectomy"), ("0DTJ4ZZ", "Resection of Appendix, Percutaneous Endoscopic "
                                                                    "Approach")),
    "lap_chole": (("5123", "Laparoscopic cholecystectomy"),
                  ("0FT44ZZ", "Resection of Gallbladder, Percutaneous Endoscopic Approach")),
    "hemiarthroplasty": (("8152", "Partial hip replacement"),
                         ("0SRR0J9", "Replacement of Right Hip Joint, Femoral Surface with Synthetic Substitute, "
                                     "Cemented, Open Approach")),
    "egd_control": (("4443", "Endoscopic control of gastric or duodenal bleeding"),
                    ("0W3P8ZZ", "Control Bleeding in Gastrointestinal Tract, Via Natural or Artificial Opening "
                                "Endoscopic")),
    "lp": (("0331", "Spinal tap"), ("009U3ZX", "Drainage of Spinal Canal, Percutaneous Approach, Diagnostic")),
    "paracentesis": (("5491", "Percutaneous abdominal drainage"),
                     ("0W9G3ZZ", "Drainage of Peritoneal Cavity, Percutaneous Approach")),
    "transfusion": (("9904", "Transfusion of packed cells"),
                    ("30233N1", "Transfusion of Nonautologous Red Blood Cells into Peripheral Vein, Percutaneous "
                                "Approach")),
    "central_line": (("3893", "Venous catheterization, not elsewhere classified"),
                     ("02HV33Z", "Insertion of Infusion Device into Superior Vena Cava, Percutaneous Approach")),
    "mech_vent": (("9671", "Continuous invasive mechanical ventilation for less than 96 consecutive hours"),
                  ("5A1945Z", "Respiratory Ventilation, 24-96 Consecutive Hours")),
    "nippv": (("9390", "Non-invasive mechanical ventilation"),
              ("5A09357", "Assistance with Respiratory Ventilation, Less than 24 Consecutive Hours, Continuous "
                          "Positive Airway Pressure")),
    "hemodialysis": (("3995", "Hemodialysis"),
                     ("5A1D70Z", "Performance of Urinary Filtration, Intermittent, Less than 6 Hours Per Day")),
    "tpa": (("9910", "Injection or infusion of thrombolytic agent"),
            ("3E03317", "Introduction of Other Thrombolytic into Peripheral Vein, Percutaneous Approach")),
    "bronch_biopsy": (("3324", "Closed [endoscopic] biopsy of bronchus"),
                      ("0BBC8ZX", "Excision of Right Upper Lung Lobe, Via Natural or Artificial Opening Endoscopic, "
                                  "Diagnostic")),
    "csection": (("741", "Low cervical cesarean section"), ("10D00Z1", "Extraction of Products of Conception, Low, "
                                                                       "Open Approach")),
    "cardioversion": (("9961", "Atrial cardioversion"), ("5A2204Z", "Restoration of Cardiac Rhythm, Single")),
}

# --------------------------------------------------------------------------------------------
# SICdb references (d_references) and laboratory ids
# --------------------------------------------------------------------------------------------

D_REFERENCES_HEADER = (
    "ReferenceGlobalID", "ReferenceValue", "ReferenceName", "ReferenceDescription", "ReferenceUnit",
    "ReferenceOrder", "ReferenceType", "Data", "LOINC_code",
)

SIC_SEX_MALE = 735
SIC_SEX_FEMALE = 736
SIC_DISCHARGE_ALIVE = 2202
SIC_DISCHARGE_DEAD = 2215
SIC_HOSP_DECEASED = 2028
SIC_HOSP_HOME = 2027
SIC_HOSP_TRANSFER = 2030
SIC_SEPSIS_YES = 740
SIC_SEPSIS_NO = 739


@dataclass(frozen=True)
class SicLab:
    lab_id: int  # LaboratoryID (ricu concept-dict)
    name: str  # German ReferenceValue
    unit: str  # SICdb unit
    loinc: str
    mimic_itemid: int  # which MIMIC item's distribution (and disease shift) drives the value
    factor: float  # SICdb value = MIMIC-unit value * factor
    decimals: int


SIC_LABS: tuple[SicLab, ...] = (
    SicLab(367, "Kreatinin", "mg/dl", "2160-0", 50912, 1.0, 2),
    SicLab(658, "Hämoglobin", "g/dl", "718-7", 51222, 1.0, 1),
    SicLab(217, "Hämatokrit", "%", "4544-3", 51221, 1.0, 1),
    SicLab(301, "Leukozyten", "G/l", "6690-2", 51301, 1.0, 2),
    SicLab(314, "Thrombozyten", "G/l", "777-3", 51265, 1.0, 0),
    SicLab(469, "Natrium", "mmol/l", "2951-2", 50983, 1.0, 0),
    SicLab(463, "Kalium", "mmol/l", "2823-3", 50971, 1.0, 1),
    SicLab(450, "Chlorid", "mmol/l", "2075-0", 50902, 1.0, 0),
    SicLab(456, "Bicarbonat", "mmol/l", "1963-8", 50882, 1.0, 1),
    SicLab(348, "Glucose", "mg/dl", "2345-7", 50931, 1.0, 0),
    SicLab(657, "Laktat", "mmol/l", "2524-7", 50813, 1.0, 1),
    SicLab(341, "CRP", "mg/dl", "1988-5", 50889, 0.1, 2),
    SicLab(481, "Troponin T hs", "ng/l", "67151-1", 51003, 1000.0, 0),
    SicLab(333, "Bilirubin gesamt", "mg/dl", "1975-2", 50885, 1.0, 2),
    SicLab(616, "GOT (AST)", "U/l", "1920-8", 50878, 1.0, 0),
    SicLab(617, "GPT (ALT)", "U/l", "1742-6", 50861, 1.0, 0),
    SicLab(287, "Albumin", "g/dl", "1751-7", 50862, 1.0, 1),
    SicLab(457, "Calcium", "mmol/l", "17861-6", 50893, 0.2495, 2),
    SicLab(468, "Magnesium", "mmol/l", "19123-9", 50960, 0.4114, 2),
    SicLab(597, "PTT", "sec", "3173-2", 51275, 1.0, 1),
    SicLab(611, "CK", "U/l", "2157-6", 50910, 1.0, 0),
)
# (LaboratoryType: assumed 1 = central laboratory, 2 = point-of-care blood gas analyser; not verified)
SIC_POC_LABS = frozenset({657, 348, 469, 463})

SIC_UNITS = (
    # HospitalUnit / ReferringUnit / DischargeUnit reference ids (approximate)
    (2, "INIC", "Unit"), (3, "CWIN", "Unit"), (4, "INBD", "Unit"), (5, "INID", "Unit"),
)
SIC_SURGICAL_SITES = (
    (2211, "Darm / Kolorektal"), (2219, "Oberer Gastrointestinaltrakt"), (2225, "Leber / Galle / Pankreas"),
    (2231, "Herzchirurgie"), (2237, "Neurochirurgie"), (2245, "Unfallchirurgie"), (2250, "Keine Operation"),
)
