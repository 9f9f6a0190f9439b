-- @name admin.compact-session-rollup-build
-- @returns nothing (insert)
-- One day's session rollup (migrations/002_derived_tables.sql), from the sessions the same compaction just
-- built (still in their staging table): each session once under every breakdown, by the hour of its start,
-- and under the pages of /pages/entry_exit: `entry_page` (its entry origin and path as prefix and name),
-- `exit_page` (its exit page; none without a page view) and `page_views` once per page it viewed, whose
-- views are its views of that page (the exit rate's denominator), not all of its views.
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
  sum(breakdown.4) AS views,
  countIf(all_views <= 1) AS bounced,
  -- An alias of its own: the column's name would resolve to the aggregate (ILLEGAL_AGGREGATION).
  sum(duration_ms) AS duration_total
FROM sessions_settled_stage
ARRAY JOIN arrayConcat(
  arrayMap(breakdown -> (breakdown.1, toString(breakdown.2), toString(breakdown.3), toUInt64(all_views)), [/* @breakdowns */, ('entry_page', s_entry_origin, s_entry_path)]),
  if(all_views > 0, [('exit_page', toString(s_exit_origin), s_exit_path, toUInt64(all_views))], []),
  arrayFilter(
    page -> page.4 > 0,
    arrayMap((origin, path, views) -> ('page_views', toString(origin), path, toUInt64(views)), page_origins, page_paths, page_views)
  )
) AS breakdown
WHERE day = job_day
  AND compaction = job_compaction
GROUP BY project_id, day, compaction, dimension, hour, prefix, name
