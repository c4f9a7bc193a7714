-- When each diagnosis code was first coded for a patient: the earliest admission time among the
-- admissions that carry it at any seq_num (input of known_condition, pipelines/cases/encounters.py).
SELECT
    a.subject_id,
    trim(d.icd_code) AS icd_code,
    d.icd_version,
    min(a.admittime) AS first_coded
FROM read_parquet('{diagnoses_icd}') d
JOIN read_parquet('{admissions}') a ON a.hadm_id = d.hadm_id
WHERE d.icd_code IS NOT NULL
GROUP BY ALL
ORDER BY ALL
