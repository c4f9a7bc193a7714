-- exam_results from the first result per case and canonical name (table `first`), without the
-- exams whose name gives the diagnosis away (`dropped_names`) and with reports that named it
-- scrubbed (`scrubbed_texts`); both come from pipelines.content.leakage_guard.
SELECT
    f.case_id,
    f.canonical AS exam_name,
    f.canonical_kind AS kind,
    f.value_num,
    coalesce(t.scrubbed, f.value_text) AS value_text,
    f.unit,
    f.ref_low,
    f.ref_high,
    f.abnormal,
    f.offset_hours,
    f.origin,
    f.source_ref
FROM first f
JOIN dx USING (case_id)
LEFT JOIN scrubbed_texts t ON t.dx_key = dx.dx_key AND t.value_text = f.value_text
ANTI JOIN dropped_names d ON d.dx_key = dx.dx_key AND d.exam_name = f.canonical
ORDER BY f.case_id, f.offset_hours NULLS LAST, exam_name
