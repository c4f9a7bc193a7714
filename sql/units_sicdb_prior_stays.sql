-- The patient's EARLIER SICdb ICU stays (same PatientID, discharged before this stay began on
-- the patient's offset clock): their main diagnoses are history the patient can report.
SELECT
    c.case_id,
    trim(p.ICD10Main) AS icd_code,
    'gm' AS icd_version,
    p.ICD10MainText AS gm_title,
    p.OffsetAfterFirstAdmission AS started
FROM cases c
JOIN read_parquet('{sicdb_cases}') p
  ON p.PatientID = c.sicdb_patient_id
 AND p.CaseID <> c.sicdb_case_id
 AND p.OffsetAfterFirstAdmission + coalesce(p.TimeOfStay, 0) <= c.offset_after_first_admission
ORDER BY c.case_id, started DESC
