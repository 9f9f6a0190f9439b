-- @name insights.pages
-- @returns origin LowCardinality(String), path String, latest_title String, session_count UInt64, view_count UInt64,
--   entered UInt64, entered_bounced UInt64, with_next UInt64, gap_total_ms Int64
-- one row per (origin, path) kept by the search, in answer order, one page plus one row: origin, path,
--   latest_title, session_count, view_count, entered, entered_bounced, with_next, gap_total_ms
-- Page views in the window whose session passes the filters. A view's next view is the session's next
-- screen_view (all of them), so views are ordered before they are narrowed to the window and the view
-- filters. A session counts once per page: at its first counted view of the page in the window, so the
-- sessions add up. `entered`/`entered_bounced` count the window's kept sessions (start in the window) by
-- entry page, whether or not they viewed it; under page-only event filters, the sessions whose entry page
-- matches them (`entry_match`: their first event does, so they are kept; see queries/sessions/window-sessions.ts, entrySessions).
-- The window's page views come from the sessions wing (queries/sessions/page-views.ts): `views_with`
-- names what they read in the statement's WITH, `page_views` gives them as `page_parts`, a row per counted
-- view or per stored group of them, each with whether it is its session's first of the page in the window,
-- whether another view follows it and the gap, and the title (sessions/window-page-views.sql).
-- Rows are kept by `page_search` (a bound text in the path or title) and ordered by `page_order`: a sort key
-- from a closed table (queries/insights/page-order.ts), nulls last, then origin and path.
WITH/* @performed_cte */
  /* @views_with */,
  entries AS
  (
    SELECT
      origin AS entry_origin,
      path AS entry_path,
      count() AS entered_all,
      countIf(all_views <= 1) AS entered_bounced_all
    FROM
    (
      SELECT s_entry_origin AS origin, s_entry_path AS path, all_views
      FROM
      (
        /* @window_sessions */
      ) AS kept
      /* @entry_join */
    ) AS entered_sessions
    WHERE /* @entry_match */
    GROUP BY origin, path
  ),
  /* @page_views */,
  page_rows AS
  (
    SELECT
      origin,
      path,
      -- The latest titled view's title; every untitled view has key 0 and title ''.
      argMax(title, title_key) AS latest_title,
      sum(first_views) AS session_count,
      sum(views) AS view_count,
      sum(with_next) AS with_next,
      sum(gap_total_ms) AS gap_total_ms
    FROM page_parts
    GROUP BY origin, path
  )
SELECT
  origin,
  path,
  latest_title,
  session_count,
  view_count,
  entered_all AS entered,
  entered_bounced_all AS entered_bounced,
  with_next,
  gap_total_ms
FROM page_rows
LEFT JOIN entries ON page_rows.origin = entries.entry_origin AND page_rows.path = entries.entry_path/* @page_search */
ORDER BY /* @page_order */
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
