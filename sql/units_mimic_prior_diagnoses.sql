-- Diagnoses coded at the patient's EARLIER admissions (discharged before this admission began):
-- past history the patient can report. One row per case and distinct code, from the most recent
-- earlier admission that carried it. `cases` is registered by the caller.
SELECT
    c.case_id,
    trim(d.icd_code) AS icd_code,
    d.icd_version,
    t.long_title AS title,
    a.dischtime AS coded_at
FROM cases c
JOIN read_parquet('{admissions}') a
  ON a.subject_id = c.subject_id AND a.dischtime < c.admittime
JOIN read_parquet('{diagnoses_icd}') d ON d.hadm_id = a.hadm_id
JOIN read_parquet('{d_icd_diagnoses}') t
  ON t.icd_code = trim(d.icd_code) AND t.icd_version = d.icd_version
QUALIFY row_number() OVER (
    PARTITION BY c.case_id, trim(d.icd_code), d.icd_version ORDER BY a.dischtime DESC, d.seq_num
) = 1
ORDER BY c.case_id, icd_code
