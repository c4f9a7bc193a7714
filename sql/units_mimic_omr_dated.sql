-- The outpatient measurements (omr) of each case's patient dated BEFORE the admission day, as
-- `omr_dated` for sql/omr_checked.sql: what the patient was told at earlier clinic visits.
SELECT
    c.case_id,
    o.subject_id,
    o.chartdate,
    o.seq_num,
    trim(o.result_name) AS result_name,
    trim(o.result_value) AS result_value
FROM cases c
JOIN read_parquet('{omr}') o ON o.subject_id = c.subject_id
WHERE o.chartdate < CAST(c.admittime AS DATE)
  AND nullif(trim(o.result_value), '') IS NOT NULL
