-- Microbiology of each case's own admission: per test and specimen type, the FIRST specimen
-- (by when it was taken; storetime is when its result became known). The result lists the
-- organisms grown, or the laboratory's comment when nothing grew ('NO GROWTH.'). A culture with
-- an organism, or a test reported positive/reactive/detected, is abnormal. `cases` is registered
-- by the caller.
WITH rows AS (
    SELECT
        c.case_id,
        c.admittime,
        trim(m.test_name) AS test_name,
        trim(m.spec_type_desc) AS specimen,
        coalesce(m.charttime, m.chartdate) AS taken,
        m.storetime,
        nullif(nullif(trim(m.org_name), ''), '___') AS organism,
        nullif(nullif(trim(m.comments), ''), '___') AS comment
    FROM read_parquet('{microbiologyevents}') m
    JOIN cases c ON c.hadm_id = m.hadm_id
    WHERE nullif(trim(m.test_name), '') IS NOT NULL
),
first_specimen AS (
    SELECT case_id, test_name, specimen, min(taken) AS taken
    FROM rows
    GROUP BY ALL
),
specimens AS (
    SELECT
        r.case_id,
        any_value(r.admittime) AS admittime,
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
    case_id,
    CASE WHEN specimen IS NULL OR contains(lower(test_name), lower(specimen)) THEN test_name
         ELSE test_name || ' (' || specimen || ')' END AS exam_name,
    'microbiology' AS kind,
    CAST(NULL AS DOUBLE) AS value_num,
    coalesce(organisms, trim(comment), 'No organisms reported') AS value_text,
    CAST(NULL AS VARCHAR) AS unit,
    CAST(NULL AS DOUBLE) AS ref_low,
    CAST(NULL AS DOUBLE) AS ref_high,
    organisms IS NOT NULL
        OR coalesce(regexp_matches(lower(comment), '^\s*(positive|reactive|detected)'), false) AS abnormal,
    date_diff('second', admittime, known_at) / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'mimic_microbiologyevents:' || test_name || coalesce(':' || specimen, '') AS source_ref,
    test_name AS raw_name,
    CAST(NULL AS VARCHAR) AS loinc
FROM specimens
ORDER BY case_id, exam_name
