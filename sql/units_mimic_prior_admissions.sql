-- How many times the patient was admitted (and discharged) before this admission.
SELECT c.case_id, count(*) AS n_prior
FROM cases c
JOIN read_parquet('{admissions}') a
  ON a.subject_id = c.subject_id AND a.dischtime < c.admittime
GROUP BY c.case_id
ORDER BY c.case_id
