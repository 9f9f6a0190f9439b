-- @name insights.metrics
-- @returns part String, is_total UInt64, bucket UInt32, session_count UInt64, bounced UInt64,
--   duration_total_ms Int64, view_count UInt64, visitor_count UInt64, revenue_total Int64
-- one row per bucket and one total row (is_total = 1) for each part:
--   part 'sessions': session_count, bounced, duration_total_ms, view_count, visitor_count
--   part 'revenue': revenue_total
-- Session figures fall in the bucket of the session's start, revenue in the bucket of each event.
/* @performed_with */SELECT
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
  sum(amount) AS revenue_total
FROM
(
  /* @revenue */
) AS revenue_rows
GROUP BY GROUPING SETS ((bucket), ())
