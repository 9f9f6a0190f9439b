-- @name insights.kept_counts
-- @returns fragment: a breakdown's counts over the window's kept sessions, with the FROM they are counted over:
--   session_count, view_count (`views`: each session's counted views), bounced, duration_total_ms
-- Shared by insights/dimension.sql and insights/dimension-sets.sql; the sessions and the join of the
-- event-field filters come from the sessions wing (queries/sessions/window-sessions.ts).
count() AS session_count,
  sum(/* @views */) AS view_count,
  countIf(all_views <= 1) AS bounced,
  sum(duration_ms) AS duration_total_ms
FROM
(
  /* @window_sessions */
) AS kept
/* @views_join */
