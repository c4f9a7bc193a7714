-- The impossible values of `chart_window` (sql/exams_mimic_chart_window.sql) as rejects rows.
SELECT
    'mimic_iv' AS source,
    'mimic_chartevents' AS "table",
    'icu/chartevents.csv.gz' AS file,
    CAST(NULL AS BIGINT) AS row_number,
    printf('subject_id=%d,stay_id=%d,itemid=%d,charttime=%s', subject_id, stay_id, itemid, CAST(charttime AS VARCHAR)) AS row_key,
    problem AS reason,
    printf('%g', valuenum) AS raw
FROM chart_window
WHERE problem IS NOT NULL
ORDER BY row_key
