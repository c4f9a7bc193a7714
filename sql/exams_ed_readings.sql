-- MIMIC-IV-ED vital-sign rows of each case's ED stay (`ed_stays`: case_id, stay_id, intime, from
-- sql/ed_case_stays.sql) charted in the case's exam window (`cases`, pipelines/exams/window.py;
-- charted at the bedside, so known at once): triage rows have no charttime and are charted at the
-- ED registration (intime), vitalsign rows at their charttime. A pain entry is a score when it is a
-- number ("8", "8/10"; "7-8": the upper bound), else `pain` is null and `pain_text` says what it was.
-- `cases` and `ed_stays` are registered by the caller.
WITH readings AS (
    SELECT s.case_id, s.stay_id, 'triage' AS ed_table, s.intime AS charttime,
           t.temperature, t.heartrate, t.resprate, t.o2sat, t.sbp, t.dbp, t.pain AS pain_text
    FROM ed_stays s
    JOIN read_parquet('{triage}') t USING (stay_id)
    UNION ALL
    SELECT s.case_id, s.stay_id, 'vitalsign', v.charttime,
           v.temperature, v.heartrate, v.resprate, v.o2sat, v.sbp, v.dbp, v.pain
    FROM ed_stays s
    JOIN read_parquet('{vitalsign}') v USING (stay_id)
)
SELECT
    r.*,
    c.subject_id,
    c.index_time,
    TRY_CAST(regexp_extract(trim(r.pain_text),
        '^(?:[0-9]+(?:\.[0-9]+)?\s*-\s*)?([0-9]+(?:\.[0-9]+)?)\s*(?:/\s*10)?$', 1) AS DOUBLE) AS pain
FROM readings r
JOIN cases c USING (case_id)
WHERE r.charttime BETWEEN c.window_start AND c.window_end
