-- @name sessions.session_events
-- @returns fragment: an INNER JOIN with each session that has at least one event matching every event-field filter,
--   as `matched`: session_id and counted_views, its page views matching every event-field filter but `name`
-- One scan, in place of a matching-session set plus a counted-views join. It reads events from the
-- window's start: every event of a session that starts in the window lies at or after that start. Only
-- the rows either count reads are scanned, not every page view (docs/measurements.md, "Filters").
INNER JOIN
  (
SELECT session_id, countIf(name = 'screen_view' AND /* @view_filters */) AS counted_views
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND ((name = 'screen_view' AND /* @view_filters */) OR /* @event_filters */)/* @event_range */
GROUP BY session_id
HAVING countIf(/* @event_filters */) > 0
  ) AS matched USING (session_id)
