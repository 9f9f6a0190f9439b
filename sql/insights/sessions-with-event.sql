-- @name insights.sessions_with_event
-- @returns fragment: session_id of every session with at least one event matching all event-field filters
-- Events of the sessions an answer can count lie between the lookback before the window and the
-- lookback after it.
SELECT DISTINCT session_id
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {readFrom:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND /* @event_filters */
