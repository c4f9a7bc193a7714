-- ICU chart values of the vital-sign items (`vital_items`, pipelines/exams/chart_vitals.csv, with
-- the plausible range `low`-`high` of pipelines/exams/plausible_ranges.csv) of each case's
-- admission, charted in its exam window and stored (storetime) by the window's end. Rows without a
-- number are no measurement. `problem` says why a value is impossible (then it is rejected).
-- `cases` (the windows) and `vital_items` are registered by the caller.
SELECT
    c.case_id,
    c.subject_id,
    c.index_time,
    i.exam_name,
    i.unit,
    i.ref_low,
    i.ref_high,
    e.itemid,
    e.stay_id,
    e.charttime,
    e.storetime,
    e.valuenum,
    CASE WHEN e.valuenum < i.low OR e.valuenum > i.high
         THEN printf('implausible %s: %g %s (possible %g-%g)', i.exam_name, e.valuenum, i.unit, i.low, i.high)
    END AS problem
FROM read_parquet('{chartevents}') e
JOIN cases c ON c.hadm_id = e.hadm_id
JOIN vital_items i ON i.itemid = e.itemid
WHERE e.valuenum IS NOT NULL
  AND e.charttime BETWEEN c.window_start AND c.window_end
  AND e.storetime <= c.window_end
