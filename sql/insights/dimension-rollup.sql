-- @name insights.dimension_rollup
-- @returns prefix_value String, name_value String, session_count UInt64, view_count UInt64, bounced UInt64,
--   duration_total_ms Int64
-- as insights/dimension.sql: one row per (prefix, name) of the session attribute, in answer order,
--   one page plus one row: prefix_value, name_value, session_count, view_count, bounced, duration_total_ms
-- A breakdown without filters whose window starts and ends on whole hours: the settled days' sessions come
-- counted per value and hour of their start (insights/session-rollup-rows.sql); the other days' sessions
-- are regrouped from their partial rows.
SELECT
  prefix_value,
  name_value,
  sum(sessions) AS session_count,
  sum(views) AS view_count,
  sum(bounced_sessions) AS bounced,
  sum(duration) AS duration_total_ms
FROM
(
  /* @rollup_rows */

  UNION ALL

  SELECT
    /* @prefix */ AS prefix_value,
    /* @name */ AS name_value,
    toUInt64(1) AS sessions,
    all_views AS views,
    toUInt64(all_views <= 1) AS bounced_sessions,
    duration_ms AS duration
  FROM
  (
    /* @regrouped_sessions */
  ) AS regrouped
) AS counted
GROUP BY prefix_value, name_value
ORDER BY session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
