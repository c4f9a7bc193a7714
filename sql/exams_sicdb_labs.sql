-- SICdb laboratory results of each case: the FIRST value per LaboratoryID (by Offset, seconds
-- from ICU admission; the value breaks ties), named through d_references
-- (ReferenceGlobalID = LaboratoryID). `cases` and `lab_names` (id -> name, unit, LOINC) are
-- registered by the caller.
WITH known AS (
    SELECT c.case_id, l.LaboratoryID, l.Offset, l.LaboratoryValue
    FROM read_parquet('{laboratory}') l
    JOIN cases c ON c.sicdb_case_id = l.CaseID
    WHERE l.LaboratoryValue IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY c.case_id, l.LaboratoryID ORDER BY l.Offset, l.LaboratoryValue
    ) = 1
)
SELECT
    k.case_id,
    n.exam_name,
    'lab' AS kind,
    k.LaboratoryValue AS value_num,
    CAST(k.LaboratoryValue AS VARCHAR) AS value_text,
    n.unit,
    n.ref_low,
    n.ref_high,
    CASE WHEN n.ref_low IS NULL AND n.ref_high IS NULL THEN NULL
         ELSE coalesce(k.LaboratoryValue < n.ref_low OR k.LaboratoryValue > n.ref_high, false) END AS abnormal,
    k.Offset / 3600.0 AS offset_hours,
    'recorded' AS origin,
    'sicdb_laboratory:LaboratoryID=' || k.LaboratoryID AS source_ref,
    n.raw_name,
    n.loinc
FROM known k
JOIN lab_names n ON n.reference_id = k.LaboratoryID
ORDER BY k.case_id, offset_hours, n.exam_name
