-- @name sessions.session_rollup_days
-- @returns the settled days' sessions of the window counted per page member (of `dimensions`), value and
--   hour or day: [member,] prefix_value, name_value, sessions, views, bounced_sessions, duration
-- As insights/session-rollup-rows.sql, for the pages of /pages/entry_exit, which session_rollup also holds
-- by the UTC day of the sessions' start (`day_dimensions`, whose `hour` is the day's start; see
-- admin/compact-session-rollup-build.sql): the window's whole UTC days [wholeFrom, wholeTo) are read a
-- row per page and day, and only its hours before and after them a row per page and hour. With no whole
-- day, wholeFrom and wholeTo are both the window's end: its hours are all read by the hour.
SELECT/* @member */
  prefix AS prefix_value,
  name AS name_value,
  sessions,
  views,
  bounced AS bounced_sessions,
  duration_ms AS duration
FROM session_rollup
WHERE project_id = {projectId:String}
  AND (
    (
      dimension IN (/* @day_dimensions */)
      AND hour >= {wholeFrom:DateTime64(3, 'UTC')}
      AND hour < {wholeTo:DateTime64(3, 'UTC')}
    )
    OR (
      dimension IN (/* @dimensions */)
      AND (
        (hour >= {start:DateTime64(3, 'UTC')} AND hour < {wholeFrom:DateTime64(3, 'UTC')})
        OR (hour >= {wholeTo:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')})
      )
    )
  )
  AND day >= {firstDay:Date}
  AND day <= {lastDay:Date}
  AND compaction IN (SELECT arrayJoin(CAST({settledCompactions:Array(String)}, 'Array(UInt64)')))
