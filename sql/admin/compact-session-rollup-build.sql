-- @name admin.compact-session-rollup-build
-- @returns nothing (insert)
-- One day's session rollup (migrations/002_derived_tables.sql), from the sessions the same compaction just
-- built (still in their staging table): each session once under every breakdown, by the hour of its start,
-- and under the pages of /pages/entry_exit: `entry_page` (its entry origin and path as prefix and name),
-- `exit_page` (its exit page; none without a page view) and `page_views` once per page it viewed, whose
-- views are its views of that page (the exit rate's denominator), not all of its views. The pages come
-- twice: by the hour of the session's start, and by its UTC day as `entry_page_day`, `exit_page_day` and
-- `page_views_day` (`hour` holds the day's start), so a window reads its whole days a row per page and
-- day, not per page and hour (sessions/rollup-days.sql).
INSERT INTO session_rollup_stage
/* @job */
SELECT
  project_id,
  day,
  compaction,
  breakdown.1 AS dimension,
  breakdown.5 AS hour,
  breakdown.2 AS prefix,
  breakdown.3 AS name,
  count() AS sessions,
  sum(breakdown.4) AS views,
  countIf(all_views <= 1) AS bounced,
  -- An alias of its own: the column's name would resolve to the aggregate (ILLEGAL_AGGREGATION).
  sum(duration_ms) AS duration_total
FROM sessions_settled_stage
ARRAY JOIN arrayConcat(
  arrayMap(
    breakdown -> (breakdown.1, toString(breakdown.2), toString(breakdown.3), toUInt64(all_views), toDateTime(toStartOfHour(session_start), 'UTC')),
    [/* @breakdowns */]
  ),
  arrayMap(
    page -> (page.1, page.2, page.3, page.4, toDateTime(toStartOfHour(session_start), 'UTC')),
    arrayConcat(
      [('entry_page', toString(s_entry_origin), s_entry_path, toUInt64(all_views))],
      if(all_views > 0, [('exit_page', toString(s_exit_origin), s_exit_path, toUInt64(all_views))], []),
      arrayFilter(
        page -> page.4 > 0,
        arrayMap((origin, path, views) -> ('page_views', toString(origin), path, toUInt64(views)), page_origins, page_paths, page_views)
      )
    ) AS session_pages
  ),
  arrayMap(page -> (concat(page.1, '_day'), page.2, page.3, page.4, toDateTime(toStartOfDay(session_start), 'UTC')), session_pages)
) AS breakdown
WHERE day = job_day
  AND compaction = job_compaction
GROUP BY project_id, day, compaction, dimension, hour, prefix, name
