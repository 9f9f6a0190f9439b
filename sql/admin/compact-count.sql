-- @name admin.compact-count
-- @returns project_id LowCardinality(String), partial_rows UInt64
-- per project, the partial rows of one day's read range: project_id, partial_rows
-- Counted BEFORE the day is built: a row inserted meanwhile makes the recorded count too low, so the day
-- reads as changed (and is regrouped) until the next compaction, never as settled without that row.
-- The read range is the job's (admin/compaction-job.sql): no bound parameter, so it runs beside data statements.
/* @job */
SELECT project_id, count() AS partial_rows
FROM sessions
WHERE started_at >= job_read_from
  AND started_at < job_read_to
GROUP BY project_id
