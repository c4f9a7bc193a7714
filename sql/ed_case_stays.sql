-- The MIMIC-IV-ED stay of each case's admission (`cases`: case_id, subject_id, hadm_id, admittime,
-- registered by the caller): edstays.hadm_id links them. An earlier visit sent home can carry the
-- same hadm_id, so the stay is the last one registered by the admission time, else the first.
SELECT
    c.case_id,
    e.stay_id,
    e.intime,
    e.outtime
FROM cases c
JOIN read_parquet('{edstays}') e ON e.hadm_id = c.hadm_id AND e.subject_id = c.subject_id
QUALIFY row_number() OVER (
    PARTITION BY c.case_id
    ORDER BY e.intime <= c.admittime DESC,
             CASE WHEN e.intime <= c.admittime THEN e.intime END DESC NULLS LAST,
             e.intime, e.stay_id
) = 1
ORDER BY c.case_id
