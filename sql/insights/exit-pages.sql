-- @name insights.exit_pages
-- @returns page_origin String, page_path String, session_count UInt64, bounced UInt64, duration_total_ms Int64,
--   view_count UInt64
-- one row per exit page (origin, path) of the window's kept sessions, in answer order, one page plus
--   one row: page_origin, page_path, session_count (sessions exiting there), bounced, duration_total_ms (of
--   those sessions), view_count (the views of that page in every kept session, the exit rate's denominator)
-- Each kept session (with every page it viewed and its views of each, see queries/sessions/window-sessions.ts,
-- sessionsWithPages) gives one item for its exit page, when it has a page view, and one per page it viewed.
-- A session exits at a page it viewed, so every exit page's view_count holds its exits.
-- `kept_keys`: a compared question (compare=previous|year) keeps only the rows of the keys its main answer
--   kept, bound as arrays (queries/core/compare.ts); nothing otherwise.
/* @performed_with */SELECT
  item.1 AS page_origin,
  item.2 AS page_path,
  countIf(item.3 = 'exit') AS session_count,
  countIf(item.3 = 'exit' AND all_views <= 1) AS bounced,
  sumIf(duration_ms, item.3 = 'exit') AS duration_total_ms,
  sumIf(item.4, item.3 = 'viewed') AS view_count
FROM
(
  /* @window_sessions */
) AS kept
/* @exit_items */
GROUP BY page_origin, page_path
HAVING session_count > 0/* @kept_keys */
ORDER BY session_count DESC, page_origin ASC, page_path ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
