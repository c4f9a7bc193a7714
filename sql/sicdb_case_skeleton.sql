-- One candidate case per SICdb case. Sex is a reference id resolved through d_references
-- (735/736 in v1.0.x); the raw id is kept so that an unexpected value is reported, not guessed.
-- OffsetAfterFirstAdmission (seconds after the patient's first stay) orders a patient's stays.
SELECT
    c.CaseID,
    c.PatientID,
    c.Sex AS sex_reference_id,
    lower(r.ReferenceValue) AS sex_reference_value,
    c.AgeOnAdmission AS age,
    c.OffsetAfterFirstAdmission AS offset_after_first_admission,
    trim(c.ICD10Main) AS icd10_main,
    c.ICD10MainText AS icd10_main_text
FROM read_parquet('{cases}') c
LEFT JOIN read_parquet('{d_references}') r ON r.ReferenceGlobalID = c.Sex
ORDER BY c.CaseID
