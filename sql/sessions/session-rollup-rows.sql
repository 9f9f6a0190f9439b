-- @name sessions.session_rollup_rows
-- @returns fragment: the settled days' sessions of the window counted per breakdown (of `dimensions`), value and hour, or
--   day: [member,] prefix_value, name_value, sessions, views, bounced_sessions, duration
-- From session_rollup (migrations/002_derived_tables.sql), for windows whose bounds fall on whole hours (a
-- session starts in the window exactly when its hour does), read from the compactions the settled check
-- names (see sessions/window-sessions.sql). `rollup_hours` picks the rows of the window: a row per value and
-- hour (sessions/rollup-hours.sql), or for the pages of /pages/entry_exit a row per page and day over the
-- window's whole UTC days and per hour over the rest (sessions/rollup-days.sql). With several breakdowns,
-- `member` tells them apart (queries/sessions/rollup-rows.ts).
SELECT/* @member */
  prefix AS prefix_value,
  name AS name_value,
  sessions,
  views,
  bounced AS bounced_sessions,
  duration_ms AS duration
FROM session_rollup
WHERE project_id = {projectId:String}
  AND /* @rollup_hours */
  AND day >= {firstDay:Date}
  AND day <= {lastDay:Date}
  AND compaction IN (SELECT arrayJoin(CAST({settledCompactions:Array(String)}, 'Array(UInt64)')))
