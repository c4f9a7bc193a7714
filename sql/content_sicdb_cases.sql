-- SICdb candidate cases with their cases-table row (weight in grams, 0 = missing; height in cm)
-- and the labels of the reference ids known on admission (surgical site, referring unit).
SELECT
    s.case_id,
    s.split,
    s.age,
    s.sex,
    s.primary_icd10,
    s.primary_icd10_category,
    s.primary_icd10_block,
    c.CaseID AS sicdb_case_id,
    c.PatientID AS sicdb_patient_id,
    c.WeightOnAdmission AS weight_g,
    c.HeightOnAdmission AS height_cm,
    c.OffsetAfterFirstAdmission AS offset_after_first_admission,
    site.ReferenceValue AS surgical_site,
    referrer.ReferenceValue AS referring_unit
FROM read_parquet('{skeleton}') s
JOIN read_parquet('{provenance}') p USING (case_id)
JOIN read_parquet('{sicdb_cases}') c ON c.CaseID = p.CaseID
LEFT JOIN read_parquet('{d_references}') site ON site.ReferenceGlobalID = c.SurgicalSite
LEFT JOIN read_parquet('{d_references}') referrer ON referrer.ReferenceGlobalID = c.ReferringUnit
WHERE s.source = 'sicdb'
ORDER BY s.case_id
