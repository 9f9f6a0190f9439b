-- @name insights.sessions_matching
-- @returns fragment: session_id of every session started from the lookback before the window to its end whose
--   attributes pass the session-attribute filters
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
