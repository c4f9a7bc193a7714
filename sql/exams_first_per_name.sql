-- Every candidate of a skeleton case under its canonical name (`names`, from
-- pipelines.exams.catalog), keeping ONE result per case and name: the earliest known
-- (offset_hours; unknown offsets last), then by producer (`partition_order`), then by source
-- reference, so the choice is deterministic. Non-exams were removed by the producers.
WITH candidates AS (
    SELECT c.* EXCLUDE (filename), regexp_extract(c.filename, '{partition_of_path}', 1) AS partition
    FROM read_parquet('{candidates}', filename = true) c
),
named AS (
    SELECT
        c.*,
        n.canonical,
        n.canonical_kind,
        coalesce(c.loinc, n.loinc) AS any_loinc,
        coalesce(o.rank, 99) AS partition_rank
    FROM candidates c
    SEMI JOIN read_parquet('{skeleton}') s ON s.case_id = c.case_id
    JOIN names n ON n.exam_name = c.exam_name AND n.kind = c.kind
    LEFT JOIN partition_order o ON o.partition = c.partition
)
SELECT *
FROM named
QUALIFY row_number() OVER (
    PARTITION BY case_id, canonical
    ORDER BY offset_hours NULLS LAST, partition_rank, source_ref, exam_name, value_text
) = 1
