-- The most recent outpatient measurement of each kind (blood pressure, weight, BMI, height) in
-- omr dated BEFORE the admission day: what the patient was told at their last clinic visit.
SELECT
    c.case_id,
    trim(o.result_name) AS result_name,
    trim(o.result_value) AS result_value
FROM cases c
JOIN read_parquet('{omr}') o ON o.subject_id = c.subject_id
WHERE o.chartdate < CAST(c.admittime AS DATE)
  AND nullif(trim(o.result_value), '') IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY c.case_id, trim(o.result_name) ORDER BY o.chartdate DESC, o.seq_num
) = 1
ORDER BY c.case_id, result_name
