-- @name insights.dimension_rollup
-- @returns prefix_value String, name_value String, session_count UInt64, view_count UInt64, bounced UInt64,
--   duration_total_ms Int64
-- as insights/dimension.sql: one row per (prefix, name) of the session attribute, in answer order,
--   one page plus one row: prefix_value, name_value, session_count, view_count, bounced, duration_total_ms
-- A breakdown without filters whose window starts and ends on whole hours: the settled days' sessions come
-- counted per value and hour of their start, the other days' are regrouped from their partial rows
-- (insights/rollup-counts.sql). `kept_keys`: as in insights/dimension.sql.
SELECT
  prefix_value,
  name_value,
  /* @rollup_counts */
GROUP BY prefix_value, name_value/* @kept_keys */
ORDER BY session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
