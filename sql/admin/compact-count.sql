-- @name admin.compact-count
-- @returns per project, the partial rows of one day's read range: project_id, partial_rows
-- Counted BEFORE the day is built: a row inserted meanwhile makes the recorded count too low, so the day
-- reads as changed (and is regrouped) until the next compaction, never as settled without that row.
SELECT project_id, count() AS partial_rows
FROM sessions
WHERE started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
GROUP BY project_id
