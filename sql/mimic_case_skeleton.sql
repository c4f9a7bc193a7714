-- One candidate case per MIMIC-IV admission: demographics at admission and the principal
-- diagnosis (seq_num = 1) with its source title. Exact duplicate diagnosis rows are
-- collapsed; when an admission carries several seq_num = 1 rows (should not happen), the
-- smallest (version, code) wins so the choice is deterministic.
WITH primary_dx AS (
    SELECT hadm_id, icd_code, icd_version
    FROM (
        SELECT DISTINCT hadm_id, trim(icd_code) AS icd_code, icd_version
        FROM read_parquet('{diagnoses_icd}')
        WHERE seq_num = 1
    )
    QUALIFY row_number() OVER (PARTITION BY hadm_id ORDER BY icd_version, icd_code) = 1
),
secondary_dx AS (
    SELECT hadm_id,
           list(trim(icd_code) ORDER BY seq_num, icd_code) AS secondary_codes,
           list(icd_version ORDER BY seq_num, icd_code) AS secondary_versions
    FROM read_parquet('{diagnoses_icd}')
    WHERE seq_num > 1
    GROUP BY hadm_id
)
SELECT
    a.subject_id,
    a.hadm_id,
    a.admittime,
    a.admission_type,
    p.subject_id IS NOT NULL AS has_patient,
    p.gender,
    -- anchor_age is the age in anchor_year; ages >= 89 are already grouped by MIMIC
    CAST(p.anchor_age + (year(a.admittime) - p.anchor_year) AS INTEGER) AS age,
    d.icd_code,
    d.icd_version,
    t.long_title,
    coalesce(s.secondary_codes, []) AS secondary_codes,
    coalesce(s.secondary_versions, []) AS secondary_versions
FROM read_parquet('{admissions}') a
LEFT JOIN read_parquet('{patients}') p ON p.subject_id = a.subject_id
LEFT JOIN primary_dx d ON d.hadm_id = a.hadm_id
LEFT JOIN read_parquet('{d_icd_diagnoses}') t
       ON t.icd_code = d.icd_code AND t.icd_version = d.icd_version
LEFT JOIN secondary_dx s ON s.hadm_id = a.hadm_id
ORDER BY a.hadm_id
