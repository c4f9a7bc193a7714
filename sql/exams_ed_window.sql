-- One row per vital sign of `ed_readings` (sql/exams_ed_readings.sql) with its exam and unit from
-- `vital_columns` (pipelines/exams/ed_vitals.csv with the plausible range `low`-`high`: the row with
-- the smallest `up_to` that admits the value). `problem` says why a value is impossible (then it is
-- rejected). `vital_columns` is registered by the caller.
WITH signs AS (
    UNPIVOT ed_readings
    ON temperature, heartrate, resprate, o2sat, sbp, dbp, pain
    INTO NAME "column" VALUE value
)
SELECT
    s.case_id,
    s.subject_id,
    s.stay_id,
    s.index_time,
    s.ed_table,
    s.charttime,
    s."column",
    s.value,
    v.exam_name,
    v.unit,
    v.ref_low,
    v.ref_high,
    CASE WHEN s.value < v.low OR s.value > v.high
         THEN printf('implausible %s: %g %s (possible %g-%g)', v.exam_name, s.value, v.unit, v.low, v.high)
    END AS problem
FROM signs s
JOIN vital_columns v ON v."column" = s."column" AND s.value <= coalesce(v.up_to, 'infinity'::DOUBLE)
QUALIFY row_number() OVER (
    PARTITION BY s.case_id, s.stay_id, s.ed_table, s.charttime, s."column"
    ORDER BY v.up_to NULLS LAST
) = 1
