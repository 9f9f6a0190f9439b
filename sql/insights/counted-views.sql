-- @name insights.counted_views
-- @returns per session: counted_views, its page views matching every event-field filter but `name`
SELECT session_id, count() AS counted_views
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND name = 'screen_view'
  AND /* @event_filters */
GROUP BY session_id
