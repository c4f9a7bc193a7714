-- Secondary diagnoses (seq_num > 1) coded at the case's own admission, with their titles; the
-- caller keeps only chronic conditions known before admission (pipelines.units.chronic).
SELECT
    c.case_id,
    trim(d.icd_code) AS icd_code,
    d.icd_version,
    t.long_title AS title,
    min(d.seq_num) AS seq_num
FROM cases c
JOIN read_parquet('{diagnoses_icd}') d ON d.hadm_id = c.hadm_id
JOIN read_parquet('{d_icd_diagnoses}') t
  ON t.icd_code = trim(d.icd_code) AND t.icd_version = d.icd_version
WHERE d.seq_num > 1
GROUP BY ALL
ORDER BY c.case_id, seq_num
