-- Laboratory results of each case within its exam window (pipelines/exams/window.py): charted in
-- [window_start, window_end] and stored (storetime) by window_end; rows of the case's admission,
-- or rows without an admission charted before it (ED labs). The FIRST result per lab item, in the
-- order results became known (storetime; charttime and labevent_id break ties).
-- The value text is `value`; the number when `value` is the '___' placeholder; else the first
-- sentence of `comments` ("NEG.", "<0.01.  cTropnT > 0.10 ...") unless it holds a placeholder or
-- says there is no result (`no_result`: pipelines/exams/lab_comments.csv). A trailing '*' is MIMIC's
-- abnormal mark. A `value` that `no_result` matches ("DONE") is no result either.
-- abnormal: MIMIC's flag or '*' mark; else the number against the range printed beside it, or a
-- bound ("<0.01", "GREATER THAN 300") that settles it; else a text value read by `qualitative`
-- (pipelines/exams/qualitative_values.csv: "POS", "LG"); else unknown (null), never a silent normal.
-- Results that monitor a treatment the stay began (`monitored`: case_id, itemid, since; from
-- pipelines/exams/monitoring.py) are left out from its start on: a PTT after a heparin drip.
-- `cases` (the windows), `lab_items` (itemid -> proposed name), the macro `no_result`, `qualitative`
-- (pattern, abnormal, ord) and `monitored` are registered by the caller.
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
    ANTI JOIN monitored m ON m.case_id = w.case_id AND m.itemid = w.itemid AND w.charttime >= m.since
    WHERE w.charttime BETWEEN w.window_start AND w.window_end
      AND w.storetime <= w.window_end
),
valued AS (
    SELECT *, coalesce(written, printf('%g', valuenum)) AS value_text, false AS starred
    FROM in_window r
    WHERE valuenum IS NOT NULL
       OR (written IS NOT NULL AND NOT no_result(r.written))
),
commented AS (  -- only rows without a value: the patterns are tried on few rows
    SELECT *, nullif(rtrim(rtrim(sentence, '*')), '') AS value_text, ends_with(sentence, '*') AS starred
    FROM in_window r
    WHERE written IS NULL AND valuenum IS NULL AND NOT contains(sentence, '___')
      AND NOT no_result(r.sentence)
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
),
bounded AS (
    SELECT *,
        try_cast(nullif(regexp_extract(value_text, '^\s*(?:>=?|greater than)\s*([0-9]*\.?[0-9]+)\s*$', 1, 'i'), '')
                 AS DOUBLE) AS above,
        try_cast(nullif(regexp_extract(value_text, '^\s*(?:<=?|less than)\s*([0-9]*\.?[0-9]+)\s*$', 1, 'i'), '')
                 AS DOUBLE) AS below
    FROM known
),
read_texts AS (  -- only unflagged text values, each distinct one once: patterns from a table are
                 -- no constant (each row is tried against each), and a few hundred texts repeat
    SELECT v.text, arg_min(q.abnormal, q.ord) AS reading
    FROM (SELECT DISTINCT trim(value_text) AS text FROM bounded
          WHERE flag IS NULL AND NOT starred AND valuenum IS NULL AND above IS NULL AND below IS NULL) v
    JOIN qualitative q ON regexp_full_match(v.text, q.pattern, 'i')
    GROUP BY v.text
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
    CASE
        WHEN flag IS NOT NULL OR starred THEN true
        WHEN valuenum IS NOT NULL AND (ref_range_lower IS NOT NULL OR ref_range_upper IS NOT NULL)
            THEN coalesce(valuenum < ref_range_lower OR valuenum > ref_range_upper, false)
        WHEN valuenum IS NOT NULL THEN NULL  -- no range to judge it by
        WHEN above IS NOT NULL THEN CASE WHEN above >= ref_range_upper THEN true END
        WHEN below IS NOT NULL THEN CASE WHEN below <= ref_range_lower THEN true
                                         WHEN coalesce(ref_range_lower, 0) <= 0 AND below <= ref_range_upper THEN false END
        ELSE t.reading
    END AS abnormal,
    date_diff('second', index_time, storetime) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_labevents:itemid=' || itemid AS source_ref,
    raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM bounded
LEFT JOIN read_texts t ON t.text = trim(value_text)  -- read only where the CASE reaches it: the same rows
ORDER BY case_id, offset_hours, exam_name
