-- The impossible values of `ed_window` (sql/exams_ed_window.sql) and the pain entries of
-- `ed_readings` (sql/exams_ed_readings.sql) that are no score ("unable", "asleep"), as rejects rows.
SELECT
    'mimic_ed' AS source,
    'ed_' || ed_table AS "table",
    'ed/' || ed_table || '.csv.gz' AS file,
    CAST(NULL AS BIGINT) AS row_number,
    printf('subject_id=%d,stay_id=%d,charttime=%s,%s', subject_id, stay_id, CAST(charttime AS VARCHAR), "column") AS row_key,
    problem AS reason,
    printf('%g', value) AS raw
FROM ed_window
WHERE problem IS NOT NULL
UNION ALL
SELECT
    'mimic_ed',
    'ed_' || ed_table,
    'ed/' || ed_table || '.csv.gz',
    CAST(NULL AS BIGINT),
    printf('subject_id=%d,stay_id=%d,charttime=%s,pain', subject_id, stay_id, CAST(charttime AS VARCHAR)),
    'pain is no score from 0 to 10: ' || pain_text,
    pain_text
FROM ed_readings
WHERE pain IS NULL AND trim(coalesce(pain_text, '')) <> ''
ORDER BY row_key
