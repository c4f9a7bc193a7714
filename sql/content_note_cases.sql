-- Notes written for a candidate MIMIC case's admission (discharge summaries and radiology
-- reports with the case's hadm_id), with the case's diagnosis for scrubbing.
SELECT
    n.note_id,
    s.case_id,
    s.diagnosis_name,
    s.acceptable_names,
    s.primary_icd10
FROM ({notes}) n
JOIN read_parquet('{provenance}') p ON p.hadm_id = n.hadm_id AND p.source = 'mimic_iv'
JOIN read_parquet('{skeleton}') s ON s.case_id = p.case_id
ORDER BY s.case_id, n.note_id
