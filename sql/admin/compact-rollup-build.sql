-- @name admin.compact-rollup-build
-- @returns nothing (insert)
-- One day's page rollup (migrations/002_derived_tables.sql), from the page rows the same compaction just
-- built (still in their staging table).
INSERT INTO page_rollup_stage
/* @job */
SELECT
  project_id,
  day,
  compaction,
  toStartOfHour(bucket) AS hour,
  origin,
  path,
  toStartOfHour(previous_at) AS previous_hour,
  count() AS rows_in_hour,
  sum(views) AS hour_views,
  sum(with_next) AS hour_with_next,
  sum(gap_total_ms) AS hour_gap_total_ms,
  -- Aliases of their own: a column's name would resolve to the aggregate (ILLEGAL_AGGREGATION).
  argMax(title, title_key) AS latest_title,
  max(title_key) AS latest_title_key
FROM page_views_settled_stage
WHERE day = job_day
  AND compaction = job_compaction
GROUP BY project_id, day, compaction, hour, origin, path, previous_hour
