-- MIMIC-IV candidate cases with their admission and index time (keys stay inside the content producers).
SELECT
    s.case_id,
    s.split,
    s.age,
    s.sex,
    s.primary_icd10,
    s.primary_icd10_category,
    s.primary_icd10_block,
    p.subject_id,
    p.hadm_id,
    a.admittime,
    s.index_time,
    a.dischtime,
    a.admission_type,
    a.admission_location,
    a.marital_status,
    a.language
FROM read_parquet('{skeleton}') s
JOIN read_parquet('{provenance}') p USING (case_id)
JOIN read_parquet('{admissions}') a ON a.hadm_id = p.hadm_id
WHERE s.source = 'mimic_iv'
ORDER BY s.case_id
