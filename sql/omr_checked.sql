-- The omr measurements of `omr_dated` (case_id, subject_id, chartdate, seq_num, result_name,
-- result_value: sql/omr_dated.sql) with their unit and `problem`: why a value is impossible, NULL
-- when it is possible.
-- `omr_names` (per result_name its unit and plausible range, or the systolic and diastolic ranges
-- of a blood pressure written SBP/DBP; pipelines/exams/measurements.py) is registered by the caller.
WITH measured AS (
    SELECT
        d.*,
        m.unit,
        m.pressure,
        TRY_CAST(d.result_value AS DOUBLE) AS value_num,
        TRY_CAST(nullif(regexp_extract(d.result_value, '^(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)$', 1), '') AS DOUBLE) AS sbp,
        TRY_CAST(nullif(regexp_extract(d.result_value, '^(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)$', 2), '') AS DOUBLE) AS dbp,
        m.low, m.high, m.sys_low, m.sys_high, m.dia_low, m.dia_high
    FROM omr_dated d
    JOIN omr_names m USING (result_name)
)
SELECT
    *,
    CASE
        WHEN pressure AND (sbp IS NULL OR dbp IS NULL) THEN printf('%s %s is not written SBP/DBP', result_name, result_value)
        WHEN pressure AND (sbp < sys_low OR sbp > sys_high)
            THEN printf('implausible systolic %s: %g mmHg (possible %g-%g)', result_name, sbp, sys_low, sys_high)
        WHEN pressure AND (dbp < dia_low OR dbp > dia_high)
            THEN printf('implausible diastolic %s: %g mmHg (possible %g-%g)', result_name, dbp, dia_low, dia_high)
        WHEN pressure AND sbp <= dbp THEN printf('implausible %s %s: systolic not above diastolic', result_name, result_value)
        WHEN low IS NOT NULL AND value_num IS NULL THEN printf('%s %s is not a number', result_name, result_value)
        WHEN value_num < low OR value_num > high
            THEN printf('implausible %s: %g %s (possible %g-%g)', result_name, value_num, unit, low, high)
    END AS problem
FROM measured
