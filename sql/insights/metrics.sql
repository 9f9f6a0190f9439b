-- @name insights.metrics
-- @returns one row per bucket and one total row (is_total = 1) for each part:
--   part 'sessions': session_count, bounced, duration_total_ms, view_count, visitor_count
--   part 'revenue': revenue_total
-- Session figures fall in the bucket of the session's start, revenue in the bucket of each event.
SELECT
  'sessions' AS part,
  grouping(bucket) AS is_total,
  toUnixTimestamp(/* @session_bucket */) AS bucket,
  count() AS session_count,
  countIf(all_views <= 1) AS bounced,
  sum(duration_ms) AS duration_total_ms,
  sum(/* @views */) AS view_count,
  uniqExact(visitor_key) AS visitor_count,
  toInt64(0) AS revenue_total
FROM
(
  /* @window_sessions */
) AS kept
/* @views_join */
GROUP BY GROUPING SETS ((bucket), ())

UNION ALL

SELECT
  'revenue' AS part,
  grouping(bucket) AS is_total,
  toUnixTimestamp(/* @event_bucket */) AS bucket,
  0, 0, 0, 0, 0,
  sum(revenue) AS revenue_total
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {end:DateTime64(3, 'UTC')}
  /* @revenue_filters */
GROUP BY GROUPING SETS ((bucket), ())
