-- Laboratory results of each case's own admission: the FIRST result per lab item, in the order
-- results became known (storetime; charttime and labevent_id break ties, so the choice is
-- deterministic). Results without a storetime were never released and de-identified values
-- ('___') carry nothing, so neither counts. `cases` and `lab_items` (itemid -> proposed name,
-- already without tube holds and specimen labels) are registered by the caller.
WITH known AS (
    SELECT
        c.case_id,
        c.admittime,
        i.exam_name,
        i.raw_name,
        l.itemid,
        l.storetime,
        l.valuenum,
        nullif(nullif(trim(l.value), ''), '___') AS value_text,
        nullif(trim(l.valueuom), '') AS unit,
        l.ref_range_lower,
        l.ref_range_upper,
        nullif(trim(l.flag), '') AS flag
    FROM read_parquet('{labevents}') l
    JOIN cases c ON c.hadm_id = l.hadm_id
    JOIN lab_items i ON i.itemid = l.itemid
    WHERE l.storetime IS NOT NULL
      AND (l.valuenum IS NOT NULL OR nullif(nullif(trim(l.value), ''), '___') IS NOT NULL)
    QUALIFY row_number() OVER (
        PARTITION BY c.case_id, l.itemid ORDER BY l.storetime, l.charttime, l.labevent_id
    ) = 1
)
SELECT
    case_id,
    exam_name,
    'lab' AS kind,
    valuenum AS value_num,
    value_text,
    unit,
    ref_range_lower AS ref_low,
    ref_range_upper AS ref_high,
    -- MIMIC flags abnormal results ('abnormal'); an unflagged result is abnormal only when it
    -- falls outside the reference range printed beside it.
    coalesce(flag IS NOT NULL OR valuenum < ref_range_lower OR valuenum > ref_range_upper, false) AS abnormal,
    date_diff('second', admittime, storetime) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_labevents:itemid=' || itemid AS source_ref,
    raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM known
ORDER BY case_id, offset_hours, exam_name
