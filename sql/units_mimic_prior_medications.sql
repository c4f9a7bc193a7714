-- Home medications as the patient knows them: what the most recent EARLIER admission sent the
-- patient home on, i.e. main (not base/additive) prescriptions still running in its last
-- 24 hours, by an outpatient route (oral, enteral, subcutaneous, inhaled, topical, sublingual,
-- nasal, rectal, ophthalmic/otic). Infusions, injections and flushes stayed in hospital.
WITH last_prior AS (
    SELECT c.case_id, a.hadm_id, a.dischtime
    FROM cases c
    JOIN read_parquet('{admissions}') a
      ON a.subject_id = c.subject_id AND a.dischtime < c.admittime
    QUALIFY row_number() OVER (PARTITION BY c.case_id ORDER BY a.dischtime DESC, a.hadm_id) = 1
)
SELECT
    l.case_id,
    trim(p.drug) AS drug,
    min(trim(p.dose_val_rx)) AS dose,
    min(trim(p.dose_unit_rx)) AS dose_unit,
    min(upper(trim(p.route))) AS route
FROM last_prior l
JOIN read_parquet('{prescriptions}') p ON p.hadm_id = l.hadm_id
WHERE upper(p.drug_type) = 'MAIN'
  AND nullif(trim(p.drug), '') IS NOT NULL
  AND (p.stoptime IS NULL OR p.stoptime >= l.dischtime - INTERVAL 24 HOUR)
  AND regexp_matches(upper(trim(p.route)),
        '^(PO|PO/NG|NG|ORAL|PO OR ENTERAL TUBE|ENTERAL TUBE|SC|SUBCUT|IH|INHALATION|NEB|TP|TD|TOPICAL|SL|BU|NU|NAS|PR|OU|OD|OS|LEFT EYE|RIGHT EYE|BOTH EYES|AU|AS|AD)$')
  AND NOT regexp_matches(lower(p.drug), 'flush|sodium chloride 0\.9|dextrose|sterile water')
GROUP BY ALL
ORDER BY l.case_id, drug
