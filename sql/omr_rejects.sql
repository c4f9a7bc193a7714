-- The impossible values of `omr_checked` (sql/omr_checked.sql) as rejects rows; a measurement
-- considered for two cases is rejected once.
SELECT DISTINCT
    'mimic_iv' AS source,
    'mimic_omr' AS "table",
    'hosp/omr.csv.gz' AS file,
    CAST(NULL AS BIGINT) AS row_number,
    printf('subject_id=%d,chartdate=%s,seq_num=%d,result_name=%s', subject_id, CAST(chartdate AS VARCHAR), seq_num, result_name) AS row_key,
    problem AS reason,
    result_value AS raw
FROM omr_checked
WHERE problem IS NOT NULL
ORDER BY row_key
