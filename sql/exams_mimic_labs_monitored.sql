-- How many laboratory results of the cases' exam windows monitor a treatment the stay began
-- (`monitored`): the results sql/exams_mimic_labs.sql leaves out, found the way it finds results.
WITH windowed AS (
    SELECT c.case_id, c.window_start, c.window_end, l.itemid, l.charttime, l.storetime
    FROM read_parquet('{labevents}') l
    JOIN cases c ON c.hadm_id = l.hadm_id
    UNION ALL
    SELECT c.case_id, c.window_start, c.window_end, l.itemid, l.charttime, l.storetime
    FROM read_parquet('{labevents}') l
    JOIN cases c ON c.subject_id = l.subject_id
    WHERE l.hadm_id IS NULL AND l.charttime < c.admittime
)
SELECT count(*) AS n
FROM windowed w
JOIN monitored m ON m.case_id = w.case_id AND m.itemid = w.itemid
WHERE w.charttime BETWEEN w.window_start AND w.window_end
  AND w.storetime <= w.window_end
  AND w.charttime >= m.since
