-- @name admin.compact-session-rollup-build
-- @returns nothing (insert)
-- One day's session rollup (migrations/002_derived_tables.sql), from the sessions the same compaction just
-- built (still in their staging table): each session once under every breakdown, by the hour of its start.
INSERT INTO session_rollup_stage
/* @job */
SELECT
  project_id,
  day,
  compaction,
  breakdown.1 AS dimension,
  toStartOfHour(session_start) AS hour,
  breakdown.2 AS prefix,
  breakdown.3 AS name,
  count() AS sessions,
  sum(all_views) AS views,
  countIf(all_views <= 1) AS bounced,
  -- An alias of its own: the column's name would resolve to the aggregate (ILLEGAL_AGGREGATION).
  sum(duration_ms) AS duration_total
FROM sessions_settled_stage
ARRAY JOIN [/* @breakdowns */] AS breakdown
WHERE day = job_day
  AND compaction = job_compaction
GROUP BY project_id, day, compaction, dimension, hour, prefix, name
