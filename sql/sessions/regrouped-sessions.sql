-- @name sessions.regrouped_sessions
-- @returns fragment: per session that starts in the window on a day read from partial rows and passes the
--   session-attribute filters: the columns of sessions/window-sessions.sql, combined from its partial rows
-- The partial rows (migrations/001_source_tables.sql) of regroupFrom to regroupTo (see window-sessions.sql) are
-- combined by their stored session_key (migrations/001_source_tables.sql): earliest start, latest end, all
-- page views, and the attributes of the earliest first event (ties by the first event's id text), its
-- profile_key the visitor. `chosen_sessions` narrows the read to sessions chosen before it (a sessions list's
-- page: queries/sessions/sessions-page.ts).
SELECT
  any(session_id) AS session_id,
  min(started_at) AS session_start,
  dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
  sum(screen_views) AS all_views,
  argMin(profile_key, first_event_key) AS visitor_key/* @attributes */
FROM sessions
WHERE project_id = {projectId:String}
  AND started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
  AND started_at >= {regroupFrom:DateTime64(3, 'UTC')}
  AND started_at < {regroupTo:DateTime64(3, 'UTC')}/* @chosen_sessions */
GROUP BY session_key
HAVING session_start >= {start:DateTime64(3, 'UTC')}
  AND session_start < {end:DateTime64(3, 'UTC')}
  AND NOT has({settledDays:Array(Date)}, toDate(session_start))
  /* @session_filters */
