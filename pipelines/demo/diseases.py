"""Disease catalog of the embedded demo generator.

Every primary diagnosis carries:

* an ICD-10-CM code (dotted; MIMIC files store it without the dot) and an ICD-9-CM code that the
  CMS GEM maps into the same ICD-10-CM category; long titles are the ones of MIMIC-IV
  ``hosp/d_icd_diagnoses`` (checked by the tests when the open demo is available);
* an ICD-10-GM code (dotted, German title) for the SICdb-like output;
* names, synonyms and abbreviations, chief-complaint and HPI phrasings (with negated findings),
  exam findings, vital-sign and lab profiles, imaging with radiology findings/impression,
  medications, microbiology, procedures, typical comorbidities, age/sex tendencies, and facts
  for MedQA-style questions.

Lab profiles are ``{itemid: (mean, sd)}`` (normal draw) or ``{itemid: (median, sigma, "log")}``
(log-normal draw) for the admission value; items not listed keep the patient's normal
distribution.  All values are synthetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ---- lab item ids (MIMIC-IV d_labitems) -----------------------------------------------------
WBC, HGB, HCT, PLT, MCV, RDW, NEUT, LYMPH = 51301, 51222, 51221, 51265, 51250, 51277, 51256, 51244
NA, K, CL, HCO3, AG, BUN, CR, GLU = 50983, 50971, 50902, 50882, 50868, 51006, 50912, 50931
CA, MG, PHOS = 50893, 50960, 50970
ALT, AST, ALP, TBILI, ALB, LIP, AMY, LDH = 50861, 50878, 50863, 50885, 50862, 50956, 50867, 50954
TROP, BNP, CK, CKMB = 51003, 50963, 50910, 50911
INR, PT, PTT, DDIMER, CRP = 51237, 51274, 51275, 50915, 50889
TSH, FT4, A1C, URIC, FERRITIN, IRON = 50993, 50995, 50852, 51007, 50924, 50952
APAP, ETOH, NH3, OSM, UNA = 50856, 50922, 50866, 50964, 51100
LACT, PH, PCO2, PO2 = 50813, 50820, 50818, 50821
UWBC, URBC = 51516, 51493
CSF_PROT, CSF_GLU = 51802, 51790
# urinalysis text items
U_LEUK, U_NITRITE, U_KETONE, U_GLUCOSE, U_PROTEIN, U_HCG = 51486, 51487, 51484, 51478, 51492, 51085


@dataclass(frozen=True)
class Code:
    """One diagnosis in both ICD versions (dotted) with the MIMIC long titles."""

    icd10: str
    title10: str
    icd9: str
    title9: str

    @property
    def icd10_nodot(self) -> str:
        return self.icd10.replace(".", "")

    @property
    def icd9_nodot(self) -> str:
        return self.icd9.replace(".", "")

    def for_version(self, version: int) -> tuple[str, str]:
        """(dotless code, long title) as written to MIMIC files."""
        if version == 9:
            return self.icd9_nodot, self.title9
        return self.icd10_nodot, self.title10


@dataclass(frozen=True)
class Comorbidity:
    key: str
    code: Code
    pmh: tuple[str, ...]  # how it is written in "Past Medical History" (first = long form)
    home_meds: tuple[str, ...] = ()
    sex: str | None = None
    min_age: int = 18


@dataclass(frozen=True)
class Imaging:
    key: str
    exam_name: str
    exam_code: str
    cpt: str
    technique: str
    findings: tuple[str, ...]  # alternatives; describe without naming the diagnosis
    impression: tuple[str, ...]  # alternatives; name the diagnosis
    indication: str  # "// question" part of the indication


@dataclass(frozen=True)
class QA:
    """One MedQA-style non-diagnosis item: (answer, distractors)."""

    kind: str  # "next_step" | "pharm" | "test" | "mechanism"
    answer: str
    distractors: tuple[str, ...]


@dataclass(frozen=True)
class Disease:
    key: str
    name: str  # canonical name (MedQA answer, discharge diagnosis)
    synonyms: tuple[str, ...]  # acceptable names and abbreviations
    code: Code
    gm: tuple[str, str]  # ICD-10-GM (dotted), German title
    chapter: str  # ICD-10 chapter (roman numeral)
    system: str  # organ system, used to pick plausible distractors
    service: str
    careunit: str  # admitting ward (transfers.careunit)
    icu_unit: str
    age: tuple[float, float]  # mean, sd of age at admission
    chief_complaints: tuple[str, ...]
    hpi: tuple[tuple[str, ...], ...]  # facts, each a tuple of alternative phrasings
    negatives: tuple[str, ...]
    exam: tuple[tuple[str, tuple[str, ...]], ...]  # (system, abnormal alternatives)
    vitals: dict
    labs: dict
    panels: tuple[str, ...]
    course: tuple[str, ...]  # hospital-course paragraphs (name the diagnosis)
    admission_meds: tuple[str, ...]
    discharge_meds: tuple[str, ...]
    comorbidities: tuple[tuple[str, float], ...]
    medqa: tuple[QA, ...]
    exam_clues: tuple[str, ...] = ()  # short exam phrases for MedQA vignettes
    history_clues: tuple[str, ...] = ()  # short history phrases for MedQA vignettes
    sex: str | None = None  # "F"/"M" when the disease is sex-specific
    female_share: float = 0.5
    age_range: tuple[int, int] = (18, 95)
    ua: dict = field(default_factory=dict)  # urinalysis text results {itemid: value}
    imaging: tuple[Imaging, ...] = ()
    associated: tuple[tuple[Code, float], ...] = ()  # secondary codes tied to the presentation
    procedures: tuple[tuple[str, float], ...] = ()
    micro: tuple[tuple[str, str, float], ...] = ()  # (specimen, organism or "", probability positive)
    los: tuple[float, float] = (4.0, 2.0)  # days
    icu_prob: float = 0.3
    death_prob: float = 0.02
    admission_type: str = "EW EMER."
    history_code: Code | None = None  # code used when this disease is part of the past history
    history_phrase: str = ""  # PMH phrasing when this was a previous admission
    discharge_instructions: str = ""

    @property
    def abbreviations(self) -> tuple[str, ...]:
        return tuple(s for s in self.synonyms if s.isupper() or (len(s) <= 5 and " " not in s))


def C(icd10: str, title10: str, icd9: str, title9: str) -> Code:  # noqa: N802 - short constructor
    return Code(icd10, title10, icd9, title9)


# =============================================================================================
# Comorbidities (secondary diagnoses known before admission)
# =============================================================================================

COMORBIDITIES: dict[str, Comorbidity] = {
    c.key: c
    for c in (
        Comorbidity("htn", C("I10", "Essential (primary) hypertension", "401.9", "Unspecified essential hypertension"),
                    ("Hypertension", "HTN"), ("lisinopril", "amlodipine")),
        Comorbidity("hld", C("E78.5", "Hyperlipidemia, unspecified", "272.4", "Other and unspecified hyperlipidemia"),
                    ("Hyperlipidemia", "HLD"), ("atorva40",)),
        Comorbidity("dm2", C("E11.9", "Type 2 diabetes mellitus without complications", "250.00",
                             "Diabetes mellitus without mention of complication, type II or unspecified type, not "
                             "stated as uncontrolled"),
                    ("Type 2 diabetes mellitus", "DM2", "T2DM", "NIDDM"), ("metformin",)),
        Comorbidity("dm1", C("E10.9", "Type 1 diabetes mellitus without complications", "250.01",
                             "Diabetes mellitus without mention of complication, type I [juvenile type], not stated "
                             "as uncontrolled"),
                    ("Type 1 diabetes mellitus", "DM1", "T1DM"), ("glargine",), min_age=18),
        Comorbidity("ckd", C("N18.9", "Chronic kidney disease, unspecified", "585.9",
                             "Chronic kidney disease, unspecified"), ("Chronic kidney disease", "CKD"), ()),
        Comorbidity("cad", C("I25.10", "Atherosclerotic heart disease of native coronary artery without angina "
                                    "pectoris", "414.01", "Coronary atherosclerosis of native coronary artery"),
                    ("Coronary artery disease", "CAD"), ("aspirin", "atorva80", "metoprolol_s")),
        Comorbidity("copd", C("J44.9", "Chronic obstructive pulmonary disease, unspecified", "496",
                              "Chronic airway obstruction, not elsewhere classified"),
                    ("COPD", "Chronic obstructive pulmonary disease"), ("tiotropium", "albuterol")),
        Comorbidity("obesity", C("E66.9", "Obesity, unspecified", "278.00", "Obesity, unspecified"),
                    ("Obesity",), ()),
        Comorbidity("tobacco", C("F17.210", "Nicotine dependence, cigarettes, uncomplicated", "305.1",
                                 "Tobacco use disorder"), ("Tobacco use", "active smoker"), ()),
        Comorbidity("etoh", C("F10.20", "Alcohol dependence, uncomplicated", "303.90",
                              "Other and unspecified alcohol dependence, unspecified"),
                    ("Alcohol use disorder", "EtOH abuse"), ("thiamine", "folic")),
        Comorbidity("gerd", C("K21.9", "Gastro-esophageal reflux disease without esophagitis", "530.81",
                              "Esophageal reflux"), ("GERD",), ("omeprazole",)),
        Comorbidity("hypothyroid", C("E03.9", "Hypothyroidism, unspecified", "244.9",
                                     "Unspecified acquired hypothyroidism"), ("Hypothyroidism",), ("levothyroxine",)),
        Comorbidity("depression", C("F32.9", "Major depressive disorder, single episode, unspecified", "311",
                                    "Depressive disorder, not elsewhere classified"), ("Depression", "MDD"),
                    ("sertraline",)),
        Comorbidity("anxiety", C("F41.9", "Anxiety disorder, unspecified", "300.00", "Anxiety state, unspecified"),
                    ("Anxiety",), ()),
        Comorbidity("osa", C("G47.33", "Obstructive sleep apnea (adult) (pediatric)", "327.23",
                             "Obstructive sleep apnea (adult)(pediatric)"), ("OSA on CPAP", "OSA"), ()),
        Comorbidity("oa", C("M19.90", "Unspecified osteoarthritis, unspecified site", "715.90",
                            "Osteoarthrosis, unspecified whether generalized or localized, site unspecified"),
                    ("Osteoarthritis", "OA"), ("acetaminophen",)),
        Comorbidity("bph", C("N40.0", "Benign prostatic hyperplasia without lower urinary tract symptoms", "600.00",
                             "Hypertrophy (benign) of prostate without urinary obstruction and other lower urinary "
                             "tract symptom (LUTS)"), ("BPH",), ("tamsulosin",), sex="M", min_age=45),
        Comorbidity("osteoporosis", C("M81.0", "Age-related osteoporosis without current pathological fracture",
                                      "733.00", "Osteoporosis, unspecified"), ("Osteoporosis",), (), min_age=50),
        Comorbidity("chf", C("I50.22", "Chronic systolic (congestive) heart failure", "428.22",
                             "Chronic systolic heart failure"), ("Chronic systolic heart failure", "CHF", "HFrEF"),
                    ("metoprolol_s", "furosemide", "lisinopril")),
        Comorbidity("afib", C("I48.91", "Unspecified atrial fibrillation", "427.31", "Atrial fibrillation"),
                    ("Atrial fibrillation", "AFib", "Afib on apixaban"), ("apixaban", "metoprolol_s")),
        Comorbidity("anemia", C("D64.9", "Anemia, unspecified", "285.9", "Anemia, unspecified"),
                    ("Anemia", "chronic anemia"), ()),
        Comorbidity("asthma", C("J45.909", "Unspecified asthma, uncomplicated", "493.90",
                                "Asthma, unspecified type, unspecified"), ("Asthma",), ("albuterol",)),
        Comorbidity("pvd", C("I73.9", "Peripheral vascular disease, unspecified", "443.9",
                             "Peripheral vascular disease, unspecified"), ("Peripheral vascular disease", "PVD"),
                    ("aspirin",), min_age=45),
        Comorbidity("dementia", C("F03.90", "Unspecified dementia without behavioral disturbance", "294.20",
                                  "Dementia, unspecified, without behavioral disturbance"), ("Dementia",), (),
                    min_age=65),
        Comorbidity("parkinson", C("G20", "Parkinson's disease", "332.0", "Paralysis agitans"),
                    ("Parkinson's disease",), (), min_age=55),
        Comorbidity("gout", C("M10.9", "Gout, unspecified", "274.9", "Gout, unspecified"), ("Gout",),
                    ("allopurinol",)),
        Comorbidity("morbid_obesity", C("E66.01", "Morbid (severe) obesity due to excess calories", "278.01",
                                        "Morbid obesity"), ("Morbid obesity",), ()),
    )
}

# codes used for "history of" an earlier admission's primary diagnosis
OLD_MI = C("I25.2", "Old myocardial infarction", "412", "Old myocardial infarction")
HX_PE = C("Z86.711", "Personal history of pulmonary embolism", "V12.55",
          "Personal history of pulmonary embolism")
HX_STROKE = C("Z86.73", "Personal history of transient ischemic attack (TIA), and cerebral infarction without "
                        "residual deficits", "V12.54",
              "Personal history of transient ischemic attack (TIA), and cerebral infarction without residual deficits")
HX_TOBACCO = C("Z87.891", "Personal history of nicotine dependence", "V15.82", "Personal history of tobacco use")
ANTICOAG = C("Z79.01", "Long term (current) use of anticoagulants", "V58.61",
             "Long-term (current) use of anticoagulants")
INSULIN_USE = C("Z79.4", "Long term (current) use of insulin", "V58.67", "Long-term (current) use of insulin")

# associated (presentation-specific) secondary codes
SEVERE_SEPSIS = C("R65.20", "Severe sepsis without septic shock", "995.92", "Severe sepsis")
SEPTIC_SHOCK = C("R65.21", "Severe sepsis with septic shock", "785.52", "Septic shock")
UTI = C("N39.0", "Urinary tract infection, site not specified", "599.0", "Urinary tract infection, site not specified")
ACIDOSIS = C("E87.2", "Acidosis", "276.2", "Acidosis")
HYPOKALEMIA = C("E87.6", "Hypokalemia", "276.8", "Hypopotassemia")
DEHYDRATION = C("E86.0", "Dehydration", "276.51", "Dehydration")
ACUTE_BLOOD_LOSS = C("D62", "Acute posthemorrhagic anemia", "285.1", "Acute posthemorrhagic anemia")
RESP_FAILURE = C("J96.01", "Acute respiratory failure with hypoxia", "518.81", "Acute respiratory failure")
AKI_CODE = C("N17.9", "Acute kidney failure, unspecified", "584.9", "Acute kidney failure, unspecified")
HTN_HD_HF = C("I11.0", "Hypertensive heart disease with heart failure", "402.91",
              "Unspecified hypertensive heart disease with heart failure")
HEMIPLEGIA = C("G81.91", "Hemiplegia, unspecified affecting right dominant side", "342.90",
               "Hemiplegia, unspecified, affecting unspecified side")
FALL = C("W19.XXXA", "Unspecified fall, initial encounter", "E888.9", "Unspecified fall")
DNR = C("Z66", "Do not resuscitate", "V49.86", "Do not resuscitate status")


# =============================================================================================
# Imaging studies (radiology reports)
# =============================================================================================

def I(key, exam_name, exam_code, cpt, technique, findings, impression, indication):  # noqa: E743,N802
    return Imaging(key, exam_name, exam_code, cpt, technique, tuple(findings), tuple(impression), indication)


CXR_TECH = "Chest PA and lateral"
PCXR_TECH = "Portable AP chest radiograph"
CXR_NORMAL = I(
    "cxr_normal", "CHEST (PA AND LAT)", "C11", "71046", CXR_TECH,
    ["The lungs are clear without focal consolidation.  No pleural effusion or pneumothorax is seen.  The "
     "cardiac and mediastinal silhouettes are unremarkable.",
     "Lungs are well expanded and clear.  Cardiomediastinal and hilar contours are normal.  No pleural "
     "effusion or pneumothorax.  No acute osseous abnormality."],
    ["No acute cardiopulmonary process.", "No acute intrathoracic process."],
    "eval for acute process")
CXR_PNA = I(
    "cxr_pna", "CHEST (PA AND LAT)", "C11", "71046", CXR_TECH,
    ["There is a new dense consolidation in the {side} lower lobe with air bronchograms.  Small {side} "
     "pleural effusion.  No pneumothorax.  Heart size is normal.",
     "Patchy opacity is seen in the {side} lung base, more conspicuous on the lateral view, with "
     "blunting of the {side} costophrenic angle.  The cardiomediastinal silhouette is within normal limits."],
    ["{Side} lower lobe pneumonia.", "Findings concerning for {side} lower lobe pneumonia in the appropriate "
     "clinical setting.", "{Side} basilar consolidation consistent with pneumonia."],
    "eval for pneumonia")
CXR_CHF = I(
    "cxr_chf", "CHEST (PORTABLE AP)", "C12", "71045", PCXR_TECH,
    ["Moderate cardiomegaly.  There is pulmonary vascular congestion with interstitial edema and "
     "cephalization.  Small bilateral pleural effusions, right greater than left.  No focal consolidation.",
     "The heart is enlarged.  Hilar engorgement and diffuse interstitial opacities with Kerley B lines.  "
     "Bilateral layering effusions.  No pneumothorax."],
    ["Moderate pulmonary edema and cardiomegaly, consistent with congestive heart failure.",
     "Findings consistent with CHF exacerbation with pulmonary edema and small effusions."],
    "eval for pulmonary edema")
CXR_COPD = I(
    "cxr_copd", "CHEST (PA AND LAT)", "C11", "71046", CXR_TECH,
    ["The lungs are hyperinflated with flattening of the hemidiaphragms and increased retrosternal airspace.  "
     "No focal consolidation, effusion or pneumothorax.  Heart size is normal.",
     "Hyperexpanded lungs with coarse interstitial markings.  No new consolidation.  No effusion."],
    ["Hyperinflation consistent with emphysema/COPD.  No pneumonia.",
     "Emphysematous changes without acute superimposed process."],
    "eval for pneumonia")
CTA_PE = I(
    "cta_pe", "CTA CHEST", "CTA", "71275",
    "Multidetector CT of the chest was performed after administration of IV contrast in the pulmonary arterial "
    "phase.  Multiplanar reformats were obtained.",
    ["There are filling defects in the {side} main pulmonary artery extending into the lobar and segmental "
     "branches of the {side} lower lobe.  The RV/LV ratio is 1.1.  No pleural effusion.  Small peripheral "
     "wedge-shaped opacity at the {side} base.",
     "Occlusive and nonocclusive filling defects are present within segmental and subsegmental arteries of "
     "both lower lobes.  The right ventricle is not dilated.  Lungs otherwise clear."],
    ["Acute pulmonary embolism involving the {side} lobar and segmental arteries.  No CT evidence of right "
     "heart strain.", "Bilateral acute pulmonary emboli."],
    "eval for PE")
CTA_NEG = I(
    "cta_neg", "CTA CHEST", "CTA", "71275",
    "Multidetector CT of the chest was performed after administration of IV contrast in the pulmonary arterial "
    "phase.",
    ["The pulmonary arteries are well opacified to the subsegmental level without filling defect.  Lungs are "
     "clear.  No pleural or pericardial effusion."],
    ["No pulmonary embolism.  No acute intrathoracic process."],
    "eval for PE")
CT_CHEST_MASS = I(
    "ct_mass", "CT CHEST W/CONTRAST", "CCTW", "71260",
    "Multidetector CT of the chest was performed with IV contrast.",
    ["There is a 4.2 x 3.6 cm spiculated mass in the right upper lobe abutting the mediastinal pleura.  "
     "Enlarged right paratracheal (1.6 cm) and subcarinal (1.4 cm) lymph nodes.  No pleural effusion.  "
     "Background centrilobular emphysema.",
     "A lobulated, spiculated right upper lobe mass measures 3.9 cm with associated post-obstructive "
     "atelectasis.  Mediastinal lymphadenopathy.  Small right pleural effusion."],
    ["Right upper lobe spiculated mass with mediastinal lymphadenopathy, highly suspicious for primary "
     "lung malignancy.  Tissue sampling recommended.",
     "Findings most consistent with primary bronchogenic carcinoma of the right upper lobe with nodal "
     "metastases."],
    "hemoptysis and weight loss, eval for mass")
CT_HEAD_NEG = I(
    "ct_head_neg", "CT HEAD W/O CONTRAST", "CHDW", "70450",
    "Contiguous axial images of the brain were obtained without intravenous contrast.",
    ["There is no evidence of hemorrhage, edema, mass effect, or large territorial infarction.  The "
     "ventricles and sulci are normal in size and configuration.  The visualized paranasal sinuses are clear.",
     "No intracranial hemorrhage.  Gray-white matter differentiation is preserved.  No midline shift.  Mild "
     "periventricular white matter hypodensities, likely sequelae of chronic small vessel disease."],
    ["No acute intracranial process.", "No intracranial hemorrhage or mass effect."],
    "eval for hemorrhage")
MRI_STROKE = I(
    "mri_stroke", "MR HEAD W/O CONTRAST", "MHD", "70551",
    "Multiplanar multisequence MR images of the brain were obtained without contrast, including "
    "diffusion-weighted imaging.",
    ["There is restricted diffusion with corresponding ADC hypointensity in the {side} frontal and "
     "parietal cortex and subcortical white matter in the {side} MCA territory.  No hemorrhagic "
     "transformation.  Flow voids are preserved.",
     "Acute infarct with restricted diffusion in the {side} corona radiata and basal ganglia measuring "
     "2.1 cm.  No mass effect."],
    ["Acute ischemic infarction in the {side} MCA territory.", "Acute {side} MCA territory infarct without "
     "hemorrhagic transformation."],
    "eval for stroke")
CT_AP_PANC = I(
    "ct_panc", "CT ABD & PELVIS WITH CONTRAST", "CAPW", "74177",
    "MDCT acquired axial images were obtained through the abdomen and pelvis following administration of IV "
    "contrast.",
    ["The pancreas is diffusely enlarged with peripancreatic fat stranding and a small amount of "
     "peripancreatic fluid.  The pancreatic parenchyma enhances homogeneously without necrosis.  No "
     "drainable collection.  Gallbladder without radiopaque stones.",
     "Edematous pancreas with surrounding inflammatory stranding extending to the anterior pararenal space.  "
     "Normal enhancement, no necrosis.  No biliary ductal dilation."],
    ["Acute interstitial edematous pancreatitis without necrosis.",
     "Findings consistent with acute pancreatitis.  No necrosis or peripancreatic collection."],
    "epigastric pain, elevated lipase")
CT_AP_APPY = I(
    "ct_appy", "CT ABD & PELVIS WITH CONTRAST", "CAPW", "74177",
    "MDCT acquired axial images were obtained through the abdomen and pelvis following administration of IV "
    "contrast.",
    ["The appendix is dilated to 12 mm with wall thickening, mucosal hyperenhancement and surrounding fat "
     "stranding.  An appendicolith is present at the base.  No free air or drainable fluid collection.",
     "Fluid-filled, distended appendix measuring 11 mm with periappendiceal inflammatory change in the right "
     "lower quadrant.  No abscess."],
    ["Acute appendicitis without perforation or abscess.", "Findings consistent with acute appendicitis."],
    "RLQ pain, eval for appendicitis")
CT_AP_SBO = I(
    "ct_sbo", "CT ABD & PELVIS WITH CONTRAST", "CAPW", "74177",
    "MDCT acquired axial images were obtained through the abdomen and pelvis following administration of IV "
    "contrast.",
    ["Multiple dilated fluid-filled loops of small bowel up to 4.1 cm with a transition point in the right "
     "lower quadrant, likely secondary to adhesions.  The distal ileum and colon are decompressed.  No "
     "pneumatosis or free air.",
     "Dilated proximal and mid small bowel loops with air-fluid levels and a transition point in the "
     "pelvis.  Small volume free fluid.  Bowel wall enhancement is normal."],
    ["Small bowel obstruction with transition point in the right lower quadrant, likely adhesive.  No "
     "signs of ischemia.", "High-grade small bowel obstruction."],
    "abdominal distension and vomiting, eval for obstruction")
CT_AP_COLITIS = I(
    "ct_colitis", "CT ABD & PELVIS WITH CONTRAST", "CAPW", "74177",
    "MDCT acquired axial images were obtained through the abdomen and pelvis following administration of IV "
    "contrast.",
    ["There is diffuse circumferential wall thickening of the colon from the cecum to the rectum with "
     "pericolonic stranding and an accordion pattern of the haustra.  No free air.  No abscess.",
     "Marked mucosal and submucosal thickening of the entire colon.  Small amount of ascites."],
    ["Pancolitis, in this clinical context compatible with C. difficile colitis.",
     "Diffuse colitis, likely infectious (C. difficile)."],
    "diarrhea and leukocytosis")
RUQ_US_CHOLE = I(
    "us_chole", "LIVER OR GALLBLADDER US (SINGLE ORGAN)", "LGUS", "76705",
    "Grey scale and color Doppler ultrasound images of the abdomen were obtained.",
    ["The gallbladder is distended and contains multiple shadowing stones, one impacted at the neck.  The "
     "gallbladder wall is thickened to 6 mm with pericholecystic fluid.  Sonographic Murphy's sign was "
     "positive.  The common bile duct measures 4 mm.",
     "Distended gallbladder with gallstones and sludge, wall thickening and edema.  Positive sonographic "
     "Murphy sign.  No intrahepatic biliary dilation."],
    ["Cholelithiasis with findings consistent with acute cholecystitis.",
     "Acute calculous cholecystitis."],
    "RUQ pain, eval for cholecystitis")
US_LIVER_CIRRHOSIS = I(
    "us_cirrhosis", "LIVER OR GALLBLADDER US (SINGLE ORGAN)", "LGUS", "76705",
    "Grey scale and color Doppler ultrasound images of the abdomen were obtained.",
    ["The liver is coarsened and nodular in contour.  Moderate volume ascites.  The portal vein is patent "
     "with hepatopetal flow.  Splenomegaly to 15 cm.  No focal liver lesion.",
     "Shrunken, nodular liver with heterogeneous echotexture.  Large volume ascites.  Patent hepatic "
     "vasculature."],
    ["Cirrhotic liver morphology with moderate ascites and splenomegaly, consistent with portal "
     "hypertension.", "Cirrhosis with ascites."],
    "abdominal distension, eval for ascites")
RENAL_US = I(
    "us_renal", "RENAL U.S.", "RUS", "76770",
    "Grey scale and color Doppler ultrasound images of the kidneys and bladder were obtained.",
    ["The right kidney measures 11.2 cm and the left 11.5 cm.  There is no hydronephrosis, stone, or mass.  "
     "Cortical echogenicity is mildly increased bilaterally.  The bladder is decompressed around a Foley.",
     "Normal sized kidneys without hydronephrosis.  Increased renal cortical echogenicity.  No perinephric "
     "collection."],
    ["No hydronephrosis.  Increased echogenicity suggestive of medical renal disease.",
     "No hydronephrosis or obstructive cause of acute kidney injury."],
    "acute kidney injury, eval for obstruction")
CT_AP_PYELO = I(
    "ct_pyelo", "CT ABD & PELVIS WITH CONTRAST", "CAPW", "74177",
    "MDCT acquired axial images were obtained through the abdomen and pelvis following administration of IV "
    "contrast.",
    ["The {side} kidney is enlarged with striated nephrogram and wedge-shaped areas of decreased enhancement "
     "with perinephric fat stranding.  No hydronephrosis, calculus or abscess.",
     "Patchy striated enhancement of the {side} kidney with surrounding stranding.  No obstructing stone."],
    ["{Side} acute pyelonephritis without abscess or obstruction.",
     "Findings consistent with {side} pyelonephritis."],
    "flank pain and fever")
LENI = I(
    "us_leni", "UNILAT LOWER EXT VEINS {SIDE}", "LEVU", "93971",
    "Grey scale, color and spectral Doppler evaluation was performed on the {side} lower extremity veins.",
    ["There is occlusive thrombus within the {side} common femoral, femoral and popliteal veins with "
     "absent compressibility and absent color flow.  The contralateral common femoral vein is patent.",
     "Noncompressible {side} femoral and popliteal veins containing echogenic thrombus.  Calf veins not well "
     "seen."],
    ["Occlusive deep vein thrombosis of the {side} common femoral, femoral and popliteal veins.",
     "Acute {side} lower extremity DVT."],
    "leg swelling, eval for DVT")
HIP_XR = I(
    "xr_hip", "HIP UNILAT MIN 2 VIEWS {SIDE}", "HIP2", "73502",
    "AP pelvis and AP and lateral views of the {side} hip.",
    ["There is a displaced subcapital fracture of the {side} femoral neck with superior migration of the "
     "femoral shaft.  No dislocation.  Diffuse osteopenia.  Degenerative changes of the lower lumbar spine.",
     "Displaced fracture through the {side} femoral neck with varus angulation.  Osteopenia.  No other "
     "fracture."],
    ["Displaced {side} femoral neck fracture.", "Acute displaced subcapital {side} femoral neck fracture."],
    "s/p fall with hip pain")
CT_HEAD_MENING = I(
    "ct_head_mening", "CT HEAD W/O CONTRAST", "CHDW", "70450",
    "Contiguous axial images of the brain were obtained without intravenous contrast.",
    ["No intracranial hemorrhage, mass effect, or hydrocephalus.  Basal cisterns are patent.  The paranasal "
     "sinuses and mastoid air cells are clear."],
    ["No acute intracranial abnormality; no contraindication to lumbar puncture."],
    "fever and altered mental status prior to LP")
CT_FOOT = I(
    "xr_foot", "FOOT AP,LAT & OBL {SIDE}", "FT3", "73630",
    "Three views of the {side} foot.",
    ["Soft tissue swelling about the first metatarsophalangeal joint.  Juxta-articular erosion with "
     "overhanging edge at the medial first metatarsal head.  Joint space is preserved.",
     "Soft tissue swelling at the first MTP joint without fracture.  Small punched-out erosion of the "
     "first metatarsal head."],
    ["Findings compatible with gouty arthropathy of the first MTP joint.", "Erosive changes at the first MTP, "
     "suggestive of gout."],
    "great toe pain and swelling")


# =============================================================================================
# Primary diagnoses
# =============================================================================================

NORMAL_VITALS = {"hr": (80, 10), "sbp": (132, 15), "dbp": (76, 9), "rr": (16, 2), "temp": (98.3, 0.4),
                 "spo2": (97, 1.2)}


def _v(**kw) -> dict:
    out = dict(NORMAL_VITALS)
    out.update(kw)
    return out


def Q(kind: str, answer: str, *distractors: str) -> QA:  # noqa: N802
    return QA(kind, answer, tuple(distractors))


def D(**kw) -> Disease:  # noqa: N802
    kw.setdefault("vitals", NORMAL_VITALS)
    for key in ("synonyms", "chief_complaints", "hpi", "negatives", "exam", "panels", "course", "admission_meds",
                "discharge_meds", "comorbidities", "medqa", "exam_clues", "history_clues", "imaging", "associated",
                "procedures", "micro"):
        if key in kw:
            kw[key] = tuple(tuple(x) if isinstance(x, list) else x for x in kw[key])
    return Disease(**kw)


_CARDIO = [
    D(key="stemi", name="ST-elevation myocardial infarction",
      synonyms=["STEMI", "anterior STEMI", "acute anterior myocardial infarction", "acute MI", "AMI"],
      code=C("I21.09", "ST elevation (STEMI) myocardial infarction involving other coronary artery of anterior wall",
             "410.11", "Acute myocardial infarction of other anterior wall, initial episode of care"),
      gm=("I21.0", "Akuter transmuraler Myokardinfarkt der Vorderwand"), chapter="IX", system="cardio",
      service="MEDICINE", careunit="Medicine/Cardiology", icu_unit="Coronary Care Unit (CCU)", age=(64, 11),
      female_share=0.3,
      chief_complaints=["Chest pain", "Substernal chest pressure", "CP", "Chest pain, code STEMI"],
      hpi=[["He reports sudden onset of crushing substernal chest pressure that started {dur} prior to "
            "presentation while {activity}.", "Pt developed acute substernal CP radiating to the left arm "
            "{dur} ago at rest.", "c/o severe chest tightness radiating to the jaw for the past {dur}."],
           ["The pain was associated with diaphoresis and nausea.", "+diaphoresis, +nausea.",
            "Associated SOB and diaphoresis."],
           ["EMS ECG showed ST elevations in V1-V4 and a code STEMI was called.",
            "ECG in the field notable for anterior ST elevations; cath lab activated.",
            "Initial EKG with STE in V2-V5 with reciprocal inferior depressions."],
           ["He received aspirin 325 mg and SL nitroglycerin without relief.",
            "Given ASA 325, NTG x3 and heparin bolus en route."]],
      negatives=["Denies prior similar episodes.", "No recent fevers or cough.", "Denies abdominal pain.",
                 "No syncope or palpitations."],
      exam=[("General", ["Diaphoretic, uncomfortable, clutching chest", "Appears uncomfortable and diaphoretic"]),
            ("CV", ["Tachycardic, regular rhythm, S4 gallop, no murmurs", "RRR, normal S1/S2, +S4, no m/r/g"]),
            ("Lungs", ["Bibasilar crackles", "CTAB, no wheezes or rales"])],
      vitals=_v(hr=(98, 15), sbp=(142, 25), dbp=(86, 14), rr=(20, 3), spo2=(95, 2)),
      labs={TROP: (1.6, 0.9, "log"), CK: (900, 0.7, "log"), CKMB: (70, 0.7, "log"), WBC: (11.5, 2.5),
            GLU: (165, 45), BNP: (600, 0.8, "log")},
      panels=["trop", "ck", "coag", "bnp", "lft"],
      imaging=[CXR_NORMAL],
      course=["# Anterior STEMI: Pt was taken emergently to the cath lab, which showed a 100% proximal LAD "
              "occlusion, s/p DES x1 to the LAD with TIMI 3 flow.  Troponin peaked at {trop_peak}.  He was "
              "started on aspirin, ticagrelor, high-intensity atorvastatin and metoprolol.  TTE showed LVEF 40% "
              "with anterior hypokinesis.  Lisinopril was added prior to discharge.",
              "# STEMI: Presented with anterior STEMI, underwent primary PCI with drug-eluting stent to the "
              "proximal LAD.  Course complicated by brief runs of NSVT on the first night, which resolved.  "
              "Started on DAPT (aspirin/ticagrelor), atorvastatin 80 mg and metoprolol succinate."],
      admission_meds=["aspirin325", "heparin_gtt", "ticagrelor", "atorva80", "metoprolol_t", "nitro_sl", "morphine"],
      discharge_meds=["aspirin", "ticagrelor", "atorva80", "metoprolol_s", "lisinopril", "nitro_sl"],
      comorbidities=[("htn", 0.6), ("hld", 0.6), ("dm2", 0.3), ("tobacco", 0.45), ("obesity", 0.3), ("ckd", 0.1)],
      associated=[(C("I25.10", "Atherosclerotic heart disease of native coronary artery without angina pectoris",
                     "414.01", "Coronary atherosclerosis of native coronary artery"), 0.8)],
      procedures=[("cath", 1.0), ("pci", 0.9)], los=(3.5, 1.2), icu_prob=0.65, death_prob=0.05,
      history_code=OLD_MI, history_phrase="STEMI s/p DES to LAD",
      history_clues=["He has a 30-pack-year smoking history.", "He has hypertension and hyperlipidemia."],
      exam_clues=["He is diaphoretic and in distress.", "An S4 is heard on auscultation."],
      medqa=[Q("next_step", "Percutaneous coronary intervention", "Thrombolytic therapy after 24 hours",
               "Exercise stress test", "Coronary CT angiography", "Outpatient cardiology follow-up"),
             Q("pharm", "Aspirin", "Warfarin", "Digoxin", "Hydralazine", "Verapamil"),
             Q("mechanism", "Irreversible inhibition of cyclooxygenase", "Direct inhibition of factor Xa",
               "Inhibition of vitamin K epoxide reductase", "Activation of plasminogen",
               "Blockade of glycoprotein IIb/IIIa"),
             Q("test", "Serial troponin measurements", "Serum lipase", "D-dimer", "Serum amylase",
               "Creatine kinase MM fraction")],
      discharge_instructions="You were admitted because you had a heart attack. A blocked artery in your heart "
                             "was opened and a stent was placed."),
    D(key="nstemi", name="Non-ST-elevation myocardial infarction",
      synonyms=["NSTEMI", "non-ST elevation MI", "type 1 NSTEMI", "NSTE-ACS"],
      code=C("I21.4", "Non-ST elevation (NSTEMI) myocardial infarction", "410.71",
             "Subendocardial infarction, initial episode of care"),
      gm=("I21.4", "Akuter subendokardialer Myokardinfarkt"), chapter="IX", system="cardio",
      service="MEDICINE", careunit="Medicine/Cardiology", icu_unit="Coronary Care Unit (CCU)", age=(69, 11),
      female_share=0.4,
      chief_complaints=["Chest pain", "Chest pressure", "CP", "Chest pain and dyspnea"],
      hpi=[["Pt reports intermittent substernal chest pressure over the past {dur}, worse with exertion and "
            "now occurring at rest.", "She describes {dur} of exertional chest tightness that has become more "
            "frequent and occurred at rest this morning.", "c/o pressure-like CP with walking for {dur}, "
            "this AM had an episode lasting 30 minutes at rest."],
           ["Associated with dyspnea and mild diaphoresis.", "+SOB, +nausea, no radiation.",
            "Pain radiates to the left shoulder."],
           ["ECG showed 1 mm ST depressions in V4-V6 without ST elevations.",
            "EKG with lateral TWI, no STE.", "ECG with new ST depressions in the lateral leads."],
           ["Initial troponin was elevated and she was started on a heparin drip.",
            "Trop elevated in the ED; given full dose ASA and started on heparin gtt."]],
      negatives=["Denies fevers, cough.", "No pleuritic component.", "Denies leg swelling.",
                 "No palpitations or syncope."],
      exam=[("CV", ["RRR, no murmurs, rubs or gallops", "Regular rate, nl S1 S2, soft systolic murmur at apex"]),
            ("Ext", ["No edema, 2+ distal pulses", "Trace bilateral LE edema"])],
      vitals=_v(hr=(88, 12), sbp=(148, 22), dbp=(82, 12), rr=(18, 2)),
      labs={TROP: (0.35, 0.9, "log"), CK: (420, 0.6, "log"), CKMB: (22, 0.6, "log"), GLU: (150, 40),
            BNP: (900, 0.9, "log")},
      panels=["trop", "ck", "coag", "bnp", "a1c"],
      imaging=[CXR_NORMAL],
      course=["# NSTEMI: Troponin peaked at {trop_peak}.  Treated with aspirin, heparin gtt for 48h, "
              "atorvastatin 80 and metoprolol.  {cath_course}  TTE with preserved EF and lateral hypokinesis.",
              "# NSTEMI: Presented with unstable symptoms and rising troponins, consistent with type 1 NSTEMI.  "
              "Managed medically with DAPT, heparin and statin; cath showed multivessel disease and CT surgery "
              "was consulted, who recommended outpatient evaluation for CABG."],
      admission_meds=["aspirin325", "heparin_gtt", "atorva80", "metoprolol_t", "nitro_sl"],
      discharge_meds=["aspirin", "clopidogrel", "atorva80", "metoprolol_s", "nitro_sl"],
      comorbidities=[("htn", 0.75), ("hld", 0.65), ("dm2", 0.4), ("ckd", 0.25), ("tobacco", 0.3), ("cad", 0.4),
                     ("pvd", 0.1)],
      associated=[(C("I25.10", "Atherosclerotic heart disease of native coronary artery without angina pectoris",
                     "414.01", "Coronary atherosclerosis of native coronary artery"), 0.85)],
      procedures=[("cath", 0.85), ("pci", 0.55)], los=(4.0, 1.5), icu_prob=0.25, death_prob=0.03,
      history_code=OLD_MI, history_phrase="NSTEMI s/p PCI",
      history_clues=["She has type 2 diabetes mellitus and hypertension.", "He takes metformin and lisinopril."],
      exam_clues=["There is no jugular venous distention.", "Cardiac examination shows no murmurs."],
      medqa=[Q("next_step", "Coronary angiography within 24 hours", "Thrombolysis with alteplase",
               "Discharge with outpatient stress test", "Pericardiocentesis", "CT angiography of the aorta"),
             Q("pharm", "Heparin", "Alteplase", "Ibuprofen", "Warfarin", "Verapamil"),
             Q("test", "Serial troponin measurements", "D-dimer", "Echocardiography with bubble study",
               "Serum lipase", "Ventilation-perfusion scan")],
      discharge_instructions="You were admitted with a heart attack (damage to the heart muscle from a "
                             "narrowed artery)."),
    D(key="adhf", name="Acute on chronic systolic heart failure",
      synonyms=["CHF exacerbation", "ADHF", "acute decompensated heart failure", "HFrEF exacerbation",
                "congestive heart failure"],
      code=C("I50.23", "Acute on chronic systolic (congestive) heart failure", "428.23",
             "Acute on chronic systolic heart failure"),
      gm=("I50.14", "Linksherzinsuffizienz: Mit Beschwerden in Ruhe"), chapter="IX", system="cardio",
      service="MEDICINE", careunit="Medicine/Cardiology", icu_unit="Coronary Care Unit (CCU)", age=(73, 11),
      female_share=0.45,
      chief_complaints=["Shortness of breath", "SOB", "Dyspnea and leg swelling", "DOE, orthopnea"],
      hpi=[["Pt reports progressive dyspnea on exertion over the past {dur}, now SOB walking across the room.",
            "She notes worsening SOB for {dur}, now with 3-pillow orthopnea and PND.",
            "c/o DOE and increasing bilateral leg swelling x {dur}."],
           ["Weight up 8 lbs from dry weight.", "Reports 10 lb weight gain and abdominal bloating.",
            "Has been eating out more with high salt intake."],
           ["Admits to missing several doses of furosemide.", "Ran out of her Lasix one week ago.",
            "Adherent to medications per pt."],
           ["In the ED BNP was markedly elevated and CXR showed pulmonary edema; given IV furosemide with good "
            "UOP.", "Given lasix 40 IV in ED with 1L UOP."]],
      negatives=["Denies chest pain.", "No fevers or productive cough.", "No palpitations.", "Denies CP."],
      exam=[("Neck", ["JVP elevated to the angle of the jaw", "JVD to 12 cm H2O", "+HJR, JVP 14 cm"]),
            ("Lungs", ["Bibasilar crackles 1/3 up", "Crackles at bilateral bases, decreased BS at R base"]),
            ("CV", ["RRR, S3 present, 2/6 holosystolic murmur at apex", "Regular, +S3, no rubs"]),
            ("Ext", ["2+ pitting edema to the knees bilaterally", "3+ bilateral LE edema to mid-shin"])],
      vitals=_v(hr=(92, 14), sbp=(138, 22), dbp=(80, 12), rr=(22, 3), spo2=(92, 3)),
      labs={BNP: (6500, 0.8, "log"), CR: (1.5, 0.4), BUN: (34, 10), NA: (134, 3), TROP: (0.03, 0.6, "log"),
            HGB: (11.8, 1.5)},
      panels=["bnp", "trop", "lft", "mg_phos"],
      imaging=[CXR_CHF],
      course=["# Acute on chronic systolic CHF: Precipitated by dietary indiscretion and medication "
              "nonadherence.  Diuresed with IV furosemide with net negative 6L, weight down to {weight} kg at "
              "discharge.  Transitioned to oral torsemide.  GDMT continued with metoprolol succinate and "
              "lisinopril; spironolactone started.",
              "# ADHF/HFrEF (EF 25%): Volume overloaded on admission.  Diuresed with IV lasix boluses then "
              "gtt.  Creatinine rose mildly with diuresis then stabilized.  Discharged on oral furosemide with "
              "instructions for daily weights."],
      admission_meds=["furosemide_iv", "metoprolol_s", "lisinopril", "heparin_sc", "potassium"],
      discharge_meds=["furosemide", "metoprolol_s", "lisinopril", "spironolactone"],
      comorbidities=[("htn", 0.8), ("cad", 0.5), ("dm2", 0.45), ("ckd", 0.4), ("afib", 0.35), ("hld", 0.5),
                     ("obesity", 0.3), ("osa", 0.15)],
      associated=[(HTN_HD_HF, 0.5), (AKI_CODE, 0.15)],
      procedures=[], los=(5.0, 2.0), icu_prob=0.2, death_prob=0.04,
      history_code=C("I50.22", "Chronic systolic (congestive) heart failure", "428.22", "Chronic systolic heart failure"),
      history_phrase="CHF (EF 30%)",
      history_clues=["He has a history of myocardial infarction 5 years ago.",
                     "She has had increasing difficulty sleeping flat and now uses three pillows."],
      exam_clues=["Jugular venous pressure is elevated.", "There is 2+ pitting edema of both lower extremities.",
                  "Crackles are heard at both lung bases and an S3 gallop is present."],
      medqa=[Q("next_step", "Intravenous furosemide", "Intravenous normal saline bolus", "Thoracentesis",
               "Oral prednisone", "Emergency pericardiocentesis"),
             Q("pharm", "Furosemide", "Verapamil", "Metformin", "Albuterol", "Ceftriaxone"),
             Q("mechanism", "Inhibition of the Na-K-2Cl cotransporter in the thick ascending limb",
               "Inhibition of the Na-Cl cotransporter in the distal convoluted tubule",
               "Antagonism of the aldosterone receptor", "Inhibition of carbonic anhydrase",
               "Blockade of epithelial sodium channels")],
      discharge_instructions="You were admitted because of fluid buildup from your heart failure. Weigh "
                             "yourself every morning and call your doctor if your weight goes up more than 3 lbs."),
    D(key="afib_rvr", name="Atrial fibrillation with rapid ventricular response",
      synonyms=["AFib with RVR", "atrial fibrillation", "AF", "Afib", "AF with RVR"],
      code=C("I48.91", "Unspecified atrial fibrillation", "427.31", "Atrial fibrillation"),
      gm=("I48.0", "Vorhofflimmern, paroxysmal"), chapter="IX", system="cardio",
      service="MEDICINE", careunit="Medicine/Cardiology", icu_unit="Coronary Care Unit (CCU)", age=(72, 11),
      female_share=0.5,
      chief_complaints=["Palpitations", "Heart racing", "Palpitations and lightheadedness", "Irregular heartbeat"],
      hpi=[["Pt reports sudden onset of palpitations and a racing heartbeat {dur} ago.",
            "She noticed her heart 'fluttering' since {dur} with associated lightheadedness.",
            "c/o palpitations, fatigue and DOE x {dur}."],
           ["ECG in the ED showed an irregularly irregular narrow complex tachycardia at 140s without "
            "discernible P waves.", "EKG: irregularly irregular rhythm, rate 150, no P waves."],
           ["Given diltiazem 10 mg IV x2 with improvement in rate to the 90s.",
            "Rate improved with IV dilt and PO metoprolol."]],
      negatives=["Denies chest pain.", "No syncope.", "Denies fevers or recent illness.", "No focal weakness."],
      exam=[("CV", ["Irregularly irregular, tachycardic, no murmurs", "Irreg irreg rhythm, rate 130s, nl S1/S2"]),
            ("Lungs", ["CTAB", "Clear to auscultation bilaterally"])],
      vitals=_v(hr=(138, 15), sbp=(122, 18), dbp=(74, 12), rr=(19, 2)),
      labs={TSH: (1.5, 0.8), BNP: (1200, 0.8, "log"), MG: (1.8, 0.2)},
      panels=["thyroid", "bnp", "trop", "coag"],
      imaging=[CXR_NORMAL],
      course=["# Atrial fibrillation with RVR: New onset.  Rate controlled with IV then PO diltiazem, later "
              "transitioned to metoprolol succinate.  CHA2DS2-VASc score {chads}; started on apixaban.  TSH "
              "normal.  TTE without significant valvular disease.",
              "# AFib with RVR: Likely precipitated by missed doses of metoprolol.  Rate controlled with "
              "metoprolol uptitration; spontaneously converted to sinus rhythm on hospital day 2.  "
              "Anticoagulation with apixaban continued."],
      admission_meds=["diltiazem", "metoprolol_t", "apixaban", "heparin_gtt"],
      discharge_meds=["metoprolol_s", "apixaban"],
      comorbidities=[("htn", 0.75), ("chf", 0.2), ("dm2", 0.3), ("osa", 0.2), ("hld", 0.45), ("obesity", 0.3)],
      associated=[(ANTICOAG, 0.5)],
      procedures=[("cardioversion", 0.15)], los=(2.5, 1.0), icu_prob=0.12, death_prob=0.005,
      history_code=C("I48.91", "Unspecified atrial fibrillation", "427.31", "Atrial fibrillation"),
      history_phrase="paroxysmal atrial fibrillation",
      history_clues=["She drinks 4-5 glasses of wine on weekends.", "He has hypertension treated with amlodipine."],
      exam_clues=["The pulse is irregularly irregular.", "There is no murmur."],
      medqa=[Q("next_step", "Rate control with intravenous diltiazem", "Immediate synchronized cardioversion",
               "Adenosine bolus", "Defibrillation", "Amiodarone loading followed by discharge"),
             Q("pharm", "Apixaban", "Aspirin", "Clopidogrel", "Dipyridamole", "Heparin only during flares"),
             Q("mechanism", "Direct inhibition of factor Xa", "Inhibition of vitamin K epoxide reductase",
               "Direct thrombin inhibition", "Irreversible inhibition of cyclooxygenase",
               "Blockade of the P2Y12 ADP receptor")],
      discharge_instructions="You were admitted with a fast irregular heart rhythm called atrial fibrillation."),
    D(key="pe", name="Pulmonary embolism", synonyms=["PE", "acute PE", "pulmonary thromboembolism", "VTE"],
      code=C("I26.99", "Other pulmonary embolism without acute cor pulmonale", "415.19",
             "Other pulmonary embolism and infarction"),
      gm=("I26.9", "Lungenembolie ohne Angabe eines akuten Cor pulmonale"), chapter="IX", system="pulm",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(58, 16),
      female_share=0.55,
      chief_complaints=["Shortness of breath", "Pleuritic chest pain", "SOB, CP", "Dyspnea"],
      hpi=[["Pt reports sudden onset of dyspnea and right-sided pleuritic chest pain {dur} ago.",
            "She developed acute SOB and sharp CP worse with inspiration {dur} prior to presentation.",
            "c/o acute onset SOB and pleuritic CP x {dur}."],
           ["Recent long car trip.", "Recently underwent knee surgery 3 weeks ago.",
            "Takes oral contraceptives.", "Recent 12-hour flight from ___."],
           ["In the ED she was tachycardic and hypoxic to 89% on RA; D-dimer elevated; CTA chest showed "
            "PE.  Started on heparin gtt.", "CTA in ED with PE; started on heparin."]],
      negatives=["No hemoptysis.", "Denies fevers or productive cough.", "No prior history of VTE.",
                 "Denies leg swelling."],
      exam=[("General", ["Anxious, mildly tachypneic", "Appears uncomfortable, speaking in full sentences"]),
            ("CV", ["Tachycardic, regular rhythm, loud P2", "Tachy, regular, no murmurs"]),
            ("Lungs", ["CTAB, no wheezes", "Clear bilaterally, splinting with deep inspiration"]),
            ("Ext", ["Right calf mildly swollen and tender", "No calf tenderness, no edema"])],
      vitals=_v(hr=(112, 12), rr=(24, 3), spo2=(90, 2.5), sbp=(124, 15), temp=(99.1, 0.5)),
      labs={DDIMER: (2800, 0.6, "log"), TROP: (0.02, 0.7, "log"), BNP: (450, 0.9, "log"), PH: (7.46, 0.02),
            PCO2: (32, 3), PO2: (64, 7)},
      panels=["ddimer", "trop", "bnp", "coag", "abg"],
      imaging=[CTA_PE],
      course=["# Acute pulmonary embolism: CTA with segmental PE without RV strain (sPESI {pesi}).  Treated "
              "with heparin gtt, transitioned to apixaban.  O2 weaned to room air.  Provoked in the setting of "
              "recent surgery; plan for 3 months of anticoagulation.",
              "# PE: Submassive PE with RV strain on echo; monitored in the ICU for 24 hours on heparin gtt "
              "without need for thrombolysis.  Transitioned to apixaban.  Lower extremity dopplers positive "
              "for DVT."],
      admission_meds=["heparin_gtt", "apixaban", "acetaminophen"],
      discharge_meds=["apixaban"],
      comorbidities=[("obesity", 0.35), ("htn", 0.35), ("tobacco", 0.25), ("hld", 0.2)],
      associated=[],
      procedures=[], los=(3.5, 1.5), icu_prob=0.2, death_prob=0.03,
      history_code=HX_PE, history_phrase="PE on apixaban",
      history_clues=["She takes an oral contraceptive.", "He returned from a transatlantic flight 3 days ago.",
                     "She underwent total knee arthroplasty 2 weeks ago."],
      exam_clues=["The right calf is swollen and tender.", "Lungs are clear to auscultation."],
      medqa=[Q("next_step", "CT pulmonary angiography", "Exercise stress test", "Bronchoscopy",
               "Upper endoscopy", "Reassurance and discharge"),
             Q("pharm", "Heparin", "Aspirin", "Alteplase in all patients", "Furosemide", "Prednisone"),
             Q("mechanism", "Potentiation of antithrombin III", "Inhibition of vitamin K epoxide reductase",
               "Irreversible inhibition of cyclooxygenase", "Conversion of plasminogen to plasmin",
               "Blockade of glycoprotein IIb/IIIa")],
      discharge_instructions="You were admitted because you had a blood clot in your lungs (pulmonary "
                             "embolism). You should take your blood thinner every day."),
    D(key="dvt", name="Deep venous thrombosis",
      synonyms=["DVT", "deep vein thrombosis", "femoral vein thrombosis", "LE DVT"],
      code=C("I82.411", "Acute embolism and thrombosis of right femoral vein", "453.41",
             "Acute venous embolism and thrombosis of deep vessels of proximal lower extremity"),
      gm=("I80.1", "Thrombose, Phlebitis und Thrombophlebitis der V. femoralis"), chapter="IX", system="heme",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(60, 16),
      chief_complaints=["Right leg swelling", "Leg pain and swelling", "RLE swelling"],
      hpi=[["Pt reports {dur} of progressive right leg swelling and calf pain.",
            "She noted her right leg became swollen and painful over {dur}.",
            "c/o R calf pain and swelling x {dur}, worse with ambulation."],
           ["Recently immobilized after a knee injury.", "Was recently hospitalized and bedbound.",
            "Has known metastatic colon cancer on chemotherapy."],
           ["LENIs in the ED showed occlusive thrombus in the femoral and popliteal veins.",
            "Doppler US: R femoral DVT."]],
      negatives=["Denies chest pain or SOB.", "No hemoptysis.", "No prior clots.", "Denies trauma to the leg."],
      exam=[("Ext", ["Right leg swollen with 4 cm increased calf circumference, tender, warm, no erythema",
                     "RLE 2+ pitting edema to thigh, calf tender to palpation"])],
      vitals=_v(hr=(88, 10)),
      labs={DDIMER: (2200, 0.6, "log")},
      panels=["ddimer", "coag"],
      imaging=[LENI],
      course=["# RLE DVT: Provoked in the setting of immobility.  Started on heparin gtt then transitioned to "
              "apixaban; plan for 3 months of anticoagulation.  No evidence of PE clinically.",
              "# Deep vein thrombosis: Occlusive femoral DVT, treated with enoxaparin bridge and started on "
              "apixaban.  Compression stockings recommended."],
      admission_meds=["heparin_gtt", "apixaban", "acetaminophen"],
      discharge_meds=["apixaban"],
      comorbidities=[("obesity", 0.35), ("htn", 0.4), ("tobacco", 0.2)],
      los=(2.0, 1.0), icu_prob=0.02, death_prob=0.002, admission_type="OBSERVATION ADMIT",
      history_code=C("Z86.718", "Personal history of other venous thrombosis and embolism", "V12.51",
                     "Personal history of venous thrombosis and embolism"),
      history_phrase="provoked DVT",
      history_clues=["She had a long-haul flight last week.", "He was immobilized in a cast for 4 weeks."],
      exam_clues=["The right calf is 3 cm larger in circumference than the left and is tender."],
      medqa=[Q("test", "Compression ultrasonography of the leg", "Ankle-brachial index", "Venography in all "
               "patients", "X-ray of the knee", "Nerve conduction studies"),
             Q("pharm", "Apixaban", "Aspirin", "Clopidogrel", "Cilostazol", "Pentoxifylline")],
      discharge_instructions="You were admitted with a blood clot in the veins of your leg."),
    D(key="stroke", name="Ischemic stroke",
      synonyms=["acute ischemic stroke", "CVA", "cerebral infarction", "MCA stroke", "stroke"],
      code=C("I63.9", "Cerebral infarction, unspecified", "434.91",
             "Cerebral artery occlusion, unspecified with cerebral infarction"),
      gm=("I63.9", "Hirninfarkt, nicht näher bezeichnet"), chapter="IX", system="neuro",
      service="NEUROLOGY", careunit="Neurology", icu_unit="Neuro Surgical Intensive Care Unit (Neuro SICU)",
      age=(70, 12), female_share=0.48,
      chief_complaints=["{Deficit}-sided weakness", "Code stroke", "Slurred speech", "Facial droop and arm weakness"],
      hpi=[["Pt was last seen well at {time} when family noted sudden onset of {deficit} arm weakness and "
            "difficulty speaking.", "She developed acute {deficit} facial droop and {deficit} arm weakness {dur} "
            "prior to arrival.", "Family found pt with slurred speech and {deficit} sided weakness; LKW ~{dur} "
                                 "prior."],
           ["Code stroke was called on arrival; NIHSS {nihss}.", "NIHSS on arrival {nihss}.",
            "Initial NIHSS was {nihss}."],
           ["CT head without hemorrhage; CTA with distal M2 occlusion. {tpa_hpi}",
            "Non-contrast CT head negative for bleed. {tpa_hpi}", "CT head negative for hemorrhage. {tpa_hpi}"]],
      negatives=["No headache.", "Denies head trauma.", "No seizure activity witnessed.", "No recent illness."],
      exam=[("Neuro", ["Dysarthria, {deficit} facial droop, {deficit} upper extremity 2/5, {deficit} lower "
                       "extremity 4/5, {deficit} pronator drift",
                       "Dysarthria, {deficit} facial droop sparing the forehead, {deficit} arm 3/5, {deficit} "
                       "hemisensory loss", "Alert, {deficit} hemiparesis, sensation decreased on the {deficit} side"]),
            ("CV", ["Irregularly irregular", "RRR, no murmurs, no carotid bruits"])],
      vitals=_v(sbp=(168, 22), dbp=(92, 12), hr=(84, 14)),
      labs={GLU: (135, 35), A1C: (6.8, 0.9)},
      panels=["coag", "a1c", "trop", "lft"],
      imaging=[CT_HEAD_NEG, MRI_STROKE],
      course=["# Acute ischemic stroke: {side_cap} MCA territory infarct on MRI.  {tpa_course}  Etiology felt "
              "to be cardioembolic given new atrial fibrillation on "
              "telemetry; started on apixaban after 72 hours.  Atorvastatin 80 started.  PT/OT/speech "
              "evaluated; discharged to rehab.",
              "# Ischemic stroke: Small vessel lacunar infarct of the internal capsule.  {tpa_course}  Started on "
              "aspirin and atorvastatin; BP goals liberalized initially then "
              "lisinopril resumed.  Deficits improved to mild residual weakness."],
      admission_meds=["aspirin325", "atorva80", "heparin_sc", "labetalol"],
      discharge_meds=["aspirin", "atorva80", "lisinopril"],
      comorbidities=[("htn", 0.8), ("hld", 0.6), ("dm2", 0.35), ("afib", 0.25), ("tobacco", 0.3), ("cad", 0.2)],
      associated=[(HEMIPLEGIA, 0.35)],
      procedures=[("tpa", 0.2)], los=(5.0, 2.5), icu_prob=0.35, death_prob=0.06,
      history_code=HX_STROKE, history_phrase="ischemic stroke with mild residual R weakness",
      history_clues=["He has poorly controlled hypertension.", "She has atrial fibrillation and stopped warfarin "
                     "6 months ago."],
      exam_clues=["There is weakness of the right arm and leg with a right-sided facial droop sparing the "
                  "forehead.", "She has difficulty producing words but comprehension is intact."],
      medqa=[Q("next_step", "Noncontrast CT of the head", "Lumbar puncture", "MRI of the cervical spine",
               "Electroencephalography", "Carotid endarterectomy"),
             Q("pharm", "Alteplase", "Heparin infusion", "Nimodipine", "Mannitol", "Dexamethasone"),
             Q("mechanism", "Conversion of plasminogen to plasmin", "Potentiation of antithrombin III",
               "Direct thrombin inhibition", "Blockade of the P2Y12 ADP receptor",
               "Irreversible inhibition of cyclooxygenase")],
      discharge_instructions="You were admitted because you had a stroke, which happens when blood flow to "
                             "part of the brain is blocked."),
]

_PULM_ID = [
    D(key="cap", name="Community-acquired pneumonia",
      synonyms=["CAP", "pneumonia", "PNA", "lobar pneumonia", "bacterial pneumonia"],
      code=C("J18.9", "Pneumonia, unspecified organism", "486", "Pneumonia, organism unspecified"),
      gm=("J18.9", "Pneumonie, nicht näher bezeichnet"), chapter="X", system="pulm",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(66, 16),
      chief_complaints=["Cough and fever", "Fever, productive cough", "SOB, cough", "Fevers"],
      hpi=[["Pt reports {dur} of productive cough with yellow-green sputum, fevers to 102 and chills.",
            "She describes {dur} of cough, subjective fevers, and worsening dyspnea.",
            "c/o cough productive of rusty sputum, f/c, and R sided pleuritic CP x {dur}."],
           ["Sick contacts at home.", "Grandchildren recently sick with URI.", "No recent travel."],
           ["In the ED, febrile to 102.4, CXR with RLL consolidation; blood cultures drawn and given "
            "ceftriaxone and azithromycin.", "Given CTX/azithro in ED after BCx drawn."]],
      negatives=["Denies hemoptysis.", "No recent hospitalizations or antibiotics.", "Denies leg swelling.",
                 "No N/V/D."],
      exam=[("Lungs", ["Crackles and bronchial breath sounds at the {side} base, egophony",
                       "Decreased breath sounds and rhonchi {side} lower lobe",
                       "Coarse crackles R>L, dullness to percussion R base"]),
            ("General", ["Ill appearing, febrile", "Appears fatigued, mildly tachypneic"])],
      vitals=_v(temp=(101.6, 1.0), hr=(104, 13), rr=(22, 3), spo2=(91, 3), sbp=(124, 17)),
      labs={WBC: (15.8, 4.0), NEUT: (84, 5), CRP: (140, 0.5, "log"), LACT: (1.9, 0.7), BUN: (24, 8),
            NA: (135, 3)},
      panels=["diff", "crp", "lactate", "lft"],
      imaging=[CXR_PNA],
      micro=[("blood", "", 0.1), ("sputum", "", 0.0), ("mrsa", "", 0.0)],
      course=["# Community-acquired pneumonia: {side_cap} lower lobe pneumonia on CXR.  Treated with "
              "ceftriaxone and azithromycin, transitioned to oral cefpodoxime to complete a 5-day course.  "
              "Blood cultures no growth.  O2 weaned to RA by day {day}.",
              "# CAP: CURB-65 of {curb}.  Started on CTX/azithro.  Defervesced within 48h.  Sputum culture "
              "with commensal flora.  Legionella and strep pneumo urine antigens negative."],
      admission_meds=["ceftriaxone", "azithromycin", "acetaminophen", "heparin_sc", "albuterol"],
      discharge_meds=["acetaminophen"],
      comorbidities=[("copd", 0.25), ("htn", 0.5), ("dm2", 0.3), ("chf", 0.12), ("tobacco", 0.25),
                     ("dementia", 0.08)],
      associated=[(RESP_FAILURE, 0.12), (DEHYDRATION, 0.1)],
      procedures=[], los=(4.5, 2.0), icu_prob=0.2, death_prob=0.04,
      history_phrase="pneumonia requiring hospitalization",
      history_clues=["He smokes one pack of cigarettes daily.", "She lives alone and is independent in ADLs."],
      exam_clues=["There are crackles and bronchial breath sounds over the right lower lung field.",
                  "Dullness to percussion and increased tactile fremitus are noted at the right base."],
      medqa=[Q("pharm", "Ceftriaxone and azithromycin", "Vancomycin alone", "Oseltamivir",
               "Trimethoprim-sulfamethoxazole alone", "Fluconazole"),
             Q("test", "Chest x-ray", "CT angiography of the chest", "Bronchoscopy with lavage",
               "Spirometry", "Ventilation-perfusion scan"),
             Q("mechanism", "Inhibition of bacterial cell wall synthesis", "Inhibition of DNA gyrase",
               "Inhibition of the 30S ribosomal subunit", "Inhibition of folate synthesis",
               "Disruption of fungal cell membranes")],
      discharge_instructions="You were admitted with pneumonia, an infection in your lungs."),
    D(key="copd_exac", name="Chronic obstructive pulmonary disease exacerbation",
      synonyms=["COPD exacerbation", "AECOPD", "acute exacerbation of COPD", "COPD flare"],
      code=C("J44.1", "Chronic obstructive pulmonary disease with (acute) exacerbation", "491.21",
             "Obstructive chronic bronchitis with (acute) exacerbation"),
      gm=("J44.19", "Chronische obstruktive Lungenkrankheit mit akuter Exazerbation, FEV1 nicht näher "
                    "bezeichnet"), chapter="X", system="pulm",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(68, 9),
      chief_complaints=["Shortness of breath", "SOB", "Dyspnea and wheezing", "Increased sputum and SOB"],
      hpi=[["Pt reports {dur} of worsening dyspnea, wheezing and increased sputum production.",
            "She notes increased SOB and cough with change in sputum color to green over {dur}.",
            "c/o wheezing, SOB, increased inhaler use x {dur}."],
           ["Uses 2L home O2 at night.", "Baseline able to walk one block; now SOB at rest.",
            "Has been using albuterol every 2 hours without relief."],
           ["In the ED, diffuse wheezing, given duonebs x3, methylprednisolone 125 mg IV and azithromycin.",
            "Received nebs, solumedrol in ED; VBG 7.33/58."]],
      negatives=["Denies fevers.", "No chest pain.", "Denies leg swelling.", "No hemoptysis."],
      exam=[("Lungs", ["Diffuse expiratory wheezes, prolonged expiratory phase, poor air movement",
                       "Decreased BS throughout, scattered wheezes, using accessory muscles"]),
            ("General", ["Tachypneic, speaking in short sentences, pursed-lip breathing",
                         "Mild respiratory distress"])],
      vitals=_v(hr=(102, 12), rr=(25, 4), spo2=(88, 3), temp=(98.8, 0.6)),
      labs={PH: (7.33, 0.04), PCO2: (56, 7), PO2: (62, 8), HCO3: (31, 3), WBC: (11.0, 3.0),
            GLU: (140, 30)},
      panels=["abg", "bnp", "diff"],
      imaging=[CXR_COPD],
      micro=[("sputum", "", 0.0)],
      course=["# COPD exacerbation: Likely triggered by viral URI.  Treated with prednisone 40 mg x5 days, "
              "azithromycin, and standing duonebs.  Required BiPAP for the first night for hypercarbia, then "
              "weaned to baseline 2L NC.",
              "# AECOPD: Treated with steroids, nebulizers and a 5-day course of azithromycin.  Ambulatory "
              "saturations at discharge 90% on home O2."],
      admission_meds=["methylpred", "prednisone", "azithromycin", "albuterol", "ipratropium", "heparin_sc"],
      discharge_meds=["prednisone", "tiotropium", "albuterol"],
      comorbidities=[("copd", 0.0), ("tobacco", 0.6), ("htn", 0.5), ("cad", 0.2), ("chf", 0.15),
                     ("anxiety", 0.2), ("gerd", 0.2)],
      associated=[(RESP_FAILURE, 0.25), (HX_TOBACCO, 0.3)],
      procedures=[("nippv", 0.2)], los=(4.0, 1.8), icu_prob=0.18, death_prob=0.02,
      history_code=C("J44.9", "Chronic obstructive pulmonary disease, unspecified", "496",
                     "Chronic airway obstruction, not elsewhere classified"),
      history_phrase="COPD on 2L home O2",
      history_clues=["He has a 50-pack-year smoking history.", "She uses an albuterol inhaler daily."],
      exam_clues=["Diffuse expiratory wheezes and a prolonged expiratory phase are heard.",
                  "He is using accessory muscles of respiration."],
      medqa=[Q("pharm", "Systemic corticosteroids and inhaled bronchodilators", "Intravenous furosemide",
               "Montelukast", "Theophylline monotherapy", "Inhaled corticosteroid alone"),
             Q("mechanism", "Antagonism of muscarinic receptors", "Agonism at beta-2 adrenergic receptors",
               "Inhibition of phosphodiesterase-4", "Blockade of leukotriene receptors",
               "Inhibition of mast cell degranulation"),
             Q("next_step", "Noninvasive positive pressure ventilation", "Immediate intubation",
               "High-flow oxygen at 100% via nonrebreather", "Chest tube placement", "Bronchoscopy")],
      discharge_instructions="You were admitted with a flare of your COPD."),
    D(key="asthma_exac", name="Asthma exacerbation",
      synonyms=["acute asthma exacerbation", "status asthmaticus", "asthma attack", "asthma flare"],
      code=C("J45.901", "Unspecified asthma with (acute) exacerbation", "493.92",
             "Asthma, unspecified type, with (acute) exacerbation"),
      gm=("J45.9", "Asthma bronchiale, nicht näher bezeichnet"), chapter="X", system="pulm",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(34, 12),
      female_share=0.62, age_range=(18, 70),
      chief_complaints=["Wheezing", "Shortness of breath", "Asthma attack", "SOB and chest tightness"],
      hpi=[["Pt with asthma reports {dur} of worsening wheezing, chest tightness and cough after a URI.",
            "She reports SOB and wheezing x {dur}, using her albuterol inhaler every hour.",
            "c/o chest tightness and wheezing since {dur}, triggered by exposure to a cat."],
           ["Has had 2 prior ED visits this year; never intubated.", "Prior ICU admission, never intubated.",
            "Ran out of her controller inhaler a month ago."],
           ["Peak flow 40% of predicted in the ED; given continuous albuterol, ipratropium, "
            "methylprednisolone and magnesium.", "Received 3 duonebs, solumedrol 125, Mg 2g in ED."]],
      negatives=["Denies fevers.", "No chest pain.", "Denies leg swelling.", "No sick contacts."],
      exam=[("Lungs", ["Diffuse inspiratory and expiratory wheezes, decreased air movement",
                       "Tight, diffuse wheezes, prolonged expiration"]),
            ("General", ["Speaking in 3-4 word sentences, tripoding", "Mild respiratory distress"])],
      vitals=_v(hr=(112, 12), rr=(26, 4), spo2=(92, 2.5)),
      labs={PH: (7.44, 0.03), PCO2: (34, 4), PO2: (72, 8), WBC: (11.5, 2.5), K: (3.5, 0.3), GLU: (135, 25)},
      panels=["abg", "diff"],
      imaging=[CXR_NORMAL],
      course=["# Asthma exacerbation: Triggered by viral URI and lapse in controller therapy.  Treated with "
              "nebulized albuterol/ipratropium, prednisone 40 mg daily, and magnesium.  Peak flow improved to "
              "80% of predicted.  Discharged on an ICS/LABA with asthma action plan.",
              "# Status asthmaticus: Required ICU monitoring for 24 hours on continuous nebs.  Not intubated.  "
              "Transitioned to oral prednisone to complete a 5-day burst."],
      admission_meds=["albuterol", "ipratropium", "methylpred", "mag_sulfate", "prednisone"],
      discharge_meds=["prednisone", "albuterol"],
      comorbidities=[("asthma", 0.0), ("gerd", 0.2), ("obesity", 0.3), ("anxiety", 0.2), ("depression", 0.1)],
      los=(2.5, 1.0), icu_prob=0.15, death_prob=0.002,
      history_code=C("J45.909", "Unspecified asthma, uncomplicated", "493.90", "Asthma, unspecified type, unspecified"),
      history_phrase="asthma, prior ICU admission without intubation",
      history_clues=["She has had asthma since childhood and uses an albuterol inhaler.",
                     "Her symptoms began after exposure to a friend's cat."],
      exam_clues=["Diffuse end-expiratory wheezes are heard bilaterally.", "She is speaking in short phrases."],
      medqa=[Q("pharm", "Inhaled albuterol and systemic corticosteroids", "Oral montelukast",
               "Inhaled salmeterol monotherapy", "Intravenous aminophylline", "Omalizumab"),
             Q("mechanism", "Agonism at beta-2 adrenergic receptors", "Antagonism of muscarinic receptors",
               "Inhibition of 5-lipoxygenase", "Inhibition of phosphodiesterase", "Blockade of IgE"),
             Q("next_step", "Administer nebulized albuterol and ipratropium", "Obtain a chest CT",
               "Perform spirometry with methacholine challenge", "Start inhaled fluticasone and discharge",
               "Begin allergen immunotherapy")],
      discharge_instructions="You were admitted with an asthma attack."),
    D(key="sepsis", name="Sepsis", synonyms=["sepsis", "urosepsis", "septicemia", "severe sepsis", "septic shock"],
      code=C("A41.9", "Sepsis, unspecified organism", "038.9", "Unspecified septicemia"),
      gm=("A41.9", "Sepsis, nicht näher bezeichnet"), chapter="I", system="id",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(71, 14),
      female_share=0.5,
      chief_complaints=["Fever and confusion", "Hypotension", "Altered mental status", "Fevers, lethargy"],
      hpi=[["Pt brought in from home by family for {dur} of fevers, rigors and increasing confusion.",
            "She was found by her daughter to be lethargic and febrile to 103 after {dur} of dysuria.",
            "Per NH staff pt with fever, AMS and decreased PO intake x {dur}."],
           ["Reports urinary frequency and dysuria prior to onset.", "Recently treated for UTI.",
            "Has an indwelling Foley catheter."],
           ["In the ED, hypotensive to 80s systolic with lactate {lactate}; received 30 cc/kg IVF, blood and urine "
            "cultures drawn, started on vancomycin and piperacillin-tazobactam.",
            "Code sepsis called in ED; 3L IVF, vanc/zosyn; MAP remained <65 and norepinephrine started."]],
      negatives=["Denies cough.", "No abdominal pain.", "No diarrhea.", "No rash."],
      exam=[("General", ["Lethargic, ill-appearing, rigoring", "Somnolent but arousable, toxic appearing"]),
            ("Neuro", ["Oriented x1, moves all extremities", "Confused, not following commands consistently"]),
            ("Skin", ["Warm, flushed", "Cool extremities, delayed capillary refill"]),
            ("Abdomen", ["Suprapubic tenderness, soft", "Soft, nondistended, +CVA tenderness"])],
      vitals=_v(temp=(102.2, 1.2), hr=(118, 14), sbp=(88, 14), dbp=(50, 9), rr=(24, 4), spo2=(94, 2.5)),
      labs={WBC: (19.5, 5.5), NEUT: (88, 5), LACT: (3.8, 1.3), CR: (1.9, 0.6), BUN: (38, 12), HCO3: (19, 3),
            PLT: (140, 50), CRP: (190, 0.5, "log"), TBILI: (1.4, 0.6), UWBC: (60, 40)},
      ua={U_LEUK: "LG", U_NITRITE: "POS"},
      panels=["diff", "lactate", "lft", "coag", "ua", "crp"],
      imaging=[CXR_NORMAL],
      micro=[("blood", "ecoli", 0.5), ("urine", "ecoli", 0.75)],
      course=["# Sepsis secondary to urinary source: Met SIRS/qSOFA criteria with lactate {lactate}.  "
              "Required norepinephrine for 36 hours in the MICU.  Blood and urine cultures grew pan-sensitive E. "
              "coli; antibiotics narrowed from vancomycin/piperacillin-tazobactam to ceftriaxone then oral "
              "ciprofloxacin to complete 14 days.",
              "# Severe sepsis: Source felt to be urinary.  Fluid resuscitated with improvement in lactate.  "
              "Treated with broad-spectrum antibiotics, narrowed per cultures.  Mental status returned to "
              "baseline by hospital day 3."],
      admission_meds=["vancomycin", "pip_tazo", "ns", "lr", "norepinephrine", "acetaminophen", "heparin_sc"],
      discharge_meds=["cipro"],
      comorbidities=[("dm2", 0.35), ("ckd", 0.25), ("dementia", 0.15), ("htn", 0.55), ("chf", 0.1),
                     ("bph", 0.1)],
      associated=[(SEVERE_SEPSIS, 0.4), (SEPTIC_SHOCK, 0.2), (UTI, 0.6), (AKI_CODE, 0.3), (ACIDOSIS, 0.15)],
      procedures=[("central_line", 0.3)], los=(6.5, 3.0), icu_prob=0.6, death_prob=0.12,
      history_phrase="urosepsis",
      history_clues=["She lives in a nursing home and has an indwelling urinary catheter.",
                     "He has type 2 diabetes mellitus."],
      exam_clues=["She is confused and oriented only to person.", "The skin is warm and flushed."],
      medqa=[Q("next_step", "Obtain blood cultures and begin broad-spectrum antibiotics",
               "Obtain a CT scan of the head", "Administer intravenous hydrocortisone only",
               "Begin oral ciprofloxacin and discharge", "Perform lumbar puncture"),
             Q("pharm", "Norepinephrine", "Dobutamine", "Phenylephrine", "Dopamine", "Isoproterenol")],
      discharge_instructions="You were admitted with a severe infection in your blood (sepsis) that came "
                             "from your urine."),
    D(key="pyelo", name="Acute pyelonephritis", synonyms=["pyelonephritis", "pyelo", "upper UTI",
                                                           "complicated UTI"],
      code=C("N10", "Acute pyelonephritis", "590.10", "Acute pyelonephritis without lesion of renal medullary "
                                                       "necrosis"),
      gm=("N10", "Akute tubulointerstitielle Nephritis"), chapter="XIV", system="renal",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(45, 18),
      female_share=0.8,
      chief_complaints=["Flank pain and fever", "Fever, dysuria", "Right flank pain", "Dysuria, back pain"],
      hpi=[["Pt reports {dur} of dysuria and urinary frequency followed by fevers, chills and {side} flank "
            "pain.", "She developed burning with urination {dur} ago, and since yesterday has had high fevers "
            "and back pain.", "c/o dysuria, frequency, now with f/c and {side} CVA pain x {dur}."],
           ["Associated nausea and two episodes of non-bloody emesis.", "+N/V, unable to tolerate PO.",
            "Took ibuprofen for fevers."],
           ["UA in the ED with pyuria and bacteriuria; urine culture sent and given ceftriaxone.",
            "UA grossly positive; CTX 1g given."]],
      negatives=["No vaginal discharge.", "Denies hematuria.", "No prior kidney stones.", "No abdominal pain.",
                 "No recent instrumentation."],
      exam=[("Abdomen", ["Soft, mild suprapubic tenderness, {side} CVA tenderness",
                         "Nontender abdomen, +{side} costovertebral angle tenderness"]),
            ("General", ["Uncomfortable, febrile", "Ill appearing, rigors"])],
      vitals=_v(temp=(102.0, 1.0), hr=(106, 12), sbp=(118, 15), rr=(18, 2)),
      labs={WBC: (16.5, 4.0), NEUT: (85, 5), CR: (1.1, 0.3), CRP: (120, 0.5, "log"), UWBC: (90, 45),
            URBC: (8, 6)},
      ua={U_LEUK: "LG", U_NITRITE: "POS", U_PROTEIN: "30"},
      panels=["diff", "ua", "hcg", "crp"],
      imaging=[CT_AP_PYELO],
      micro=[("urine", "ecoli", 0.8), ("blood", "ecoli", 0.2)],
      course=["# Acute pyelonephritis: Urine culture grew E. coli sensitive to ceftriaxone and ciprofloxacin.  "
              "Treated with ceftriaxone, defervesced after 48 hours, transitioned to oral ciprofloxacin to "
              "complete a 7-day course.  CT without abscess or obstruction.",
              "# Pyelonephritis: Febrile with CVA tenderness and positive UA.  Treated with IV ceftriaxone "
              "then PO cipro.  Tolerating PO at discharge."],
      admission_meds=["ceftriaxone", "ns", "ondansetron", "acetaminophen"],
      discharge_meds=["cipro"],
      comorbidities=[("dm2", 0.2), ("htn", 0.2)],
      associated=[(DEHYDRATION, 0.2)],
      los=(3.0, 1.2), icu_prob=0.05, death_prob=0.003,
      history_phrase="pyelonephritis",
      history_clues=["She has had three urinary tract infections in the past year.",
                     "She had burning with urination for 2 days before the fever began."],
      exam_clues=["There is right costovertebral angle tenderness.", "The abdomen is soft with mild suprapubic "
                  "tenderness."],
      medqa=[Q("pharm", "Ceftriaxone", "Nitrofurantoin", "Fosfomycin", "Metronidazole", "Doxycycline"),
             Q("test", "Urinalysis and urine culture", "Cystoscopy", "Serum lipase", "Pelvic ultrasound",
               "Abdominal x-ray")],
      discharge_instructions="You were admitted with a kidney infection (pyelonephritis)."),
    D(key="cellulitis", name="Cellulitis", synonyms=["cellulitis", "LLE cellulitis", "soft tissue infection",
                                                       "skin and soft tissue infection"],
      code=C("L03.115", "Cellulitis of right lower limb", "682.6", "Cellulitis and abscess of leg, except foot"),
      gm=("L03.11", "Phlegmone an der unteren Extremität"), chapter="XII", system="id",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(58, 16),
      chief_complaints=["Right leg redness", "Leg swelling and redness", "RLE erythema", "Leg pain"],
      hpi=[["Pt reports {dur} of spreading redness, warmth and pain of the right lower leg.",
            "She noticed a red, hot, swollen area on her right shin {dur} ago that has expanded despite "
            "oral cephalexin.", "c/o R leg erythema and swelling x {dur}, +fevers."],
           ["Had a small abrasion on the shin from gardening.", "Has chronic tinea pedis.",
            "Has chronic venous stasis changes."],
           ["Margins were marked in the ED and IV cefazolin was given.", "Erythema outlined in ED; got vanc."]],
      negatives=["No purulent drainage.", "Denies crepitus.", "No recent travel.", "Denies calf pain."],
      exam=[("Skin", ["Right anterior shin with 15 x 10 cm area of erythema, warmth, and tenderness without "
                      "fluctuance", "Well-demarcated erythema RLE from ankle to mid-calf, warm, no crepitus"]),
            ("Ext", ["RLE 1+ edema, 2+ DP pulses", "Swelling of R lower leg, pulses intact"])],
      vitals=_v(temp=(100.4, 1.0), hr=(94, 12)),
      labs={WBC: (13.0, 3.0), CRP: (60, 0.6, "log"), GLU: (130, 35)},
      panels=["diff", "crp"],
      imaging=[],
      micro=[("blood", "", 0.0), ("wound", "saureus", 0.3)],
      course=["# Right lower extremity cellulitis: Non-purulent.  Treated with IV cefazolin with improvement "
              "in erythema within the marked borders.  Transitioned to oral cephalexin to complete a 7-day "
              "course.  LENIs negative for DVT.",
              "# Cellulitis: Started on vancomycin given failure of outpatient therapy; erythema receded.  "
              "Discharged on oral antibiotics and leg elevation."],
      admission_meds=["cefazolin", "vancomycin", "acetaminophen", "heparin_sc"],
      discharge_meds=["acetaminophen"],
      comorbidities=[("dm2", 0.3), ("obesity", 0.4), ("pvd", 0.1), ("htn", 0.4), ("chf", 0.08)],
      los=(3.0, 1.2), icu_prob=0.03, death_prob=0.002,
      history_phrase="RLE cellulitis",
      history_clues=["He has type 2 diabetes mellitus.", "She works as a gardener."],
      exam_clues=["There is a warm, tender, erythematous area with indistinct borders on the right shin.",
                  "There is no fluctuance or crepitus."],
      medqa=[Q("pharm", "Cefazolin", "Metronidazole", "Fluconazole", "Doxycycline plus rifampin",
               "Acyclovir"),
             Q("next_step", "Intravenous antibiotics and leg elevation", "Incision and drainage",
               "Surgical debridement", "Topical mupirocin only", "Warm compresses and observation")],
      discharge_instructions="You were admitted with a skin infection of your leg (cellulitis)."),
    D(key="meningitis", name="Bacterial meningitis", synonyms=["meningitis", "acute bacterial meningitis",
                                                                 "pneumococcal meningitis"],
      code=C("G00.9", "Bacterial meningitis, unspecified", "320.9", "Meningitis due to unspecified bacterium"),
      gm=("G00.9", "Bakterielle Meningitis, nicht näher bezeichnet"), chapter="VI", system="neuro",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(48, 20),
      chief_complaints=["Headache and fever", "Fever, neck stiffness", "Altered mental status", "Headache"],
      hpi=[["Pt reports {dur} of severe headache, fevers and neck stiffness.",
            "Brought in by roommate for fever, confusion and photophobia starting {dur} ago.",
            "c/o worst headache of life with fevers, neck pain and photophobia x {dur}."],
           ["Had a recent sinus infection.", "Recent otitis media.", "No sick contacts."],
           ["Blood cultures drawn, given dexamethasone, vancomycin, ceftriaxone and ampicillin before LP.",
            "Empiric vanc/CTX/amp + dex in ED; CT head negative then LP performed."]],
      negatives=["No rash.", "Denies head trauma.", "No focal weakness.", "Denies recent travel."],
      exam=[("Neck", ["Nuchal rigidity, +Kernig and Brudzinski signs", "Neck stiff with pain on flexion"]),
            ("Neuro", ["Somnolent, oriented x2, nonfocal exam, photophobic", "Confused, no focal deficits"]),
            ("General", ["Ill appearing, photophobic", "Toxic appearing, lying still in a dark room"])],
      vitals=_v(temp=(102.8, 1.0), hr=(116, 12), sbp=(112, 16), rr=(20, 3)),
      labs={WBC: (18.5, 5.0), NEUT: (89, 4), CSF_PROT: (240, 0.4, "log"), CSF_GLU: (28, 8), CRP: (180, 0.5, "log"),
            LACT: (2.4, 0.8)},
      panels=["diff", "csf", "crp", "lactate", "coag"],
      imaging=[CT_HEAD_MENING],
      micro=[("blood", "", 0.0)],
      course=["# Bacterial meningitis: CSF with neutrophilic pleocytosis, protein {csf_prot} and glucose "
              "{csf_glu}.  Gram stain with gram-positive diplococci; treated with ceftriaxone and vancomycin "
              "plus dexamethasone x4 days; ampicillin discontinued.  Mental status normalized by day 3.  "
              "Completed 14 days of ceftriaxone via PICC.",
              "# Meningitis: Presumed bacterial given CSF profile.  Empiric vanc/CTX/ampicillin with "
              "dexamethasone.  Cultures negative (pretreated).  Completed course of IV ceftriaxone."],
      admission_meds=["vancomycin", "ceftriaxone2", "ampicillin", "acetaminophen", "ondansetron"],
      discharge_meds=["acetaminophen"],
      comorbidities=[("htn", 0.2), ("dm2", 0.12), ("etoh", 0.1)],
      procedures=[("lp", 1.0)], los=(8.0, 3.0), icu_prob=0.55, death_prob=0.08,
      history_phrase="bacterial meningitis",
      history_clues=["He recently had an ear infection.", "She has no known sick contacts."],
      exam_clues=["Passive flexion of the neck causes flexion of the hips and knees.",
                  "There is nuchal rigidity and photophobia."],
      medqa=[Q("next_step", "Blood cultures and empiric intravenous antibiotics",
               "MRI of the brain before any treatment", "Electroencephalography",
               "Oral acetaminophen and observation", "Intravenous acyclovir alone"),
             Q("pharm", "Vancomycin, ceftriaxone, and dexamethasone", "Amoxicillin", "Azithromycin alone",
               "Doxycycline", "Fluconazole"),
             Q("test", "Lumbar puncture with CSF analysis", "Electromyography", "Carotid duplex ultrasonography",
               "Serum lipase", "Echocardiography")],
      discharge_instructions="You were admitted with an infection of the lining of the brain (meningitis)."),
    D(key="cdiff", name="Clostridioides difficile colitis",
      synonyms=["C. difficile colitis", "C diff colitis", "CDI", "C. diff infection", "pseudomembranous colitis"],
      code=C("A04.72", "Enterocolitis due to Clostridium difficile, not specified as recurrent", "008.45",
             "Intestinal infection due to Clostridium difficile"),
      gm=("A04.70", "Enterokolitis durch Clostridium difficile ohne Megakolon, ohne sonstige Organkomplikationen"),
      chapter="I", system="gi",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(68, 15),
      chief_complaints=["Diarrhea", "Watery diarrhea and abdominal pain", "Diarrhea, fevers"],
      hpi=[["Pt reports {dur} of profuse watery diarrhea, up to 10 episodes daily, with crampy lower abdominal "
            "pain.", "She notes {dur} of foul-smelling non-bloody diarrhea and abdominal cramping.",
            "c/o 8-10 watery BMs/day x {dur}."],
           ["Recently completed a course of clindamycin for a dental infection.",
            "Was treated with levofloxacin for pneumonia 2 weeks ago.", "Recent hospitalization with "
            "antibiotics."],
           ["C. diff PCR sent in the ED.", "Stool studies sent; started on PO vancomycin."]],
      negatives=["No hematochezia.", "Denies recent travel.", "No sick contacts.", "No vomiting."],
      exam=[("Abdomen", ["Soft, mildly distended, diffusely tender without rebound, hyperactive bowel sounds",
                         "Diffuse lower abdominal tenderness, no peritoneal signs"]),
            ("General", ["Appears dehydrated, dry mucous membranes", "Fatigued, mild distress"])],
      vitals=_v(temp=(100.6, 1.0), hr=(104, 12), sbp=(112, 16)),
      labs={WBC: (21.0, 6.0), CR: (1.6, 0.5), ALB: (2.8, 0.4), K: (3.3, 0.4), LACT: (1.9, 0.6), BUN: (30, 10)},
      panels=["diff", "lactate", "lft"],
      imaging=[CT_AP_COLITIS],
      micro=[("stool", "cdiff", 0.95)],
      course=["# C. difficile colitis: Stool PCR positive for toxigenic C. difficile.  WBC {wbc_peak} and "
              "creatinine {cr_peak} consistent with severe disease.  Treated with oral vancomycin 125 mg QID "
              "with improvement in stool frequency.  Plan to complete a 10-day course.",
              "# CDI: Severe C diff infection in the setting of recent antibiotics.  Received PO vancomycin; "
              "diarrhea improved.  Contact precautions maintained."],
      admission_meds=["vanco_po", "lr", "potassium", "acetaminophen"],
      discharge_meds=["vanco_po"],
      comorbidities=[("htn", 0.5), ("ckd", 0.2), ("dm2", 0.25), ("gerd", 0.3)],
      associated=[(DEHYDRATION, 0.35), (HYPOKALEMIA, 0.3), (AKI_CODE, 0.2)],
      los=(5.0, 2.0), icu_prob=0.1, death_prob=0.03,
      history_phrase="C. diff colitis",
      history_clues=["Two weeks ago, she completed a course of clindamycin for a dental abscess.",
                     "He takes omeprazole daily."],
      exam_clues=["The abdomen is diffusely tender without guarding.", "Mucous membranes are dry."],
      medqa=[Q("pharm", "Oral vancomycin", "Intravenous vancomycin", "Loperamide", "Oral ciprofloxacin",
               "Intravenous clindamycin"),
             Q("test", "Stool PCR for toxigenic Clostridioides difficile", "Stool ova and parasites",
               "Colonoscopy with biopsy", "Abdominal ultrasound", "Serum anti-tissue transglutaminase")],
      discharge_instructions="You were admitted with a severe intestinal infection called C. difficile."),
]

_GI = [
    D(key="pancreatitis", name="Acute pancreatitis",
      synonyms=["pancreatitis", "acute interstitial pancreatitis", "gallstone pancreatitis",
                "alcoholic pancreatitis"],
      code=C("K85.90", "Acute pancreatitis without necrosis or infection, unspecified", "577.0",
             "Acute pancreatitis"),
      gm=("K85.90", "Akute Pankreatitis, nicht näher bezeichnet: Ohne Angabe einer Organkomplikation"),
      chapter="XI", system="gi",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(50, 15),
      female_share=0.4,
      chief_complaints=["Abdominal pain", "Epigastric pain", "Abd pain, N/V", "Epigastric pain radiating to back"],
      hpi=[["Pt reports sudden onset of severe epigastric pain radiating to the back {dur} ago, associated "
            "with nausea and multiple episodes of vomiting.", "She describes constant boring epigastric pain "
            "x {dur}, worse after eating, radiating to the back.", "c/o 10/10 epigastric pain radiating "
            "straight through to the back with N/V x {dur}."],
           ["Drinks 6-8 beers daily, last drink yesterday.", "Known gallstones on prior imaging.",
            "Reports heavy alcohol use over the weekend."],
           ["Lipase in the ED was markedly elevated; given IVF and hydromorphone.",
            "Lipase >3x ULN in ED; aggressive IVF started."]],
      negatives=["Denies hematemesis or melena.", "No fevers.", "No chest pain.", "No diarrhea."],
      exam=[("Abdomen", ["Soft, moderately distended, severe epigastric tenderness with voluntary guarding, "
                         "hypoactive bowel sounds", "Epigastric TTP, +guarding, no rebound"]),
            ("General", ["Uncomfortable, lying still, diaphoretic", "In distress due to pain"])],
      vitals=_v(hr=(108, 14), temp=(99.6, 0.8), sbp=(138, 18), rr=(20, 3)),
      labs={LIP: (1800, 0.7, "log"), AMY: (650, 0.6, "log"), WBC: (14.0, 3.5), GLU: (165, 40),
            CA: (8.3, 0.5), BUN: (22, 8), HCT: (47, 4), ALT: (60, 0.8, "log"), AST: (70, 0.8, "log"),
            TBILI: (1.3, 0.5)},
      panels=["pancreas", "lft", "mg_phos", "lactate", "ldh"],
      imaging=[CT_AP_PANC],
      course=["# Acute pancreatitis: Etiology {etiology}.  Lipase {lipase_peak} on admission.  Managed with "
              "aggressive IV fluids, pain control and bowel rest; diet advanced on day {day}.  No evidence of "
              "necrosis.  Counseled on alcohol cessation.",
              "# Acute interstitial pancreatitis: Triglycerides normal; RUQ US with cholelithiasis.  Improved "
              "with LR and analgesia.  General surgery consulted for cholecystectomy during this admission."],
      admission_meds=["lr", "hydromorphone", "ondansetron", "pantoprazole_iv", "thiamine", "heparin_sc"],
      discharge_meds=["oxycodone", "pantoprazole"],
      comorbidities=[("etoh", 0.45), ("tobacco", 0.35), ("hld", 0.2), ("obesity", 0.3), ("gerd", 0.2)],
      associated=[(DEHYDRATION, 0.15)],
      los=(4.5, 2.0), icu_prob=0.15, death_prob=0.02,
      history_phrase="acute pancreatitis",
      history_clues=["He drinks 8 to 10 beers daily.", "She has known gallstones."],
      exam_clues=["There is severe epigastric tenderness with guarding.", "Bowel sounds are decreased."],
      medqa=[Q("next_step", "Aggressive intravenous fluid resuscitation", "Emergency laparotomy",
               "Prophylactic imipenem", "Endoscopic retrograde cholangiopancreatography in all patients",
               "Total parenteral nutrition"),
             Q("test", "Serum lipase", "Serum troponin", "Upright chest x-ray only", "Urinalysis",
               "Hepatitis serologies")],
      discharge_instructions="You were admitted with inflammation of your pancreas (pancreatitis)."),
    D(key="appendicitis", name="Acute appendicitis", synonyms=["appendicitis", "acute appendicitis", "appy"],
      code=C("K35.80", "Unspecified acute appendicitis", "540.9", "Acute appendicitis without mention of peritonitis"),
      gm=("K35.8", "Akute Appendizitis, nicht näher bezeichnet"), chapter="XI", system="gi",
      service="SURGERY", careunit="Med/Surg", icu_unit="Surgical Intensive Care Unit (SICU)", age=(32, 13),
      age_range=(18, 80), female_share=0.45,
      chief_complaints=["Abdominal pain", "RLQ pain", "Right lower quadrant abdominal pain"],
      hpi=[["Pt reports periumbilical pain that began {dur} ago and migrated to the right lower quadrant.",
            "She describes {dur} of abdominal pain, initially periumbilical, now localized to the RLQ, "
            "with anorexia and nausea.", "c/o RLQ pain x {dur}, worse with movement, +anorexia."],
           ["One episode of non-bloody emesis.", "Associated low-grade fevers.", "Has not eaten since yesterday."],
           ["CT abdomen/pelvis in the ED showed a dilated appendix; surgery was consulted.",
            "CT A/P with acute appy; started on cipro/flagyl."]],
      negatives=["Denies diarrhea.", "No dysuria or hematuria.", "Denies vaginal discharge.",
                 "No prior abdominal surgery."],
      exam=[("Abdomen", ["Soft, tender at McBurney's point with voluntary guarding, +Rovsing sign",
                         "RLQ TTP with rebound, +psoas sign"])],
      vitals=_v(temp=(100.2, 0.8), hr=(96, 12)),
      labs={WBC: (14.2, 3.0), NEUT: (82, 5), CRP: (45, 0.6, "log")},
      panels=["diff", "lft", "pancreas", "ua", "hcg", "crp"],
      imaging=[CT_AP_APPY],
      course=["# Acute appendicitis: Taken to the OR on hospital day 1 for laparoscopic appendectomy, which "
              "was uncomplicated.  Pathology confirmed acute appendicitis.  Diet advanced, pain controlled on "
              "oral medications, and discharged home on POD 1.",
              "# Appendicitis: Underwent lap appendectomy.  Non-perforated.  Received perioperative "
              "antibiotics only.  Tolerating regular diet at discharge."],
      admission_meds=["pip_tazo", "lr", "morphine", "ondansetron", "acetaminophen"],
      discharge_meds=["oxycodone", "acetaminophen", "docusate"],
      comorbidities=[("obesity", 0.2), ("asthma", 0.08)],
      procedures=[("lap_appy", 0.95)], los=(1.8, 0.8), icu_prob=0.0, death_prob=0.0,
      admission_type="URGENT",
      history_phrase="s/p laparoscopic appendectomy",
      history_clues=["The pain began around the umbilicus and then moved to the right lower abdomen.",
                     "He has had no appetite since yesterday."],
      exam_clues=["There is tenderness at McBurney point with rebound tenderness.",
                  "Pain in the right lower quadrant is elicited by palpation of the left lower quadrant."],
      medqa=[Q("next_step", "Laparoscopic appendectomy", "Colonoscopy", "Barium enema",
               "Discharge with oral antibiotics and follow-up in 1 month", "Diagnostic paracentesis"),
             Q("test", "CT scan of the abdomen and pelvis with contrast", "Upper GI series",
               "Serum lipase", "HIDA scan", "Colonoscopy")],
      discharge_instructions="You were admitted with appendicitis and had your appendix removed."),
    D(key="cholecystitis", name="Acute cholecystitis", synonyms=["cholecystitis", "acute calculous cholecystitis",
                                                                   "gallbladder inflammation"],
      code=C("K81.0", "Acute cholecystitis", "575.0", "Acute cholecystitis"),
      gm=("K81.0", "Akute Cholezystitis"), chapter="XI", system="gi",
      service="SURGERY", careunit="Med/Surg", icu_unit="Surgical Intensive Care Unit (SICU)", age=(52, 15),
      female_share=0.65,
      chief_complaints=["RUQ pain", "Abdominal pain", "Right upper quadrant pain, N/V"],
      hpi=[["Pt reports {dur} of constant right upper quadrant pain radiating to the right shoulder, "
            "beginning after a fatty meal.", "She describes RUQ pain x {dur}, worse after eating, with "
            "nausea and subjective fevers.", "c/o RUQ abd pain, N/V, f/c x {dur}."],
           ["Has had similar but shorter episodes after meals in the past months.",
            "Known cholelithiasis on prior ultrasound.", "Two prior episodes of biliary colic."],
           ["RUQ ultrasound in the ED showed gallstones with wall thickening; surgery consulted.",
            "RUQ US with stones, GB wall thickening, +sonographic Murphy."]],
      negatives=["Denies jaundice.", "No acholic stools or dark urine.", "No chest pain.", "No diarrhea."],
      exam=[("Abdomen", ["Soft, RUQ tenderness with positive Murphy's sign, no rebound",
                         "TTP in RUQ, +Murphy, mild guarding"]),
            ("Skin", ["No jaundice", "Anicteric"])],
      vitals=_v(temp=(100.8, 0.9), hr=(98, 12)),
      labs={WBC: (14.5, 3.0), ALP: (140, 40), TBILI: (1.3, 0.5), ALT: (55, 0.7, "log"), AST: (50, 0.7, "log"),
            LIP: (45, 15)},
      panels=["diff", "lft", "pancreas", "coag"],
      imaging=[RUQ_US_CHOLE],
      course=["# Acute calculous cholecystitis: Started on IV piperacillin-tazobactam and underwent "
              "laparoscopic cholecystectomy on hospital day {day} without complications.  LFTs trended down.  "
              "Discharged on POD 1 tolerating a regular diet.",
              "# Acute cholecystitis: Treated with IV antibiotics; laparoscopic cholecystectomy was performed.  "
              "Intraoperative findings of gangrenous gallbladder wall.  Completed 4 days of antibiotics."],
      admission_meds=["pip_tazo", "lr", "hydromorphone", "ondansetron"],
      discharge_meds=["oxycodone", "acetaminophen", "docusate"],
      comorbidities=[("obesity", 0.45), ("dm2", 0.2), ("htn", 0.35), ("hld", 0.25)],
      procedures=[("lap_chole", 0.85)], los=(3.0, 1.2), icu_prob=0.03, death_prob=0.003,
      admission_type="URGENT",
      history_phrase="s/p laparoscopic cholecystectomy",
      history_clues=["She has had similar episodes of pain after fatty meals.", "Her BMI is 34 kg/m2."],
      exam_clues=["Palpation of the right upper quadrant during deep inspiration causes inspiratory arrest.",
                  "There is tenderness in the right upper quadrant."],
      medqa=[Q("test", "Right upper quadrant ultrasonography", "CT angiography", "Upper endoscopy",
               "Serum lipase only", "Colonoscopy"),
             Q("next_step", "Intravenous antibiotics and cholecystectomy", "Oral ursodeoxycholic acid",
               "Extracorporeal shock wave lithotripsy", "Discharge with analgesics", "Liver biopsy")],
      discharge_instructions="You were admitted with an inflamed gallbladder and had your gallbladder removed."),
    D(key="pud_bleed", name="Bleeding duodenal ulcer",
      synonyms=["upper GI bleed", "UGIB", "peptic ulcer bleed", "duodenal ulcer with hemorrhage", "PUD bleed",
                "GI bleed"],
      code=C("K26.4", "Chronic or unspecified duodenal ulcer with hemorrhage", "532.40",
             "Chronic or unspecified duodenal ulcer with hemorrhage, without mention of obstruction"),
      gm=("K26.4", "Ulcus duodeni: Chronisch oder nicht näher bezeichnet, mit Blutung"), chapter="XI",
      system="gi", service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)",
      age=(64, 14), female_share=0.4,
      chief_complaints=["Melena", "Black stools", "Hematemesis", "Dark stools and lightheadedness"],
      hpi=[["Pt reports {dur} of black tarry stools and lightheadedness.", "She describes several episodes of "
            "melena over {dur} and one episode of coffee-ground emesis this morning.",
            "c/o melena x {dur}, +dizziness on standing."],
           ["Takes ibuprofen daily for knee pain.", "Takes naproxen several times a week for back pain.",
            "On aspirin and clopidogrel."],
           ["In the ED Hgb was {hgb}, down from baseline 13; NG lavage with coffee grounds; started on IV "
            "pantoprazole and transfused 2 units pRBC.", "Hgb drop, given 2u pRBC, PPI gtt; GI consulted."]],
      negatives=["No abdominal pain.", "Denies hematochezia.", "No prior GI bleeding.", "Denies EtOH use."],
      exam=[("General", ["Pale, diaphoretic", "Pale, tired appearing"]),
            ("Abdomen", ["Soft, mild epigastric tenderness, nondistended", "Soft, NTND"]),
            ("Rectal", ["Black, guaiac-positive stool", "Melena on rectal exam"])],
      vitals=_v(hr=(108, 14), sbp=(104, 16), dbp=(62, 10)),
      labs={HGB: (7.6, 1.2), HCT: (23, 4), BUN: (48, 14), MCV: (88, 5), PLT: (260, 70), INR: (1.1, 0.1),
            CR: (1.1, 0.3)},
      panels=["coag", "lft", "iron"],
      imaging=[],
      course=["# Upper GI bleed from duodenal ulcer: Received 2 units pRBC.  EGD on hospital day 1 showed a 1.5 "
              "cm duodenal bulb ulcer with a visible vessel, treated with epinephrine injection and clips.  "
              "H. pylori serology positive; started on quadruple therapy.  NSAIDs stopped.  Hgb stable at "
              "discharge.",
              "# Bleeding duodenal ulcer: EGD with clean-based duodenal ulcer.  PPI gtt transitioned to PO "
              "pantoprazole BID.  No further bleeding.  Counseled to avoid NSAIDs."],
      admission_meds=["pantoprazole_iv", "ns", "ondansetron"],
      discharge_meds=["pantoprazole"],
      comorbidities=[("oa", 0.35), ("htn", 0.5), ("cad", 0.2), ("etoh", 0.1), ("ckd", 0.15)],
      associated=[(ACUTE_BLOOD_LOSS, 0.7)],
      procedures=[("egd_control", 0.6), ("transfusion", 0.7)], los=(3.5, 1.5), icu_prob=0.3, death_prob=0.02,
      history_phrase="duodenal ulcer bleed",
      history_clues=["He takes ibuprofen daily for osteoarthritis of the knees.",
                     "She takes naproxen for chronic back pain."],
      exam_clues=["Rectal examination shows black, tarry stool.", "The conjunctivae are pale."],
      medqa=[Q("next_step", "Upper endoscopy", "Colonoscopy", "Capsule endoscopy", "Tagged red blood cell scan",
               "Exploratory laparotomy"),
             Q("pharm", "Intravenous pantoprazole", "Intravenous octreotide alone", "Oral sucralfate",
               "Oral misoprostol", "Intravenous vasopressin"),
             Q("mechanism", "Irreversible inhibition of the parietal cell H+/K+ ATPase",
               "Blockade of histamine H2 receptors", "Prostaglandin E1 analogue", "Neutralization of gastric acid",
               "Formation of a protective barrier over ulcers")],
      discharge_instructions="You were admitted because of bleeding from an ulcer in your intestine."),
    D(key="sbo", name="Small bowel obstruction", synonyms=["SBO", "adhesive small bowel obstruction",
                                                            "bowel obstruction"],
      code=C("K56.609", "Unspecified intestinal obstruction, unspecified as to partial versus complete obstruction",
             "560.9", "Unspecified intestinal obstruction"),
      gm=("K56.7", "Ileus, nicht näher bezeichnet"), chapter="XI", system="gi",
      service="SURGERY", careunit="Med/Surg", icu_unit="Surgical Intensive Care Unit (SICU)", age=(62, 14),
      chief_complaints=["Abdominal pain and vomiting", "Abd distension, N/V", "Obstipation"],
      hpi=[["Pt reports {dur} of crampy diffuse abdominal pain, distension and bilious emesis.",
            "She describes {dur} of colicky abdominal pain, nausea and multiple episodes of emesis, with no "
            "flatus since yesterday.", "c/o abd pain, distension, N/V, no BM or flatus x {dur}."],
           ["Prior history of open colectomy and hysterectomy.", "Prior exploratory laparotomy for trauma.",
            "S/p open appendectomy as a child."],
           ["NGT placed in the ED with 1.5 L bilious output.", "NGT placed; CT with SBO and transition point."]],
      negatives=["No hematochezia.", "Denies fevers.", "No chest pain.", "No recent weight loss."],
      exam=[("Abdomen", ["Distended, tympanic, diffusely tender without peritoneal signs, high-pitched bowel "
                         "sounds, well-healed midline scar", "Distended, mildly tender, tinkling BS, midline scar"])],
      vitals=_v(hr=(102, 12), temp=(98.9, 0.6)),
      labs={WBC: (12.0, 3.0), K: (3.4, 0.4), CL: (97, 3), HCO3: (29, 3), BUN: (28, 9), CR: (1.2, 0.3),
            LACT: (1.6, 0.6)},
      panels=["lactate", "lft", "pancreas"],
      imaging=[CT_AP_SBO],
      course=["# Small bowel obstruction: Likely adhesive given prior surgery.  Managed conservatively with "
              "bowel rest, NGT decompression and IV fluids.  Gastrografin challenge on day 2 showed contrast in "
              "the colon; NGT removed and diet advanced.",
              "# SBO: Failed conservative management; underwent exploratory laparotomy with lysis of adhesions "
              "on hospital day 3.  No bowel resection required."],
      admission_meds=["lr", "morphine", "ondansetron", "potassium", "heparin_sc"],
      discharge_meds=["acetaminophen", "docusate"],
      comorbidities=[("htn", 0.45), ("hld", 0.3), ("dm2", 0.2), ("gerd", 0.15)],
      associated=[(HYPOKALEMIA, 0.25), (DEHYDRATION, 0.2)],
      los=(4.5, 2.0), icu_prob=0.05, death_prob=0.01,
      history_phrase="adhesive SBO managed conservatively",
      history_clues=["She had an open hysterectomy 10 years ago.", "He has not passed flatus for 24 hours."],
      exam_clues=["The abdomen is distended and tympanic with high-pitched bowel sounds.",
                  "There is a well-healed midline surgical scar."],
      medqa=[Q("next_step", "Nasogastric decompression and intravenous fluids", "Colonoscopy",
               "Oral laxatives", "Immediate discharge", "Barium enema"),
             Q("test", "CT scan of the abdomen", "Serum lipase", "HIDA scan", "Upper endoscopy",
               "Stool culture")],
      discharge_instructions="You were admitted with a blockage of your small intestine."),
    D(key="cirrhosis", name="Decompensated alcoholic cirrhosis",
      synonyms=["alcoholic cirrhosis with ascites", "decompensated cirrhosis", "ESLD", "cirrhosis",
                "hepatic encephalopathy"],
      code=C("K70.31", "Alcoholic cirrhosis of liver with ascites", "571.2", "Alcoholic cirrhosis of liver"),
      gm=("K70.3", "Alkoholische Leberzirrhose"), chapter="XI", system="gi",
      service="MEDICINE", careunit="Transplant", icu_unit="Medical Intensive Care Unit (MICU)", age=(56, 10),
      female_share=0.33,
      chief_complaints=["Abdominal distension", "Confusion", "Increasing abdominal girth", "Abd distension, jaundice"],
      hpi=[["Pt reports {dur} of progressive abdominal distension and bilateral leg swelling.",
            "Per family, she has been increasingly confused and sleepy over {dur}.",
            "c/o worsening abd girth and yellowing of eyes x {dur}."],
           ["Drinks a pint of vodka daily; last drink {dur} ago.", "Continues to drink heavily.",
            "Has not been taking lactulose."],
           ["Diagnostic paracentesis in the ED without SBP.", "Para in ED: PMN 80, no SBP."]],
      negatives=["Denies hematemesis or melena.", "No fevers.", "No abdominal pain.", "Denies chest pain."],
      exam=[("Abdomen", ["Tense, distended, shifting dullness, nontender, +fluid wave",
                         "Distended with ascites, caput medusae, nontender"]),
            ("Skin", ["Jaundiced, spider angiomata on chest, palmar erythema", "Scleral icterus, jaundice"]),
            ("Neuro", ["+Asterixis, oriented x2", "No asterixis, A&Ox3"])],
      vitals=_v(hr=(92, 12), sbp=(104, 14), dbp=(62, 9)),
      labs={TBILI: (4.8, 0.5, "log"), ALB: (2.6, 0.4), INR: (1.8, 0.3), PLT: (78, 25), NA: (131, 4),
            AST: (110, 0.5, "log"), ALT: (45, 0.5, "log"), ALP: (160, 45), NH3: (85, 30), HGB: (10.5, 1.5),
            MCV: (102, 5)},
      panels=["lft", "coag", "ammonia", "tox"],
      imaging=[US_LIVER_CIRRHOSIS],
      course=["# Decompensated alcoholic cirrhosis (MELD {meld}): Presented with tense ascites and mild hepatic "
              "encephalopathy.  Therapeutic paracentesis removed 5 L with albumin.  Lactulose and rifaximin "
              "titrated to 3 BMs daily.  Diuretics restarted.  Social work consulted regarding alcohol use.",
              "# Alcoholic cirrhosis with ascites: Large-volume paracentesis x2.  SBP ruled out.  Started on "
              "furosemide/spironolactone.  Referred to hepatology for transplant evaluation contingent on "
              "sobriety."],
      admission_meds=["lactulose", "rifaximin", "spironolactone", "furosemide", "thiamine", "folic"],
      discharge_meds=["lactulose", "rifaximin", "spironolactone", "furosemide"],
      comorbidities=[("etoh", 0.9), ("tobacco", 0.4), ("depression", 0.2), ("dm2", 0.2)],
      associated=[],
      procedures=[("paracentesis", 0.8)], los=(6.0, 3.0), icu_prob=0.15, death_prob=0.08,
      history_code=C("K70.30", "Alcoholic cirrhosis of liver without ascites", "571.2", "Alcoholic cirrhosis of liver"),
      history_phrase="EtOH cirrhosis c/b ascites",
      history_clues=["He drinks a pint of vodka daily.", "She has been hospitalized previously for alcohol "
                     "withdrawal."],
      exam_clues=["There is shifting dullness and a fluid wave.", "Spider angiomata and palmar erythema are "
                  "present.", "A flapping tremor is noted when the wrists are extended."],
      medqa=[Q("next_step", "Diagnostic paracentesis", "Liver biopsy", "Exploratory laparotomy",
               "Transjugular intrahepatic portosystemic shunt immediately", "Hemodialysis"),
             Q("pharm", "Lactulose", "Lorazepam", "Metronidazole alone", "Haloperidol", "Acetazolamide"),
             Q("mechanism", "Acidification of colonic contents trapping ammonia",
               "Inhibition of bacterial RNA polymerase", "Antagonism of the aldosterone receptor",
               "Increase in the frequency of GABA-A chloride channel opening", "Inhibition of glutamine synthetase")],
      discharge_instructions="You were admitted with fluid in your belly and confusion from your liver disease."),
]

_ENDO_RENAL = [
    D(key="dka", name="Diabetic ketoacidosis", synonyms=["DKA", "diabetic ketoacidosis", "type 1 DM with DKA"],
      code=C("E10.10", "Type 1 diabetes mellitus with ketoacidosis without coma", "250.13",
             "Diabetes with ketoacidosis, type I [juvenile type], uncontrolled"),
      gm=("E10.11", "Diabetes mellitus, Typ 1: Mit Ketoazidose: Als entgleist bezeichnet"), chapter="IV",
      system="endo", service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)",
      age=(32, 12), age_range=(18, 75),
      chief_complaints=["Nausea and vomiting", "Hyperglycemia", "Abdominal pain, vomiting", "Polyuria, N/V"],
      hpi=[["Pt with T1DM reports {dur} of polyuria, polydipsia, nausea and vomiting.",
            "She describes {dur} of diffuse abdominal pain, vomiting and fatigue after running out of insulin.",
            "c/o N/V, abd pain, polyuria x {dur}; FSBG 'HI' at home."],
           ["Ran out of insulin 3 days ago.", "Insulin pump malfunctioned.", "Recent viral gastroenteritis."],
           ["In the ED glucose {glu}, anion gap {ag}, bicarbonate {hco3}, serum ketones positive; started on "
            "insulin gtt and IVF per DKA protocol.", "DKA protocol initiated in ED with insulin gtt."]],
      negatives=["Denies chest pain.", "No dysuria.", "No cough.", "Denies diarrhea."],
      exam=[("General", ["Ill appearing, Kussmaul respirations, fruity odor on breath",
                         "Tachypneic, dry mucous membranes"]),
            ("HEENT", ["Dry mucous membranes", "MMM dry, no JVD"]),
            ("Abdomen", ["Soft, diffusely tender, no rebound", "Mild diffuse TTP, no guarding"])],
      vitals=_v(hr=(118, 12), rr=(28, 4), sbp=(112, 15), temp=(98.6, 0.6)),
      labs={GLU: (520, 130), HCO3: (9, 3), NA: (131, 4), K: (5.4, 0.6), BUN: (30, 9), CR: (1.5, 0.4),
            PH: (7.12, 0.07), PCO2: (22, 4), PHOS: (5.0, 1.0), WBC: (15.5, 4.0), A1C: (11.2, 1.8), OSM: (318, 10),
            LIP: (70, 0.6, "log")},
      ua={U_KETONE: "150", U_GLUCOSE: "1000"},
      panels=["abg", "a1c", "ua", "osm", "pancreas", "mg_phos"],
      imaging=[CXR_NORMAL],
      course=["# Diabetic ketoacidosis: Precipitated by insulin nonadherence.  Treated per DKA protocol with "
              "insulin gtt, IV fluids and potassium repletion.  Anion gap closed after {hours} hours and "
              "transitioned to subcutaneous glargine and lispro.  Diabetes educator consulted.",
              "# DKA: Admitted to the MICU on insulin drip.  Gap closed within 18 hours.  Transitioned to SC "
              "insulin.  Endocrine ('___ Diabetes Center') follow-up arranged."],
      admission_meds=["insulin_gtt", "ns", "potassium", "glargine", "insulin_ss", "ondansetron"],
      discharge_meds=["glargine", "insulin_ss"],
      comorbidities=[("dm1", 0.0), ("depression", 0.15), ("hypothyroid", 0.1)],
      associated=[(DEHYDRATION, 0.4), (INSULIN_USE, 0.5), (HYPOKALEMIA, 0.15)],
      los=(3.0, 1.2), icu_prob=0.7, death_prob=0.005,
      history_code=C("E10.9", "Type 1 diabetes mellitus without complications", "250.01",
                     "Diabetes mellitus without mention of complication, type I [juvenile type], not stated as "
                     "uncontrolled"),
      history_phrase="T1DM c/b DKA",
      history_clues=["She has had type 1 diabetes mellitus since age 12.", "He stopped taking insulin because he "
                     "was not eating."],
      exam_clues=["Respirations are deep and rapid.", "Mucous membranes are dry and the breath has a fruity odor."],
      medqa=[Q("next_step", "Intravenous normal saline and insulin infusion", "Oral metformin",
               "Intravenous sodium bicarbonate alone", "Subcutaneous glargine and discharge",
               "Intravenous dextrose 50%"),
             Q("pharm", "Regular insulin infusion", "Glipizide", "Metformin", "Pioglitazone", "Sitagliptin"),
             Q("test", "Serum beta-hydroxybutyrate", "Serum lipase", "Serum cortisol", "Thyroid function tests",
               "C-peptide level")],
      discharge_instructions="You were admitted with diabetic ketoacidosis (DKA), a dangerous complication of "
                             "diabetes when the body does not have enough insulin."),
    D(key="hyponatremia", name="Hyponatremia", synonyms=["hyponatremia", "SIADH", "symptomatic hyponatremia",
                                                          "hypo-osmolar hyponatremia"],
      code=C("E87.1", "Hypo-osmolality and hyponatremia", "276.1", "Hyposmolality and/or hyponatremia"),
      gm=("E87.1", "Hypoosmolalität und Hyponatriämie"), chapter="IV", system="endo",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(76, 10),
      female_share=0.6,
      chief_complaints=["Confusion", "Weakness", "Fall", "Nausea and confusion"],
      hpi=[["Per family, pt has been increasingly confused and unsteady over {dur}.",
            "She reports {dur} of nausea, headache and generalized weakness.", "c/o weakness, poor PO intake, "
            "2 falls at home x {dur}."],
           ["Recently started on hydrochlorothiazide.", "Started sertraline 3 weeks ago.",
            "Drinks large amounts of water and tea, poor solute intake."],
           ["Na {na} in the ED, down from 138 one month ago.", "Labs notable for Na of {na}."]],
      negatives=["No seizure activity.", "Denies head trauma.", "No vomiting or diarrhea.", "No chest pain."],
      exam=[("Neuro", ["Oriented x2, mild inattention, no asterixis, nonfocal", "Slow to respond, nonfocal"]),
            ("HEENT", ["MMM", "Moist mucous membranes"])],
      vitals=_v(sbp=(138, 18)),
      labs={NA: (121, 3.5), OSM: (256, 8), UNA: (62, 20), BUN: (10, 4), GLU: (100, 15)},
      panels=["osm", "urine_na", "thyroid"],
      imaging=[CT_HEAD_NEG],
      course=["# Hyponatremia: Hypotonic hyponatremia with urine Osm >100 and urine Na {una}, consistent with "
              "thiazide-induced hyponatremia.  HCTZ discontinued.  Fluid restricted to 1.2 L/day; sodium "
              "corrected slowly (<8 mEq/L per 24 h) to {na_dc} at discharge.",
              "# Hyponatremia/SIADH: Euvolemic, urine Osm inappropriately concentrated, likely SIADH from SSRI.  "
              "Treated with fluid restriction and salt tabs; sertraline held.  Na improved to {na_dc}."],
      admission_meds=["heparin_sc", "acetaminophen"],
      discharge_meds=[],
      comorbidities=[("htn", 0.65), ("depression", 0.25), ("dementia", 0.15), ("osteoporosis", 0.2),
                     ("hypothyroid", 0.1)],
      los=(3.5, 1.5), icu_prob=0.08, death_prob=0.005, admission_type="OBSERVATION ADMIT",
      history_phrase="hyponatremia (thiazide-induced)",
      history_clues=["She was started on hydrochlorothiazide 1 month ago.", "He drinks several liters of water daily."],
      exam_clues=["She is oriented to person only.", "There is no edema and mucous membranes are moist."],
      medqa=[Q("next_step", "Fluid restriction", "Rapid correction with 3% saline to normal sodium",
               "Intravenous furosemide alone", "Hemodialysis", "Oral potassium chloride"),
             Q("test", "Serum and urine osmolality", "Serum lipase", "CT angiography of the head",
               "Electroencephalography", "24-hour urine cortisol only")],
      discharge_instructions="You were admitted because of a low sodium level in your blood."),
    D(key="thyrotoxicosis", name="Graves disease",
      synonyms=["Graves' disease", "hyperthyroidism", "thyrotoxicosis", "toxic diffuse goiter"],
      code=C("E05.00", "Thyrotoxicosis with diffuse goiter without thyrotoxic crisis or storm", "242.00",
             "Toxic diffuse goiter without mention of thyrotoxic crisis or storm"),
      gm=("E05.0", "Hyperthyreose mit diffuser Struma"), chapter="IV", system="endo",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(40, 13),
      female_share=0.8, age_range=(18, 80),
      chief_complaints=["Palpitations", "Weight loss and palpitations", "Tremor, heat intolerance"],
      hpi=[["Pt reports {dur} of palpitations, heat intolerance, tremor and a 15-lb weight loss despite increased "
            "appetite.", "She describes anxiety, insomnia, frequent loose stools and palpitations for {dur}.",
            "c/o palpitations, tremor, wt loss x {dur}."],
           ["Family history of thyroid disease in her mother.", "Noticed her eyes appear more prominent.",
            "Has had irregular menses."],
           ["TSH undetectable and free T4 elevated on labs.", "TSH <0.01 in ED."]],
      negatives=["Denies chest pain.", "No fevers.", "No neck pain.", "Denies recent iodinated contrast."],
      exam=[("HEENT", ["Proptosis and lid lag bilaterally", "Bilateral exophthalmos, lid retraction"]),
            ("Neck", ["Diffusely enlarged, nontender thyroid with a bruit", "Smooth goiter, +bruit"]),
            ("Neuro", ["Fine resting tremor of outstretched hands, brisk reflexes", "Fine tremor, 3+ DTRs"]),
            ("CV", ["Tachycardic, regular", "Tachy, regular, flow murmur"])],
      vitals=_v(hr=(118, 12), sbp=(142, 15), dbp=(70, 10), temp=(99.3, 0.5)),
      labs={TSH: (0.02, 0.01), FT4: (4.2, 1.0), ALP: (140, 30), GLU: (115, 15)},
      panels=["thyroid", "lft"],
      imaging=[],
      course=["# Graves disease: TSH suppressed, free T4 {ft4}, TSI positive.  Started on methimazole and "
              "propranolol with improvement in heart rate.  Endocrinology recommended outpatient follow-up to "
              "discuss definitive therapy.",
              "# Hyperthyroidism due to Graves disease: Burch-Wartofsky score not consistent with storm.  "
              "Treated with propranolol and methimazole.  Ophthalmology follow-up for Graves orbitopathy."],
      admission_meds=["propranolol", "methimazole"],
      discharge_meds=["propranolol", "methimazole"],
      comorbidities=[("anxiety", 0.2), ("tobacco", 0.2)],
      los=(2.5, 1.0), icu_prob=0.05, death_prob=0.001, admission_type="OBSERVATION ADMIT",
      history_phrase="Graves disease on methimazole",
      history_clues=["She has lost 7 kg over 3 months despite an increased appetite.", "Her mother has a thyroid "
                     "disorder."],
      exam_clues=["There is bilateral proptosis and lid lag.", "The thyroid is diffusely enlarged and nontender "
                  "with a bruit.", "A fine tremor of the outstretched hands is noted."],
      medqa=[Q("pharm", "Methimazole", "Levothyroxine", "Hydrocortisone alone", "Lithium", "Amiodarone"),
             Q("mechanism", "Inhibition of thyroid peroxidase", "Inhibition of peripheral conversion of T4 to T3 "
               "only", "Destruction of thyroid follicular cells", "Blockade of TSH receptors",
               "Inhibition of iodide uptake by the sodium-iodide symporter"),
             Q("test", "Thyroid-stimulating immunoglobulin", "Anti-thyroid peroxidase antibody only",
               "Fine-needle aspiration of the thyroid", "Serum calcitonin", "Serum cortisol")],
      discharge_instructions="You were admitted with an overactive thyroid gland (Graves disease)."),
    D(key="aki", name="Acute kidney injury", synonyms=["AKI", "acute renal failure", "ARF", "prerenal azotemia"],
      code=C("N17.9", "Acute kidney failure, unspecified", "584.9", "Acute kidney failure, unspecified"),
      gm=("N17.92", "Akutes Nierenversagen, nicht näher bezeichnet: Stadium 2"), chapter="XIV", system="renal",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(70, 12),
      chief_complaints=["Decreased urine output", "Abnormal labs", "Weakness, poor PO intake", "Elevated creatinine"],
      hpi=[["Pt referred from clinic for creatinine of {cr}, up from baseline 1.0.", "She reports {dur} of "
            "decreased oral intake, nausea and decreased urine output.", "c/o fatigue, poor PO, low UOP x {dur}."],
           ["Recently started on lisinopril and took ibuprofen for back pain.",
            "Had diarrhea for several days last week.", "Recent CT with IV contrast."],
           ["Given 1 L NS in the ED.", "Foley placed with 200 cc UOP; bladder scan without retention."]],
      negatives=["No dysuria or hematuria.", "Denies flank pain.", "No rash or joint pain.", "No SOB."],
      exam=[("HEENT", ["Dry mucous membranes", "MMM dry"]),
            ("Ext", ["No edema", "No LE edema"])],
      vitals=_v(sbp=(118, 18), hr=(88, 12)),
      labs={CR: (3.2, 0.9), BUN: (58, 15), K: (5.3, 0.5), HCO3: (19, 3), PHOS: (5.2, 0.8), UNA: (18, 8)},
      panels=["urine_na", "ua", "mg_phos"],
      imaging=[RENAL_US],
      course=["# Acute kidney injury: Prerenal etiology in the setting of volume depletion, NSAID use and ACE "
              "inhibitor.  FeNa <1%.  Renal US without hydronephrosis.  Lisinopril and NSAIDs held; creatinine "
              "improved from {cr_peak} to {cr_dc} with IV fluids.",
              "# AKI: Likely ATN given muddy brown casts on urine sediment.  Supportive care; renally dosed "
              "medications; creatinine plateaued and began to improve.  Renal follow-up arranged."],
      admission_meds=["ns", "heparin_sc"],
      discharge_meds=[],
      comorbidities=[("htn", 0.7), ("dm2", 0.4), ("ckd", 0.35), ("chf", 0.15), ("oa", 0.2)],
      associated=[(DEHYDRATION, 0.35), (C("E87.5", "Hyperkalemia", "276.7", "Hyperpotassemia"), 0.3)],
      procedures=[("hemodialysis", 0.05)], los=(4.0, 2.0), icu_prob=0.08, death_prob=0.02,
      history_phrase="AKI (prerenal)",
      history_clues=["He recently started taking ibuprofen for back pain.", "She had several days of diarrhea."],
      exam_clues=["Mucous membranes are dry.", "Skin turgor is decreased."],
      medqa=[Q("test", "Fractional excretion of sodium", "Renal biopsy", "Serum lipase", "Cystoscopy",
               "Serum complement levels only"),
             Q("next_step", "Discontinue nephrotoxic medications and give intravenous fluids",
               "Immediate hemodialysis", "Start high-dose furosemide", "Renal biopsy", "Start prednisone")],
      discharge_instructions="You were admitted because your kidneys were not working well (acute kidney "
                             "injury)."),
    D(key="ida", name="Iron deficiency anemia", synonyms=["iron deficiency anemia", "IDA",
                                                           "anemia due to chronic blood loss", "microcytic anemia"],
      code=C("D50.0", "Iron deficiency anemia secondary to blood loss (chronic)", "280.0",
             "Iron deficiency anemia secondary to blood loss (chronic)"),
      gm=("D50.0", "Eisenmangelanämie nach Blutverlust (chronisch)"), chapter="III", system="heme",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(60, 17),
      female_share=0.65,
      chief_complaints=["Fatigue", "Shortness of breath on exertion", "Low hemoglobin", "Weakness, DOE"],
      hpi=[["Pt reports {dur} of progressive fatigue, exertional dyspnea and lightheadedness.",
            "She was sent in by her PCP for Hgb of {hgb} on routine labs.", "c/o fatigue, DOE, pica (ice "
            "craving) x {dur}."],
           ["Reports heavy menstrual periods.", "Has noticed intermittent dark stools.",
            "Takes daily aspirin; no colonoscopy in 10 years."],
           ["Transfused 1 unit pRBC in the ED.", "Hemoccult positive in ED."]],
      negatives=["Denies hematemesis.", "No chest pain.", "No fevers or weight loss.", "Denies hematuria."],
      exam=[("General", ["Pale, fatigued", "Pale appearing"]),
            ("HEENT", ["Conjunctival pallor, angular cheilitis", "Pale conjunctivae"]),
            ("Skin", ["Pallor, koilonychia", "Pale, no petechiae"])],
      vitals=_v(hr=(98, 12)),
      labs={HGB: (7.2, 1.0), HCT: (24, 3), MCV: (71, 5), RDW: (18.5, 1.8), FERRITIN: (6, 0.5, "log"),
            IRON: (18, 8), PLT: (410, 80)},
      panels=["iron", "coag"],
      imaging=[],
      course=["# Iron deficiency anemia: Microcytic anemia with ferritin {ferritin}.  Transfused 2 units pRBC "
              "with appropriate response.  EGD/colonoscopy by GI showed gastric AVMs treated with APC.  Given IV "
              "iron sucrose and discharged on oral iron.",
              "# Iron deficiency anemia secondary to chronic blood loss: Likely from menorrhagia.  Received IV "
              "iron.  Gynecology follow-up for evaluation of menorrhagia."],
      admission_meds=["ferrous", "pantoprazole"],
      discharge_meds=["ferrous", "docusate"],
      comorbidities=[("htn", 0.4), ("ckd", 0.15), ("gerd", 0.2)],
      procedures=[("transfusion", 0.6)], los=(2.5, 1.0), icu_prob=0.02, death_prob=0.002,
      admission_type="OBSERVATION ADMIT",
      history_phrase="iron deficiency anemia",
      history_clues=["She has heavy menstrual periods lasting 8 days.", "He has craved ice for several months."],
      exam_clues=["The conjunctivae are pale.", "The nails are spoon-shaped."],
      medqa=[Q("test", "Serum ferritin", "Hemoglobin electrophoresis", "Bone marrow biopsy",
               "Serum vitamin B12", "Direct Coombs test"),
             Q("pharm", "Oral ferrous sulfate", "Intramuscular vitamin B12", "Folic acid alone", "Erythropoietin",
               "Deferoxamine")],
      discharge_instructions="You were admitted with a low blood count (anemia) due to low iron."),
]

_NEURO_MSK_PSY = [
    D(key="seizure", name="Epilepsy with breakthrough seizure",
      synonyms=["seizure", "breakthrough seizure", "epilepsy", "generalized tonic-clonic seizure", "GTC"],
      code=C("G40.909", "Epilepsy, unspecified, not intractable, without status epilepticus", "345.90",
             "Epilepsy, unspecified, without mention of intractable epilepsy"),
      gm=("G40.9", "Epilepsie, nicht näher bezeichnet"), chapter="VI", system="neuro",
      service="NEUROLOGY", careunit="Neurology", icu_unit="Neuro Surgical Intensive Care Unit (Neuro SICU)",
      age=(42, 16),
      chief_complaints=["Seizure", "Witnessed seizure", "Loss of consciousness", "Shaking episode"],
      hpi=[["Pt had a witnessed generalized tonic-clonic seizure at home lasting ~2 minutes per family.",
            "She was found by coworkers having whole-body shaking followed by confusion {dur} ago.",
            "s/p witnessed GTC lasting 3 min with tongue biting and urinary incontinence."],
           ["Has missed several doses of levetiracetam.", "Recent poor sleep and increased stress.",
            "Recent dose reduction of his antiepileptic."],
           ["Postictal on EMS arrival, now back to baseline.", "Received lorazepam 2 mg IV by EMS."]],
      negatives=["No head trauma.", "Denies alcohol use.", "No fevers or headache.", "No focal weakness."],
      exam=[("HEENT", ["Lateral tongue laceration", "Bitten lateral tongue"]),
            ("Neuro", ["Drowsy but oriented x3, nonfocal exam", "A&Ox3, CNs intact, strength 5/5 throughout"])],
      vitals=_v(hr=(96, 14)),
      labs={CK: (600, 0.7, "log"), LACT: (3.0, 1.0), HCO3: (21, 3), WBC: (10.5, 2.5)},
      panels=["ck", "lactate", "tox", "mg_phos"],
      imaging=[CT_HEAD_NEG],
      course=["# Epilepsy with breakthrough seizure: In the setting of medication nonadherence.  No further "
              "seizures on continuous EEG.  Levetiracetam level low; dose resumed and increased to 1000 mg "
              "BID.  Counseled on seizure precautions and driving restrictions.",
              "# Breakthrough seizure: Provoked by sleep deprivation.  CT head negative.  EEG with left "
              "temporal sharp waves.  Keppra increased."],
      admission_meds=["levetiracetam", "lorazepam", "heparin_sc"],
      discharge_meds=["levetiracetam"],
      comorbidities=[("depression", 0.2), ("etoh", 0.1), ("anxiety", 0.1)],
      los=(2.0, 1.0), icu_prob=0.15, death_prob=0.003, admission_type="EU OBSERVATION",
      history_code=C("G40.909", "Epilepsy, unspecified, not intractable, without status epilepticus", "345.90",
                     "Epilepsy, unspecified, without mention of intractable epilepsy"),
      history_phrase="epilepsy on levetiracetam",
      history_clues=["He has epilepsy and ran out of his medication 4 days ago.", "She has been sleeping poorly."],
      exam_clues=["There is a laceration on the lateral tongue.", "Neurologic examination is nonfocal."],
      medqa=[Q("pharm", "Levetiracetam", "Haloperidol", "Propranolol", "Sumatriptan", "Donepezil"),
             Q("next_step", "Intravenous lorazepam", "Intravenous phenytoin before benzodiazepines",
               "Lumbar puncture", "Intubation in all patients", "Observation without treatment")],
      discharge_instructions="You were admitted after a seizure."),
    D(key="hip_fx", name="Femoral neck fracture",
      synonyms=["hip fracture", "femoral neck fracture", "right hip fracture", "subcapital fracture"],
      code=C("S72.001A", "Fracture of unspecified part of neck of right femur, initial encounter for closed fracture",
             "820.8", "Closed fracture of unspecified part of neck of femur"),
      gm=("S72.00", "Schenkelhalsfraktur: Teil nicht näher bezeichnet"), chapter="XIX", system="msk",
      service="ORTHOPAEDICS", careunit="Med/Surg/Trauma", icu_unit="Trauma SICU (TSICU)", age=(81, 8),
      female_share=0.72, age_range=(55, 99),
      chief_complaints=["Fall, right hip pain", "Hip pain after fall", "R hip pain", "s/p fall"],
      hpi=[["Pt had a mechanical fall at home {dur} ago, tripping over a rug, and was unable to bear weight on "
            "the right leg afterwards.", "She slipped in the bathroom and landed on her right side; since then "
            "unable to ambulate.", "s/p mechanical fall at home, +R hip pain, unable to bear weight."],
           ["Did not hit her head, no LOC.", "Lay on the floor for several hours before being found.",
            "Ambulates with a cane at baseline."],
           ["Hip x-ray in the ED showed a displaced femoral neck fracture; orthopedics consulted.",
            "XR: displaced R femoral neck fx; ortho c/s."]],
      negatives=["Denies chest pain or palpitations before the fall.", "No head strike or LOC.",
                 "No lightheadedness.", "Denies other injuries."],
      exam=[("MSK", ["Right leg shortened and externally rotated, pain with log roll, NVI distally",
                     "RLE shortened, ER, TTP over R hip, DP/PT 2+"])],
      vitals=_v(hr=(88, 12), sbp=(146, 20)),
      labs={HGB: (11.2, 1.3), CK: (350, 0.6, "log"), BUN: (24, 8)},
      panels=["coag", "ck"],
      imaging=[HIP_XR],
      course=["# Right femoral neck fracture: Taken to the OR on hospital day 1 for right hip hemiarthroplasty, "
              "uncomplicated.  Postoperative Hgb nadir {hgb_nadir}.  Enoxaparin for DVT prophylaxis x4 weeks.  "
              "Weight bearing as tolerated.  PT recommended rehab.",
              "# Hip fracture: s/p hemiarthroplasty.  Medicine co-managed; workup for syncope negative.  "
              "Started on calcium/vitamin D; osteoporosis follow-up with PCP."],
      admission_meds=["morphine", "acetaminophen", "enoxaparin", "cefazolin", "docusate", "senna"],
      discharge_meds=["enoxaparin", "oxycodone", "acetaminophen", "docusate", "senna"],
      comorbidities=[("osteoporosis", 0.5), ("htn", 0.65), ("dementia", 0.2), ("oa", 0.3), ("ckd", 0.2),
                     ("afib", 0.15), ("hypothyroid", 0.15)],
      associated=[(FALL, 0.8), (C("Y92.009", "Unspecified place in unspecified non-institutional (private) "
                                             "residence as the place of occurrence of the external cause",
                                  "E849.0", "Home accidents"), 0.6)],
      procedures=[("hemiarthroplasty", 0.9), ("transfusion", 0.2)], los=(4.5, 1.8), icu_prob=0.05,
      death_prob=0.02, admission_type="URGENT",
      history_code=C("Z96.641", "Presence of right artificial hip joint", "V43.64", "Hip joint replacement"),
      history_phrase="R hip fracture s/p hemiarthroplasty",
      history_clues=["She has osteoporosis.", "She uses a cane to walk."],
      exam_clues=["The right leg is shortened and externally rotated.", "There is pain with passive range of "
                  "motion of the right hip."],
      medqa=[Q("next_step", "Surgical repair within 48 hours", "Bed rest for 6 weeks", "Closed reduction and "
               "casting", "Physical therapy alone", "Bisphosphonate therapy alone"),
             Q("test", "X-ray of the pelvis and hip", "Bone scan", "Dual-energy x-ray absorptiometry",
               "Ultrasound of the hip", "Serum alkaline phosphatase")],
      discharge_instructions="You were admitted after a fall in which you broke your hip. You had surgery to "
                             "repair it."),
    D(key="gout", name="Acute gouty arthritis", synonyms=["gout flare", "acute gout", "podagra", "gout"],
      code=C("M10.9", "Gout, unspecified", "274.9", "Gout, unspecified"),
      gm=("M10.07", "Idiopathische Gicht: Knöchel und Fuß"), chapter="XIII", system="msk",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(60, 12),
      female_share=0.2,
      chief_complaints=["Right great toe pain", "Foot pain and swelling", "Joint pain", "Toe pain"],
      hpi=[["Pt reports sudden onset of severe pain, redness and swelling of the right first MTP joint that "
            "woke him from sleep {dur} ago.", "She describes {dur} of exquisitely painful swelling of the right "
            "great toe; cannot tolerate the bed sheet touching it.", "c/o acute R 1st MTP pain/swelling x {dur}."],
           ["Recently started on hydrochlorothiazide.", "Ate a large steak dinner with beer the night before.",
            "Has had two prior similar episodes."],
           ["Arthrocentesis in the ED showed needle-shaped negatively birefringent crystals.",
            "Joint tap: negatively birefringent needle-shaped crystals, no organisms on gram stain."]],
      negatives=["No fevers.", "Denies trauma.", "No other joint involvement.", "No rash."],
      exam=[("MSK", ["Right first MTP joint swollen, erythematous, warm and exquisitely tender",
                     "Erythema and swelling of R great toe, severe pain with ROM"])],
      vitals=_v(temp=(99.4, 0.6), hr=(88, 10)),
      labs={URIC: (8.9, 1.2), WBC: (11.0, 2.0), CRP: (40, 0.6, "log"), CR: (1.2, 0.3)},
      panels=["uric", "crp", "diff"],
      imaging=[CT_FOOT],
      course=["# Acute gouty arthritis: Crystal-proven gout of the right first MTP.  Treated with colchicine and "
              "prednisone with rapid improvement.  HCTZ changed to amlodipine.  Will start allopurinol after "
              "the flare resolves.",
              "# Gout flare: Treated with colchicine and NSAIDs; pain controlled.  Uric acid {uric}."],
      admission_meds=["colchicine", "prednisone", "acetaminophen"],
      discharge_meds=["colchicine", "prednisone"],
      comorbidities=[("htn", 0.6), ("ckd", 0.25), ("obesity", 0.4), ("dm2", 0.25), ("hld", 0.3), ("etoh", 0.15)],
      los=(2.0, 0.8), icu_prob=0.0, death_prob=0.0, admission_type="OBSERVATION ADMIT",
      history_code=C("M10.9", "Gout, unspecified", "274.9", "Gout, unspecified"),
      history_phrase="gout",
      history_clues=["He drinks 4 beers daily.", "He was recently started on hydrochlorothiazide for hypertension."],
      exam_clues=["The first metatarsophalangeal joint of the right foot is swollen, erythematous, and "
                  "exquisitely tender."],
      medqa=[Q("test", "Arthrocentesis with synovial fluid analysis", "Serum rheumatoid factor",
               "MRI of the foot", "Bone scan", "Serum antinuclear antibody"),
             Q("pharm", "Colchicine", "Allopurinol started during the flare alone", "Probenecid", "Febuxostat",
               "Rasburicase"),
             Q("mechanism", "Inhibition of microtubule polymerization in neutrophils", "Inhibition of xanthine "
               "oxidase", "Increased renal excretion of uric acid", "Conversion of uric acid to allantoin",
               "Inhibition of cyclooxygenase-2 only")],
      discharge_instructions="You were admitted with a gout attack in your toe."),
    D(key="lupus_nephritis", name="Lupus nephritis",
      synonyms=["SLE with renal involvement", "lupus nephritis", "systemic lupus erythematosus flare", "SLE flare"],
      code=C("M32.14", "Glomerular disease in systemic lupus erythematosus", "710.0", "Systemic lupus erythematosus"),
      gm=("M32.1", "Systemischer Lupus erythematodes mit Beteiligung von Organen oder Organsystemen"),
      chapter="XIII", system="renal", service="MEDICINE", careunit="Medicine",
      icu_unit="Medical Intensive Care Unit (MICU)", age=(31, 9), female_share=0.9, age_range=(18, 65),
      chief_complaints=["Leg swelling", "Joint pain and rash", "Facial swelling", "Foamy urine, edema"],
      hpi=[["Pt reports {dur} of progressive bilateral leg swelling, foamy urine and joint pains.",
            "She describes a facial rash worse with sun exposure, hand arthralgias and new leg edema over {dur}.",
            "c/o LE edema, arthralgias, fatigue x {dur}."],
           ["Diagnosed with SLE 3 years ago but stopped hydroxychloroquine.", "Has had oral ulcers and hair loss.",
            "Family history of autoimmune disease."],
           ["UA with 3+ protein and RBCs; creatinine elevated from baseline.",
            "UA: protein 300, RBC 25, RBC casts on spin."]],
      negatives=["Denies NSAID use.", "No fevers.", "No chest pain.", "No hemoptysis."],
      exam=[("Skin", ["Malar rash sparing the nasolabial folds", "Erythematous malar rash"]),
            ("HEENT", ["Painless oral ulcers on the hard palate", "Oral ulcer on palate"]),
            ("Ext", ["2+ pitting edema bilaterally", "Bilateral LE edema to knees"]),
            ("MSK", ["Synovitis of bilateral MCPs", "Tender, swollen MCP joints"])],
      vitals=_v(sbp=(152, 18), dbp=(94, 10)),
      labs={CR: (1.8, 0.5), ALB: (2.5, 0.4), HGB: (10.0, 1.2), PLT: (130, 40), WBC: (3.6, 0.8),
            URBC: (30, 15), CRP: (12, 0.6, "log"), BUN: (32, 9)},
      ua={U_PROTEIN: "300"},
      panels=["ua", "crp", "lft"],
      imaging=[RENAL_US],
      course=["# Lupus nephritis: Nephrotic-range proteinuria with active sediment, low complements and "
              "elevated dsDNA.  Renal biopsy showed class IV lupus nephritis.  Started on pulse "
              "methylprednisolone followed by prednisone and mycophenolate; hydroxychloroquine resumed.",
              "# SLE flare with renal involvement: Treated with IV steroids; nephrology and rheumatology "
              "following.  BP controlled with lisinopril for antiproteinuric effect."],
      admission_meds=["methylpred", "hcq", "lisinopril", "heparin_sc"],
      discharge_meds=["prednisone", "hcq", "lisinopril"],
      comorbidities=[("htn", 0.35), ("depression", 0.15), ("anxiety", 0.1)],
      los=(5.0, 2.0), icu_prob=0.05, death_prob=0.005,
      history_code=C("M32.9", "Systemic lupus erythematosus, unspecified", "710.0", "Systemic lupus erythematosus"),
      history_phrase="SLE",
      history_clues=["She has had joint pain in both hands and a rash on her face that worsens in the sun.",
                     "She has had painless oral ulcers."],
      exam_clues=["There is an erythematous rash over the cheeks and bridge of the nose sparing the nasolabial "
                  "folds.", "There is 2+ pitting edema of the lower extremities."],
      medqa=[Q("test", "Anti-double-stranded DNA antibodies", "Anti-centromere antibodies",
               "Anti-mitochondrial antibodies", "HLA-B27 testing", "Serum ferritin"),
             Q("pharm", "Mycophenolate mofetil and glucocorticoids", "Allopurinol", "Colchicine",
               "Penicillamine", "Sulfasalazine")],
      discharge_instructions="You were admitted with kidney inflammation caused by lupus."),
    D(key="etoh_withdrawal", name="Alcohol withdrawal", synonyms=["alcohol withdrawal syndrome", "EtOH withdrawal",
                                                                   "delirium tremens", "DTs"],
      code=C("F10.239", "Alcohol dependence with withdrawal, unspecified", "291.81", "Alcohol withdrawal"),
      gm=("F10.3", "Psychische und Verhaltensstörungen durch Alkohol: Entzugssyndrom"), chapter="V", system="psych",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(50, 11),
      female_share=0.25,
      chief_complaints=["Tremors", "Alcohol withdrawal", "Shakiness, anxiety", "Hallucinations"],
      hpi=[["Pt with heavy EtOH use (1 pint vodka/day) reports tremors, sweats and anxiety since his last drink "
            "{dur} ago.", "She stopped drinking {dur} ago and developed tremulousness, nausea and visual "
            "hallucinations.", "c/o shakes, sweats, anxiety; last drink {dur} ago."],
           ["History of withdrawal seizures.", "Prior admission for DTs.", "Never had withdrawal seizures."],
           ["CIWA 22 in the ED; received diazepam 20 mg x2.", "CIWA >20 in ED, got IV lorazepam x3."]],
      negatives=["Denies other drug use.", "No head trauma.", "No hematemesis.", "Denies SI/HI."],
      exam=[("General", ["Tremulous, diaphoretic, anxious", "Agitated, diaphoretic"]),
            ("Neuro", ["Coarse tremor of outstretched hands, oriented x3, no asterixis",
                       "Tremulous, hyperreflexic, tactile hallucinations"])],
      vitals=_v(hr=(112, 12), sbp=(158, 18), dbp=(94, 10), temp=(99.6, 0.7)),
      labs={ETOH: (0, 0), MG: (1.5, 0.2), K: (3.4, 0.4), PHOS: (2.4, 0.5), AST: (110, 0.5, "log"),
            ALT: (55, 0.5, "log"), MCV: (102, 4), PLT: (120, 35), GLU: (110, 20)},
      panels=["lft", "tox", "mg_phos"],
      imaging=[],
      course=["# Alcohol withdrawal: Managed with symptom-triggered diazepam per CIWA protocol, requiring a "
              "total of {benzo} mg over the first 48 hours.  No seizures or DTs.  Given high-dose thiamine, "
              "folate and multivitamin; electrolytes repleted.  Social work and addiction psychiatry consulted.",
              "# EtOH withdrawal c/b delirium tremens: Required phenobarbital and ICU-level care for 2 days.  "
              "Withdrawal resolved by day 5.  Started naltrexone."],
      admission_meds=["diazepam", "lorazepam", "thiamine", "folic", "potassium", "mag_sulfate"],
      discharge_meds=["thiamine", "folic"],
      comorbidities=[("etoh", 0.0), ("tobacco", 0.6), ("depression", 0.25), ("anxiety", 0.2), ("htn", 0.3)],
      associated=[(HYPOKALEMIA, 0.25), (C("E83.42", "Hypomagnesemia", "275.2", "Disorders of magnesium "
                                                                           "metabolism"), 0.3)],
      los=(4.0, 1.5), icu_prob=0.2, death_prob=0.01,
      history_phrase="EtOH withdrawal",
      history_clues=["He drinks a pint of vodka daily and his last drink was 2 days ago.",
                     "She has had a withdrawal seizure in the past."],
      exam_clues=["There is a coarse tremor of the outstretched hands.", "He is diaphoretic and anxious."],
      medqa=[Q("pharm", "Chlordiazepoxide", "Haloperidol alone", "Naltrexone", "Disulfiram", "Phenytoin"),
             Q("mechanism", "Increase in the frequency of GABA-A chloride channel opening",
               "Increase in the duration of GABA-A chloride channel opening", "Antagonism of NMDA receptors",
               "Antagonism of D2 receptors", "Inhibition of aldehyde dehydrogenase"),
             Q("next_step", "Intravenous thiamine before glucose", "Intravenous glucose before thiamine",
               "Oral disulfiram", "Haloperidol monotherapy", "Discharge with outpatient follow-up")],
      discharge_instructions="You were admitted for alcohol withdrawal."),
    D(key="apap_od", name="Acetaminophen overdose",
      synonyms=["acetaminophen toxicity", "APAP overdose", "Tylenol overdose", "intentional ingestion",
                "paracetamol poisoning"],
      code=C("T39.1X2A", "Poisoning by 4-Aminophenol derivatives, intentional self-harm, initial encounter", "965.4",
             "Poisoning by aromatic analgesics, not elsewhere classified"),
      gm=("T39.1", "Vergiftung: 4-Aminophenol-Derivate"), chapter="XIX", system="tox",
      service="MEDICINE", careunit="Medicine", icu_unit="Medical Intensive Care Unit (MICU)", age=(27, 9),
      female_share=0.7, age_range=(18, 65),
      chief_complaints=["Ingestion", "Intentional overdose", "Nausea after ingestion", "OD"],
      hpi=[["Pt reports ingesting approximately 30 tablets of extra-strength acetaminophen {dur} ago in a "
            "suicide attempt after an argument.", "She presented after intentionally taking a bottle of "
            "Tylenol {dur} ago.", "s/p intentional ingestion of ~15 g APAP {dur} prior."],
           ["Now with nausea and vomiting.", "Currently asymptomatic.", "Mild RUQ discomfort."],
           ["4-hour acetaminophen level above the treatment line on the Rumack-Matthew nomogram; started on "
            "IV N-acetylcysteine.", "APAP level {apap}; NAC started; poison control contacted."]],
      negatives=["Denies co-ingestions.", "No alcohol today.", "Denies HI.", "No prior suicide attempts."],
      exam=[("General", ["Tearful, nauseated, no acute distress", "Anxious, cooperative"]),
            ("Abdomen", ["Mild RUQ tenderness, no hepatomegaly", "Soft, mild RUQ TTP"])],
      vitals=_v(hr=(96, 12)),
      labs={APAP: (180, 0.4, "log"), AST: (90, 1.0, "log"), ALT: (100, 1.0, "log"), INR: (1.3, 0.2),
            ETOH: (0, 0)},
      panels=["tox", "lft", "coag", "hcg"],
      imaging=[],
      course=["# Acetaminophen overdose: Intentional ingestion with 4-hour level {apap}.  Treated with 21-hour IV "
              "N-acetylcysteine protocol; transaminases peaked at AST {ast_peak} and normalized.  Toxicology "
              "consulted.  Psychiatry evaluated for suicide attempt; patient on 1:1 sitter.",
              "# APAP toxicity: NAC started within 8 hours of ingestion; LFTs remained normal.  Psychiatry "
              "recommended inpatient psychiatric admission."],
      admission_meds=["nac", "ondansetron"],
      discharge_meds=[],
      comorbidities=[("depression", 0.6), ("anxiety", 0.3), ("etoh", 0.1)],
      associated=[(C("F32.9", "Major depressive disorder, single episode, unspecified", "311",
                     "Depressive disorder, not elsewhere classified"), 0.5)],
      los=(2.5, 1.0), icu_prob=0.3, death_prob=0.003,
      history_phrase="prior intentional ingestion",
      history_clues=["She has a history of depression.", "She took the pills after an argument with her partner."],
      exam_clues=["She has mild right upper quadrant tenderness.", "She is tearful but cooperative."],
      medqa=[Q("pharm", "N-acetylcysteine", "Fomepizole", "Naloxone", "Flumazenil", "Physostigmine"),
             Q("mechanism", "Replenishment of hepatic glutathione", "Inhibition of alcohol dehydrogenase",
               "Competitive antagonism at opioid receptors", "Chelation of heavy metals",
               "Antagonism at benzodiazepine receptors"),
             Q("test", "Serum acetaminophen level 4 hours after ingestion", "Serum salicylate level only",
               "Urine drug screen only", "Serum ammonia", "Blood cultures")],
      discharge_instructions="You were admitted after taking too much acetaminophen (Tylenol)."),
]

_OTHER = [
    D(key="preeclampsia", name="Severe preeclampsia",
      synonyms=["preeclampsia with severe features", "severe pre-eclampsia", "preeclampsia", "PEC"],
      code=C("O14.13", "Severe pre-eclampsia, third trimester", "642.53",
             "Severe pre-eclampsia, antepartum condition or complication"),
      gm=("O14.1", "Schwere Präeklampsie"), chapter="XV", system="ob",
      service="OBSTETRICS/GYNECOLOGY", careunit="Med/Surg/GYN", icu_unit="Surgical Intensive Care Unit (SICU)",
      age=(30, 6), sex="F", female_share=1.0, age_range=(18, 44),
      chief_complaints=["Headache and elevated blood pressure", "Headache, visual changes", "Elevated BP"],
      hpi=[["G1P0 at 34 weeks' gestation presents with {dur} of severe headache and blurry vision.",
            "G2P1 at 35 weeks reports headache, scotomata and RUQ pain starting {dur} ago.",
            "G1P0 @ 33w c/o HA, seeing spots, swelling of face and hands x {dur}."],
           ["Prenatal course uncomplicated until now.", "Blood pressures normal at prior prenatal visits.",
            "Noted increasing swelling of hands and face."],
           ["BP 168/110 in triage; given IV labetalol and magnesium sulfate started.",
            "Severe range BPs in L&D triage; Mg started."]],
      negatives=["No vaginal bleeding.", "Denies leakage of fluid.", "Reports normal fetal movement.",
                 "No contractions."],
      exam=[("Abdomen", ["Gravid, nontender, fundal height appropriate", "Gravid uterus, mild RUQ tenderness"]),
            ("Neuro", ["3+ reflexes with 2 beats of clonus", "Hyperreflexia, no clonus"]),
            ("Ext", ["2+ edema of hands and feet", "Facial and bilateral LE edema"])],
      vitals=_v(sbp=(166, 10), dbp=(106, 7), hr=(90, 10)),
      labs={PLT: (115, 35), AST: (85, 0.6, "log"), ALT: (80, 0.6, "log"), CR: (1.0, 0.2), URIC: (7.2, 1.0),
            LDH: (380, 80), HGB: (11.2, 1.0)},
      ua={U_PROTEIN: "300", U_HCG: "POS"},
      panels=["lft", "ldh", "uric", "ua", "coag"],
      imaging=[],
      course=["# Severe preeclampsia: Severe-range blood pressures with headache and transaminitis.  Received "
              "magnesium sulfate for seizure prophylaxis, IV labetalol, and betamethasone.  Underwent primary "
              "low transverse cesarean section at 34 weeks; infant to NICU.  BP controlled on oral labetalol "
              "postpartum.",
              "# Preeclampsia with severe features: Induction of labor with magnesium; delivered vaginally.  "
              "Postpartum BPs controlled on nifedipine."],
      admission_meds=["mag_sulfate", "labetalol", "acetaminophen"],
      discharge_meds=["acetaminophen"],
      comorbidities=[("obesity", 0.3), ("htn", 0.1)],
      procedures=[("csection", 0.55)], los=(4.0, 1.5), icu_prob=0.05, death_prob=0.0,
      history_phrase="preeclampsia in prior pregnancy",
      history_clues=["She is at 34 weeks' gestation with her first pregnancy.", "Her prenatal visits were "
                     "unremarkable."],
      exam_clues=["Deep tendon reflexes are 3+.", "There is edema of the face and hands."],
      medqa=[Q("pharm", "Magnesium sulfate", "Phenytoin", "Diazepam", "Lisinopril", "Hydrochlorothiazide"),
             Q("next_step", "Magnesium sulfate and delivery", "Expectant management until 40 weeks",
               "Bed rest at home", "Start lisinopril", "Immediate discharge with follow-up in 1 week")],
      discharge_instructions="You were admitted with severe preeclampsia (high blood pressure in pregnancy)."),
    D(key="lung_cancer", name="Lung adenocarcinoma",
      synonyms=["non-small cell lung cancer", "NSCLC", "lung cancer", "bronchogenic carcinoma", "RUL mass"],
      code=C("C34.11", "Malignant neoplasm of upper lobe, right bronchus or lung", "162.3",
             "Malignant neoplasm of upper lobe, bronchus or lung"),
      gm=("C34.1", "Bösartige Neubildung: Oberlappen (-Bronchus)"), chapter="II", system="onc",
      service="MEDICINE", careunit="Hematology/Oncology", icu_unit="Medical Intensive Care Unit (MICU)",
      age=(68, 9), female_share=0.45, age_range=(35, 95),
      chief_complaints=["Hemoptysis", "Cough and weight loss", "Lung mass", "Hemoptysis, SOB"],
      hpi=[["Pt reports {dur} of worsening cough with blood-streaked sputum and a 20-lb unintentional weight "
            "loss.", "She describes several months of cough, fatigue, and new hemoptysis {dur} ago.",
            "c/o cough, hemoptysis, 15 lb wt loss over 3 months."],
           ["60 pack-year smoking history, quit 2 years ago.", "Active smoker, 1 ppd for 40 years.",
            "Worked in construction with asbestos exposure."],
           ["CT chest in the ED showed a right upper lobe spiculated mass with mediastinal adenopathy.",
            "CT: RUL mass with LAD; admitted for expedited workup."]],
      negatives=["No fevers.", "Denies chest pain.", "No headaches or focal weakness.", "No bone pain."],
      exam=[("General", ["Cachectic, temporal wasting", "Thin, chronically ill appearing"]),
            ("Lungs", ["Decreased breath sounds at the right apex, scattered rhonchi", "Diminished BS R upper "
                       "field"]),
            ("Ext", ["Digital clubbing", "Clubbing of fingers"])],
      vitals=_v(hr=(92, 12), spo2=(94, 2), temp=(98.8, 0.6)),
      labs={CA: (10.8, 0.8), ALB: (3.1, 0.4), HGB: (11.0, 1.3), NA: (134, 3), PLT: (380, 80), ALP: (150, 50)},
      panels=["lft", "coag", "ldh"],
      imaging=[CT_CHEST_MASS],
      course=["# Lung adenocarcinoma: RUL mass with mediastinal adenopathy.  Underwent bronchoscopy with EBUS-"
              "guided biopsy showing adenocarcinoma, TTF-1 positive; molecular testing pending.  MRI brain "
              "negative.  Staging PET-CT as outpatient.  Thoracic oncology clinic appointment arranged.",
              "# Non-small cell lung cancer: New diagnosis; hypercalcemia treated with IV fluids and "
              "zoledronic acid.  Biopsy confirmed NSCLC.  Palliative care consulted for symptom management."],
      admission_meds=["heparin_sc", "acetaminophen", "oxycodone"],
      discharge_meds=["oxycodone", "senna", "docusate"],
      comorbidities=[("copd", 0.45), ("tobacco", 0.5), ("htn", 0.45), ("cad", 0.2)],
      associated=[(HX_TOBACCO, 0.4), (C("R04.2", "Hemoptysis", "786.30", "Hemoptysis, unspecified"), 0.5)],
      procedures=[("bronch_biopsy", 0.8)], los=(4.0, 2.0), icu_prob=0.05, death_prob=0.03,
      history_code=C("Z85.118", "Personal history of other malignant neoplasm of bronchus and lung", "V10.11",
                     "Personal history of malignant neoplasm of bronchus and lung"),
      history_phrase="RUL lung adenocarcinoma",
      history_clues=["He has a 60-pack-year smoking history.", "She has lost 9 kg over 3 months without trying."],
      exam_clues=["There is clubbing of the fingers.", "Breath sounds are decreased over the right upper lung "
                  "field."],
      medqa=[Q("test", "Bronchoscopic biopsy of the mass", "Sputum culture", "Serum ACE level",
               "Ventilation-perfusion scan", "Repeat chest x-ray in 6 months"),
             Q("next_step", "CT-guided or bronchoscopic tissue biopsy", "Empiric antituberculous therapy",
               "Reassurance and routine follow-up", "Start inhaled corticosteroids", "Pulmonary rehabilitation")],
      discharge_instructions="You were admitted with coughing up blood and were found to have a mass in your "
                             "lung, which was biopsied."),
    D(key="syncope", name="Vasovagal syncope", synonyms=["syncope", "syncope and collapse", "neurocardiogenic "
                                                                                             "syncope", "fainting"],
      code=C("R55", "Syncope and collapse", "780.2", "Syncope and collapse"),
      gm=("R55", "Synkope und Kollaps"), chapter="XVIII", system="cardio",
      service="MEDICINE", careunit="Medicine", icu_unit="Coronary Care Unit (CCU)", age=(55, 20),
      chief_complaints=["Syncope", "Passed out", "Loss of consciousness", "Syncopal episode"],
      hpi=[["Pt reports passing out while standing in line at the pharmacy {dur} ago, preceded by warmth, "
            "nausea and tunnel vision.", "She fainted after having blood drawn, with brief LOC and rapid "
            "return to baseline.", "s/p syncopal episode after prolonged standing, +prodrome of "
            "lightheadedness and diaphoresis."],
           ["LOC lasted less than a minute per bystanders; no post-event confusion.",
            "No tongue biting or incontinence.", "Had not eaten all day."],
           ["ECG with sinus rhythm, normal intervals.", "Orthostatics negative in ED; EKG NSR."]],
      negatives=["Denies chest pain or palpitations.", "No exertional symptoms.", "No head strike.",
                 "No focal weakness."],
      exam=[("CV", ["RRR, no murmurs", "Regular, no murmurs, no carotid bruits"]),
            ("Neuro", ["Nonfocal", "A&Ox3, nonfocal exam"])],
      vitals=_v(hr=(72, 10), sbp=(118, 14)),
      labs={},
      panels=["trop", "hcg"],
      imaging=[CT_HEAD_NEG],
      course=["# Syncope: History most consistent with vasovagal syncope given prodrome and trigger.  Telemetry "
              "without arrhythmia over 24 hours.  Troponins negative x2.  TTE normal.  Counseled on hydration "
              "and counter-pressure maneuvers.",
              "# Vasovagal syncope: Orthostatics negative, no arrhythmia on telemetry.  Discharged with "
              "outpatient event monitor."],
      admission_meds=["heparin_sc", "ns"],
      discharge_meds=[],
      comorbidities=[("htn", 0.3), ("anxiety", 0.15), ("hld", 0.2)],
      los=(1.5, 0.6), icu_prob=0.02, death_prob=0.0, admission_type="OBSERVATION ADMIT",
      history_phrase="vasovagal syncope",
      history_clues=["She felt warm and nauseated immediately before losing consciousness.",
                     "The episode occurred while standing in a hot, crowded room."],
      exam_clues=["Cardiac examination shows no murmurs.", "Neurologic examination shows no focal findings."],
      medqa=[Q("test", "12-lead electrocardiogram", "Electroencephalography", "MRI of the brain",
               "Carotid ultrasonography in all patients", "Tilt-table test as the first step"),
             Q("next_step", "Reassurance and education about avoiding triggers", "Implantable cardioverter-"
               "defibrillator", "Start an antiepileptic drug", "Cardiac catheterization", "Pacemaker placement")],
      discharge_instructions="You were admitted after fainting (syncope)."),
]

DISEASES: tuple[Disease, ...] = tuple(_CARDIO + _PULM_ID + _GI + _ENDO_RENAL + _NEURO_MSK_PSY + _OTHER)
DISEASES_BY_KEY: dict[str, Disease] = {d.key: d for d in DISEASES}

# relative frequency of primary diagnoses in the demo (others default to 1.0)
DISEASE_WEIGHTS: dict[str, float] = {
    "cap": 2.2, "sepsis": 2.0, "adhf": 2.0, "nstemi": 1.6, "copd_exac": 1.5, "afib_rvr": 1.4, "stroke": 1.4,
    "pyelo": 1.2, "aki": 1.2, "cellulitis": 1.2, "hip_fx": 1.1, "pud_bleed": 1.1, "pancreatitis": 1.1,
    "etoh_withdrawal": 1.0, "stemi": 0.9, "pe": 0.9, "cholecystitis": 0.9, "appendicitis": 0.8, "syncope": 0.9,
    "hyponatremia": 0.8, "cdiff": 0.7, "dka": 0.7, "seizure": 0.7, "cirrhosis": 0.7, "sbo": 0.7, "ida": 0.6,
    "dvt": 0.5, "lung_cancer": 0.5, "asthma_exac": 0.5, "gout": 0.4, "meningitis": 0.3, "thyrotoxicosis": 0.3,
    "apap_od": 0.4, "lupus_nephritis": 0.25, "preeclampsia": 0.3,
}


# ---------------------------------------------------------------------------------------------
# SICdb: ICU admission diagnoses (ICD-10-GM) not in the MIMIC catalog, and malformed codes
# ---------------------------------------------------------------------------------------------

SIC_EXTRA_DIAGNOSES: tuple[tuple[str, str, str, float], ...] = (
    # (ICD-10-GM dotted, German title, surgical site key or "", weight)
    ("U07.1", "COVID-19, Virus nachgewiesen", "", 1.2),
    ("E11.90", "Diabetes mellitus, Typ 2: Ohne Komplikationen: Nicht als entgleist bezeichnet", "", 0.3),
    ("I50.01", "Sekundäre Rechtsherzinsuffizienz", "", 0.5),
    ("I35.0", "Aortenklappenstenose", "cardiac", 1.5),
    ("I25.13", "Atherosklerotische Herzkrankheit: Drei-Gefäß-Erkrankung", "cardiac", 1.5),
    ("I71.4", "Aneurysma der Aorta abdominalis, ohne Angabe einer Ruptur", "vascular", 0.6),
    ("C18.7", "Bösartige Neubildung: Colon sigmoideum", "colorectal", 0.9),
    ("C25.0", "Bösartige Neubildung: Pankreaskopf", "hpb", 0.6),
    ("S06.5", "Traumatische subdurale Blutung", "neuro", 0.6),
    ("I60.9", "Subarachnoidalblutung, nicht näher bezeichnet", "neuro", 0.5),
    ("J96.00", "Akute respiratorische Insuffizienz, anderenorts nicht klassifiziert: Typ I [hypoxisch]", "", 0.8),
    ("K57.22", "Divertikulitis des Dickdarmes mit Perforation und Abszess, ohne Angabe einer Blutung",
     "colorectal", 0.4),
)
SIC_MALFORMED_CODES: tuple[str, ...] = ("C19.x1", "103.2", "I2l.4", "")


def chapters() -> set[str]:
    return {d.chapter for d in DISEASES}


def all_codes() -> list[Code]:
    """Every ICD code the MIMIC output may use (primary, comorbidity, associated, history)."""
    seen: dict[tuple[str, str], Code] = {}
    for d in DISEASES:
        for code in [d.code, d.history_code, *[c for c, _ in d.associated]]:
            if code is not None:
                seen.setdefault((code.icd10, code.icd9), code)
    for c in COMORBIDITIES.values():
        seen.setdefault((c.code.icd10, c.code.icd9), c.code)
    for code in (OLD_MI, HX_PE, HX_STROKE, HX_TOBACCO, ANTICOAG, INSULIN_USE, DNR):
        seen.setdefault((code.icd10, code.icd9), code)
    return list(seen.values())


def d_icd_rows() -> list[tuple[str, str, str]]:
    """(icd_code dotless, icd_version, long_title) for every code, sorted as in MIMIC (by code, version)."""
    rows: dict[tuple[str, str], str] = {}
    for code in all_codes():
        rows[(code.icd9_nodot, "9")] = code.title9
        rows[(code.icd10_nodot, "10")] = code.title10
    return [(c, v, t) for (c, v), t in sorted(rows.items())]
