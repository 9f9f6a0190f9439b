-- @name insights.dimension_sets_rollup
-- @returns the rows of several breakdowns as insights/dimension-sets.sql gives them, with `member` (a number:
--   queries/core/joined-runs.ts tells rows apart by it)
-- Breakdowns without filters whose window starts and ends on whole hours, asked together: the settled
-- days' counts of every member from session_rollup (as insights/dimension-rollup.sql), each regrouped
-- session once under every member.
WITH CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions
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
  SELECT
    toUInt32(indexOf([/* @dimensions */], dimension) - 1) AS member,
    prefix AS prefix_value,
    name AS name_value,
    sessions,
    views,
    bounced AS bounced_sessions,
    duration_ms AS duration
  FROM session_rollup
  WHERE project_id = {projectId:String}
    AND dimension IN (/* @dimensions */)
    AND hour >= {start:DateTime64(3, 'UTC')}
    AND hour < {end:DateTime64(3, 'UTC')}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
    AND compaction IN (SELECT arrayJoin(settled_compactions))

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
