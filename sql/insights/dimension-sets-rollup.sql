-- @name insights.dimension_sets_rollup
-- @returns member UInt32, prefix_value String, name_value String, session_count UInt64, view_count UInt64,
--   bounced UInt64, duration_total_ms Int64
-- the rows of several breakdowns as insights/dimension-sets.sql gives them, with `member` (a number:
--   queries/run/joined-runs.ts tells rows apart by it)
-- Breakdowns without filters whose window starts and ends on whole hours, asked together: the settled
-- days' counts of every member (insights/session-rollup-rows.sql, as insights/dimension-rollup.sql reads
-- them), each regrouped session once under every member.
SELECT
  member,
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
    toUInt32(member_value.1) AS member,
    member_value.2 AS prefix_value,
    member_value.3 AS name_value,
    toUInt64(1) AS sessions,
    all_views AS views,
    toUInt64(all_views <= 1) AS bounced_sessions,
    duration_ms AS duration
  FROM
  (
    /* @regrouped_sessions */
  ) AS regrouped
  ARRAY JOIN [/* @members */] AS member_value
) AS counted
GROUP BY member, prefix_value, name_value
ORDER BY member ASC, session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64} BY member
