-- @name insights.table_session_events
-- @returns fragment: a LEFT JOIN with each session's events from the window's start, as `session_events`: session_id,
--   session_event_count (its events), session_revenue (their revenue) and session_converted (1 when one of
--   them matches the goal)
-- Every event of a session that starts in the window lies at or after the window's start and before the
-- lookback after its end (as sessions/session-events.sql reads them). `conditions` narrows the scan to
-- the rows a figure needs (revenue only: events with revenue; the goal only: its events) when the event
-- count is not asked; a session without such an event joins no row, and its figures are 0.
LEFT JOIN
  (
SELECT
  session_id,
  count() AS session_event_count,
  sum(revenue) AS session_revenue,
  toUInt8(countIf(/* @goal */) > 0) AS session_converted
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}/* @conditions */
GROUP BY session_id
  ) AS session_events USING (session_id)
