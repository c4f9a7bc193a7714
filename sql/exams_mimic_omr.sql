-- Measurements of the outpatient record (omr: blood pressure, weight, BMI, height) dated within
-- each case's admission: the first per measurement (chartdate, then seq_num). omr keeps dates
-- only, so offset_hours is unknown (NULL). `cases` is registered by the caller.
WITH known AS (
    SELECT
        c.case_id,
        trim(o.result_name) AS result_name,
        trim(o.result_value) AS result_value,
        o.seq_num
    FROM read_parquet('{omr}') o
    JOIN cases c ON c.subject_id = o.subject_id
    WHERE o.chartdate BETWEEN CAST(c.admittime AS DATE) AND CAST(c.dischtime AS DATE)
      AND nullif(trim(o.result_value), '') IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY c.case_id, trim(o.result_name) ORDER BY o.chartdate, o.seq_num, o.result_value
    ) = 1
)
SELECT
    case_id,
    result_name AS exam_name,
    'vital' AS kind,
    TRY_CAST(result_value AS DOUBLE) AS value_num,
    result_value AS value_text,
    CASE WHEN result_name ILIKE 'blood pressure%' THEN 'mmHg'
         ELSE nullif(regexp_extract(result_name, '\(([^)]*)\)', 1), '') END AS unit,
    CAST(NULL AS DOUBLE) AS ref_low,
    CAST(NULL AS DOUBLE) AS ref_high,
    CAST(NULL AS BOOLEAN) AS abnormal,
    CAST(NULL AS DOUBLE) AS offset_hours,
    'recorded' AS origin,
    'mimic_omr:' || result_name AS source_ref,
    result_name AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM known
ORDER BY case_id, exam_name
