-- @name insights.window_sessions
-- @returns per session that starts in the window and passes the session-attribute filters (event-field
--   filters join on after, see session-events.sql): session_id, session_start,
--   duration_ms, all_views, visitor, and s_<attribute> for each attribute asked for
-- A session may have several partial rows (see migrations/002_sessions.sql); they are combined here:
-- earliest start, latest end, all page views, and the attributes of the earliest first event (ties by
-- the first event's id text). Rows are read from a lookback before the window to as long after it, so
-- a session that began before the window is recognised and left out, and one that runs past the
-- window's end keeps its later rows.
SELECT
  session_id,
  min(started_at) AS session_start,
  dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
  sum(screen_views) AS all_views,
  argMin(profile_id, first_event_key) AS visitor/* @attributes */
FROM sessions
WHERE project_id = {projectId:String}
  AND started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
GROUP BY session_id
HAVING session_start >= {start:DateTime64(3, 'UTC')}
  AND session_start < {end:DateTime64(3, 'UTC')}
  /* @session_filters */
