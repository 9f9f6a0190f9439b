-- @name sessions.session_rollup_rows
-- @returns the settled days' sessions of the window counted per breakdown (of `dimensions`), value and hour:
--   [member,] prefix_value, name_value, sessions, views, bounced_sessions, duration
-- From session_rollup (migrations/002_derived_tables.sql), for windows whose bounds fall on whole hours (a
-- session starts in the window exactly when its hour does), read from the compactions the settled check
-- names (see insights/window-sessions.sql). Shared by insights/dimension-rollup.sql and
-- insights/dimension-sets-rollup.sql, which add `member` when several breakdowns are asked together.
SELECT/* @member */
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
  AND compaction IN (SELECT arrayJoin(CAST({settledCompactions:Array(String)}, 'Array(UInt64)')))
