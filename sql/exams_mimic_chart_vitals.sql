-- ICU vital signs: per case, the FIRST possible value per chart item (by storetime, then charttime,
-- then value, for determinism) of `chart_window` (sql/exams_mimic_chart_window.sql).
SELECT
    case_id,
    exam_name,
    'vital' AS kind,
    valuenum AS value_num,
    printf('%g', valuenum) AS value_text,
    unit,
    ref_low,
    ref_high,
    CASE WHEN ref_low IS NULL AND ref_high IS NULL THEN NULL
         ELSE coalesce(valuenum < ref_low OR valuenum > ref_high, false) END AS abnormal,
    date_diff('second', index_time, storetime) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_chartevents:itemid=' || itemid AS source_ref,
    exam_name AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM chart_window
WHERE problem IS NULL
QUALIFY row_number() OVER (PARTITION BY case_id, itemid ORDER BY storetime, charttime, valuenum) = 1
ORDER BY case_id, offset_hours, exam_name
