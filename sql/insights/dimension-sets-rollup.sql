-- @name insights.dimension_sets_rollup
-- @returns member UInt32, prefix_value String, name_value String, session_count UInt64, view_count UInt64,
--   bounced UInt64, duration_total_ms Int64
-- the rows of several breakdowns as insights/dimension-sets.sql gives them, with `member` (a number:
--   queries/run/joined-runs.ts tells rows apart by it)
-- Breakdowns without filters whose window starts and ends on whole hours, asked together: the settled
-- days' counts of every member and each regrouped session once under every member (insights/rollup-counts.sql).
SELECT
  member,
  prefix_value,
  name_value,
  /* @rollup_counts */
GROUP BY member, prefix_value, name_value
ORDER BY member ASC, session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64} BY member
