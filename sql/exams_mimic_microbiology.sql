-- Microbiology of each case within its exam window (pipelines/exams/window.py): rows of specimens
-- taken in the window (charttime; a date-only specimen from the window's first day) of the case's
-- admission or, without an admission, taken before it, whose result was stored (storetime) by the
-- window's end, so a culture finalised days later is not a result. Per test and specimen type, the
-- FIRST specimen; its result lists the organisms grown, or the laboratory's comment ('NO GROWTH.').
-- A culture with an organism, or a test reported positive/reactive/detected, is abnormal. A row
-- without an organism whose comment says there is no result ('Test cancelled by laboratory.',
-- the macro `no_result`, pipelines/exams/lab_comments.csv) is none.
-- Specimens only a procedure yields (`procedure_specimens`: spec_type_desc -> label, from
-- pipelines/exams/procedure_specimens.csv) are named "<label>: <test>" and keep the specimen in
-- their source name, so that they are returned only by their procedure's test.
-- `cases` (the windows), `procedure_specimens` and the macro `no_result` are registered by the caller.
WITH windowed AS (
    SELECT c.case_id, c.index_time, c.window_start, c.window_end, m.* EXCLUDE (subject_id, hadm_id)
    FROM read_parquet('{microbiologyevents}') m
    JOIN cases c ON c.hadm_id = m.hadm_id
    UNION ALL
    SELECT c.case_id, c.index_time, c.window_start, c.window_end, m.* EXCLUDE (subject_id, hadm_id)
    FROM read_parquet('{microbiologyevents}') m
    JOIN cases c ON c.subject_id = m.subject_id
    WHERE m.hadm_id IS NULL AND coalesce(m.charttime, m.chartdate) < c.admittime
),
in_window AS (
    SELECT
        case_id,
        index_time,
        trim(test_name) AS test_name,
        trim(spec_type_desc) AS specimen,
        coalesce(charttime, chartdate) AS taken,
        storetime,
        nullif(nullif(trim(org_name), ''), '___') AS organism,
        nullif(nullif(trim(comments), ''), '___') AS comment
    FROM windowed
    WHERE nullif(trim(test_name), '') IS NOT NULL
      AND storetime <= window_end
      AND coalesce(charttime >= window_start, chartdate >= date_trunc('day', window_start))
      AND coalesce(charttime, chartdate) <= window_end
),
rows AS (
    SELECT *
    FROM in_window r
    WHERE r.organism IS NOT NULL OR r.comment IS NULL
       OR NOT no_result(r.comment)
),
first_specimen AS (
    SELECT case_id, test_name, specimen, min(taken) AS taken
    FROM rows
    GROUP BY ALL
),
specimens AS (
    SELECT
        r.case_id,
        any_value(r.index_time) AS index_time,
        r.test_name,
        r.specimen,
        min(r.storetime) AS known_at,
        string_agg(DISTINCT r.organism, '; ' ORDER BY r.organism) AS organisms,
        min(r.comment) AS comment
    FROM rows r
    JOIN first_specimen f USING (case_id, test_name, specimen)
    WHERE r.taken IS NOT DISTINCT FROM f.taken
    GROUP BY r.case_id, r.test_name, r.specimen
)
SELECT
    s.case_id,
    CASE WHEN p.label IS NOT NULL THEN p.label || ': ' || s.test_name
         WHEN s.specimen IS NULL OR contains(lower(s.test_name), lower(s.specimen)) THEN s.test_name
         ELSE s.test_name || ' (' || s.specimen || ')' END AS exam_name,
    'microbiology' AS kind,
    CAST(NULL AS DOUBLE) AS value_num,
    coalesce(s.organisms, trim(s.comment), 'No organisms reported') AS value_text,
    CAST(NULL AS VARCHAR) AS unit,
    CAST(NULL AS DOUBLE) AS ref_low,
    CAST(NULL AS DOUBLE) AS ref_high,
    s.organisms IS NOT NULL
        OR coalesce(regexp_matches(lower(s.comment), '^\s*(positive|reactive|detected)'), false) AS abnormal,
    date_diff('second', s.index_time, s.known_at) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_microbiologyevents:' || s.test_name || coalesce(':' || s.specimen, '') AS source_ref,
    CASE WHEN p.label IS NOT NULL THEN s.test_name || ' (' || s.specimen || ')' ELSE s.test_name END AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM specimens s
LEFT JOIN procedure_specimens p ON p.specimen_key = lower(s.specimen)
ORDER BY s.case_id, exam_name
