-- Laboratory results of each case within its exam window (pipelines/exams/window.py): charted in
-- [window_start, window_end] and stored (storetime) by window_end; rows of the case's admission,
-- or rows without an admission charted before it (ED labs). The FIRST result per lab item, in the
-- order results became known (storetime; charttime and labevent_id break ties).
-- The value text is `value`; the number when `value` is the '___' placeholder; else the first
-- sentence of `comments` ("NEG.", "<0.01.  cTropnT > 0.10 ...") unless it holds a placeholder or
-- matches a pattern of `not_results` (pipelines/exams/lab_comments.csv). A trailing '*' is MIMIC's
-- abnormal mark. `cases` (the windows), `lab_items` (itemid -> proposed name) and `not_results`
-- are registered by the caller.
WITH windowed AS (
    SELECT c.case_id, c.index_time, c.window_start, c.window_end, l.* EXCLUDE (subject_id, hadm_id)
    FROM read_parquet('{labevents}') l
    JOIN cases c ON c.hadm_id = l.hadm_id
    UNION ALL
    SELECT c.case_id, c.index_time, c.window_start, c.window_end, l.* EXCLUDE (subject_id, hadm_id)
    FROM read_parquet('{labevents}') l
    JOIN cases c ON c.subject_id = l.subject_id
    WHERE l.hadm_id IS NULL AND l.charttime < c.admittime
),
in_window AS (
    SELECT
        w.*,
        i.exam_name,
        i.raw_name,
        nullif(nullif(trim(w.value), ''), '___') AS written,
        -- the first sentence: up to a full stop before a space or the end ("<0.01." keeps its decimals)
        nullif(trim(coalesce(nullif(regexp_extract(w.comments, '^\s*(.*?)\s*\.(\s|$)', 1), ''), w.comments)), '')
            AS sentence
    FROM windowed w
    JOIN lab_items i ON i.itemid = w.itemid
    WHERE w.charttime BETWEEN w.window_start AND w.window_end
      AND w.storetime <= w.window_end
),
valued AS (
    SELECT *, coalesce(written, printf('%g', valuenum)) AS value_text, false AS starred
    FROM in_window
    WHERE written IS NOT NULL OR valuenum IS NOT NULL
),
commented AS (  -- only rows without a value: the patterns are tried on few rows
    SELECT *, nullif(rtrim(rtrim(sentence, '*')), '') AS value_text, ends_with(sentence, '*') AS starred
    FROM in_window r
    WHERE written IS NULL AND valuenum IS NULL AND NOT contains(sentence, '___')
      AND NOT EXISTS (SELECT 1 FROM not_results n WHERE regexp_matches(r.sentence, n.pattern, 'i'))
),
known AS (
    SELECT
        case_id,
        index_time,
        exam_name,
        raw_name,
        itemid,
        storetime,
        valuenum,
        value_text,
        starred,
        nullif(trim(valueuom), '') AS unit,
        ref_range_lower,
        ref_range_upper,
        nullif(trim(flag), '') AS flag
    FROM (SELECT * FROM valued UNION ALL BY NAME SELECT * FROM commented)
    WHERE value_text IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY case_id, itemid ORDER BY storetime, charttime, labevent_id) = 1
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
    -- falls outside the reference range printed beside it (or its comment carries the '*' mark).
    coalesce(flag IS NOT NULL OR starred OR valuenum < ref_range_lower OR valuenum > ref_range_upper, false) AS abnormal,
    date_diff('second', index_time, storetime) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_labevents:itemid=' || itemid AS source_ref,
    raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM known
ORDER BY case_id, offset_hours, exam_name
