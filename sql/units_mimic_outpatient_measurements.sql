-- The most recent possible outpatient measurement of each kind (blood pressure, weight, BMI,
-- height) of `omr_checked` (sql/omr_checked.sql over sql/omr_dated.sql, before the admission
-- day): what the patient was told at their last clinic visit. An impossible value (a BMI of
-- 4,649) is a reject (sql/omr_rejects.sql), and the reading before it is the last one the
-- patient could report. Of two readings with one day and sequence number (the demo has them), the
-- first value in text order, so that the choice does not depend on the order the rows are read in.
SELECT case_id, result_name, result_value
FROM omr_checked
WHERE problem IS NULL
QUALIFY row_number() OVER (PARTITION BY case_id, result_name ORDER BY chartdate DESC, seq_num, result_value) = 1
ORDER BY case_id, result_name
