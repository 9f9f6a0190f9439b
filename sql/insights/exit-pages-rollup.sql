-- @name insights.exit_pages_rollup
-- @returns page_origin String, page_path String, session_count UInt64, bounced UInt64, duration_total_ms Int64,
--   view_count UInt64
-- as insights/exit-pages.sql: page_origin, page_path, session_count, bounced, duration_total_ms,
--   view_count, in answer order, one page plus one row
-- Exit pages without filters whose window starts and ends on whole hours: the settled days' sessions come
-- counted per exit page (`exit_page`) and per viewed page with their views of it (`page_views`), and per
-- UTC day of their start over the window's whole days, per hour over the rest
-- (queries/sessions/rollup-rows.ts, pageRollupRows: member 0 and 1); the other days' sessions are regrouped from their
-- partial rows, with the pages they viewed.
-- `kept_keys`: as in insights/exit-pages.sql.
SELECT
  page_origin,
  page_path,
  sumIf(sessions, member = 0) AS session_count,
  sumIf(bounced_sessions, member = 0) AS bounced,
  sumIf(duration, member = 0) AS duration_total_ms,
  sumIf(views, member = 1) AS view_count
FROM
(
  SELECT member, toString(prefix_value) AS page_origin, name_value AS page_path, sessions, views, bounced_sessions, duration
  FROM
  (
    /* @rollup_rows */
  )

  UNION ALL

  SELECT
    toUInt32(if(item.3 = 'exit', 0, 1)) AS member,
    item.1 AS page_origin,
    item.2 AS page_path,
    toUInt64(item.3 = 'exit') AS sessions,
    item.4 AS views,
    toUInt64(item.3 = 'exit' AND all_views <= 1) AS bounced_sessions,
    if(item.3 = 'exit', duration_ms, 0) AS duration
  FROM
  (
    /* @regrouped_sessions */
  ) AS regrouped
  /* @exit_items */
) AS counted
GROUP BY page_origin, page_path
HAVING session_count > 0/* @kept_keys */
ORDER BY session_count DESC, page_origin ASC, page_path ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
