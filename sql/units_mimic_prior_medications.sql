-- Discharge prescriptions of the patient's most recent EARLIER admission: main (not base/additive)
-- orders that were still running when the patient left (started by and stopped at or after its
-- dischtime; MIMIC stamps orders that end with the stay a few hours after dischtime), in a fixed
-- order. Which of them are home medications is decided by pipelines.units.medications (route,
-- inpatient-only drugs, as-needed orders), which also keeps one per drug.
WITH last_prior AS (
    SELECT c.case_id, a.hadm_id, a.dischtime
    FROM cases c
    JOIN read_parquet('{admissions}') a
      ON a.subject_id = c.subject_id AND a.dischtime < c.admittime
    QUALIFY row_number() OVER (PARTITION BY c.case_id ORDER BY a.dischtime DESC, a.hadm_id) = 1
)
SELECT DISTINCT
    l.case_id,
    trim(p.drug) AS drug,
    trim(p.dose_val_rx) AS dose,
    trim(p.dose_unit_rx) AS dose_unit,
    upper(trim(p.route)) AS route,
    trim(p.doses_per_24_hrs) AS doses_per_24_hrs
FROM last_prior l
JOIN read_parquet('{prescriptions}') p ON p.hadm_id = l.hadm_id
WHERE upper(p.drug_type) = 'MAIN'
  AND nullif(trim(p.drug), '') IS NOT NULL
  AND p.starttime <= l.dischtime
  AND p.stoptime >= l.dischtime
ORDER BY ALL
