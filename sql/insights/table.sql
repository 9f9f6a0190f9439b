-- @name insights.table
-- @returns dimension_1 String, dimension_2 String, dimension_3 String, session_count UInt64, view_count UInt64,
--   bounced UInt64, duration_total_ms Int64, visitor_count UInt64, event_count UInt64, revenue_total Int64,
--   converted_visitors UInt64
-- one row per tuple of dimension values of the window's kept sessions, in answer order, one page plus one row:
--   dimension_1..3 (a session field each, '' past the dimensions asked), session_count, view_count, bounced,
--   duration_total_ms, visitor_count, event_count, revenue_total, converted_visitors
-- The dimension columns (`table_dimensions`), the figures only some metrics need (`table_figures`: visitor_count,
-- event_count, revenue_total, converted_visitors, each 0 when no metric asks for it) and the order come from
-- closed tables (queries/insights/table-sql.ts); the sessions and the
-- join of the event-field filters from the sessions wing (queries/sessions/window-sessions.ts), each session's
-- events, revenue and goal from `session_events` (insights/table-session-events.sql) when a metric needs them;
-- a compared question keeps only the tuples the answer kept (`kept_keys`, queries/core/compare.ts).
/* @performed_with */SELECT/* @table_dimensions */
  count() AS session_count,
  toUInt64(sum(/* @views */)) AS view_count,
  countIf(all_views <= 1) AS bounced,
  toInt64(sum(duration_ms)) AS duration_total_ms,/* @table_figures */
FROM
(
  /* @window_sessions */
) AS kept
/* @views_join *//* @session_events */
GROUP BY dimension_1, dimension_2, dimension_3/* @kept_keys */
ORDER BY /* @table_order */
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
