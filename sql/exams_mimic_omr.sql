-- omr measurements: per case, the FIRST possible value per measurement (chartdate, then seq_num,
-- then value) of `omr_checked` (sql/omr_checked.sql). omr keeps dates only, so
-- offset_hours is unknown (NULL).
SELECT
    case_id,
    result_name AS exam_name,
    'vital' AS kind,
    CASE WHEN NOT pressure THEN value_num END AS value_num,
    result_value AS value_text,
    unit,
    CAST(NULL AS DOUBLE) AS ref_low,
    CAST(NULL AS DOUBLE) AS ref_high,
    CAST(NULL AS BOOLEAN) AS abnormal,
    CAST(NULL AS DOUBLE) AS offset_hours,
    'recorded' AS origin,
    'mimic_omr:' || result_name AS source_ref,
    result_name AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM omr_checked
WHERE problem IS NULL
QUALIFY row_number() OVER (PARTITION BY case_id, result_name ORDER BY chartdate, seq_num, result_value) = 1
ORDER BY case_id, exam_name
