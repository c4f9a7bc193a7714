-- Per published canonical name: its kind (the most frequent; alphabetical on ties), every source
-- name seen (raw and proposed), a LOINC code where any candidate or the alias table has one, and
-- the number of cases that have it.
WITH published AS (
    SELECT r.case_id, r.exam_name, r.kind, f.raw_name, f.exam_name AS proposed, f.any_loinc
    FROM read_parquet('{results}') r
    JOIN first f ON f.case_id = r.case_id AND f.canonical = r.exam_name
),
kinds AS (
    SELECT exam_name, kind
    FROM (SELECT exam_name, kind, count(*) AS n FROM published GROUP BY ALL)
    QUALIFY row_number() OVER (PARTITION BY exam_name ORDER BY n DESC, kind) = 1
)
SELECT
    p.exam_name,
    any_value(k.kind) AS kind,
    list_distinct(list(p.raw_name) || list(p.proposed)) AS raw_names,
    min(p.any_loinc) AS loinc,
    count(DISTINCT p.case_id) AS n_cases
FROM published p
JOIN kinds k USING (exam_name)
GROUP BY p.exam_name
ORDER BY p.exam_name
