-- Outpatient-record measurements (omr: blood pressure, weight, BMI, height) of each case's patient
-- dated within a window (`cases`: case_id, subject_id, window_start, window_end, registered by the
-- caller), as `omr_dated` for sql/omr_checked.sql. omr keeps dates only, so a measurement counts
-- when its whole day lies in the window: from the window's first day to the last day that ends by
-- the window's end. Exams: the case's exam window; history: everything before the admission day.
SELECT
    c.case_id,
    o.subject_id,
    o.chartdate,
    o.seq_num,
    trim(o.result_name) AS result_name,
    trim(o.result_value) AS result_value
FROM read_parquet('{omr}') o
JOIN cases c ON c.subject_id = o.subject_id
WHERE o.chartdate >= CAST(c.window_start AS DATE)
  AND o.chartdate + INTERVAL 1 DAY <= c.window_end
  AND nullif(trim(o.result_value), '') IS NOT NULL
