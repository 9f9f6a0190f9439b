-- @name sessions.sessions_with_event
-- @returns fragment: a condition on session_id: true for every session with at least one event matching all
--   event-field filters
-- Events of the sessions an answer can count lie between the lookback before the window and the
-- lookback after it.
session_id IN (
SELECT DISTINCT session_id
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {readFrom:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND /* @event_filters */
)
