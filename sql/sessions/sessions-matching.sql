-- @name sessions.sessions_matching
-- @returns fragment: a condition on session_id: true for every session started from the lookback before the window to
--   its end whose attributes pass the session-attribute filters
session_id IN (
SELECT session_id
FROM
(
  SELECT session_id/* @attributes */
  FROM sessions
  WHERE project_id = {projectId:String}
    AND started_at >= {readFrom:DateTime64(3, 'UTC')}
    AND started_at < {end:DateTime64(3, 'UTC')}
  GROUP BY session_id
  HAVING 1 /* @session_filters */
)
)
