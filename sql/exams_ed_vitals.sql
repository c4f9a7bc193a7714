-- MIMIC-IV-ED vital signs: per case, the FIRST possible value per exam of `ed_window`
-- (sql/exams_ed_window.sql) by charttime, triage before vitalsign at the same time, then value.
SELECT
    case_id,
    exam_name,
    'vital' AS kind,
    value AS value_num,
    printf('%g', value) AS value_text,
    unit,
    ref_low,
    ref_high,
    coalesce(value < ref_low OR value > ref_high, false) AS abnormal,
    date_diff('second', index_time, charttime) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'ed_' || ed_table || ':' || "column" AS source_ref,
    exam_name AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM ed_window
WHERE problem IS NULL
QUALIFY row_number() OVER (PARTITION BY case_id, exam_name ORDER BY charttime, ed_table = 'vitalsign', value) = 1
ORDER BY case_id, offset_hours, exam_name
