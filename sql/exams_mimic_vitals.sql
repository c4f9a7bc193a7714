-- ICU vital signs of each case's own admission: the FIRST value per chartevents item (by
-- storetime, then charttime, then value for determinism). `cases` and `vital_items`
-- (itemid -> proposed name, normal range from d_items) are registered by the caller.
WITH known AS (
    SELECT
        c.case_id,
        c.admittime,
        i.exam_name,
        i.raw_name,
        i.ref_low,
        i.ref_high,
        e.itemid,
        coalesce(e.storetime, e.charttime) AS known_at,
        e.valuenum,
        nullif(nullif(trim(e.value), ''), '___') AS value_text,
        nullif(nullif(trim(e.valueuom), ''), 'None') AS unit
    FROM read_parquet('{chartevents}') e
    JOIN cases c ON c.hadm_id = e.hadm_id
    JOIN vital_items i ON i.itemid = e.itemid
    WHERE e.valuenum IS NOT NULL OR nullif(nullif(trim(e.value), ''), '___') IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY c.case_id, e.itemid ORDER BY known_at, e.charttime, e.valuenum, e.value
    ) = 1
)
SELECT
    case_id,
    exam_name,
    'vital' AS kind,
    valuenum AS value_num,
    value_text,
    unit,
    ref_low,
    ref_high,
    CASE WHEN ref_low IS NULL AND ref_high IS NULL THEN NULL
         ELSE coalesce(valuenum < ref_low OR valuenum > ref_high, false) END AS abnormal,
    date_diff('second', admittime, known_at) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_chartevents:itemid=' || itemid AS source_ref,
    raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM known
ORDER BY case_id, offset_hours, exam_name
