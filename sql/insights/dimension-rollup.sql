-- @name insights.dimension_rollup
-- @returns as insights/dimension.sql: one row per (prefix, name) of the session attribute, in answer order,
--   one page plus one row: prefix_value, name_value, session_count, view_count, bounced, duration_total_ms
-- A breakdown without filters whose window starts and ends on whole hours: the settled days' sessions come
-- counted per value and hour of their start (session_rollup, migrations/017_session_rollup.sql; a session
-- starts in the window exactly when its hour does), read from the compactions the settled check names (see
-- insights/window-sessions.sql); the other days' sessions are regrouped from their partial rows.
WITH CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions
SELECT
  prefix_value,
  name_value,
  sum(sessions) AS session_count,
  sum(views) AS view_count,
  sum(bounced_sessions) AS bounced,
  sum(duration) AS duration_total_ms
FROM
(
  SELECT prefix AS prefix_value, name AS name_value, sessions, views, bounced AS bounced_sessions, duration_ms AS duration
  FROM session_rollup
  WHERE project_id = {projectId:String}
    AND dimension = /* @dimension */
    AND hour >= {start:DateTime64(3, 'UTC')}
    AND hour < {end:DateTime64(3, 'UTC')}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
    AND compaction IN (SELECT arrayJoin(settled_compactions))

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
