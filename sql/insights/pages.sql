-- @name insights.pages
-- @returns one row per (origin, path) kept by the search, in answer order, one page plus one row: origin, path,
--   latest_title, session_count, view_count, entered, entered_bounced, with_next, gap_total_ms
-- Page views in the window whose session passes the filters. A view's next view is the session's next
-- screen_view (all of them), so views are ordered before they are narrowed to the window and the view
-- filters. A session counts once per page: at its first counted view of the page in the window, so the
-- sessions add up. `entered`/`entered_bounced` count the window's kept sessions (start in the window) by
-- entry page, whether or not they viewed it; under page-only event filters, the sessions whose entry page
-- matches them (`entry_match`: their first event does, so they are kept; see queries/sessions/window-sessions.ts, entrySessions).
-- The sessions wing (queries/sessions/page-views.ts) names the days whose page views come stored,
-- `view_days`, and gives those views (`settled_pages`, sessions/stored-page-views.sql).
-- Rows are kept by `page_search` (a bound text in the path or title) and ordered by `page_order`: a sort key
-- from a closed table (queries/insights/page-order.ts), nulls last, then origin and path.
-- The other days' views are ordered here, read from `order_from` to `order_to`: the lookback before the
-- first such day (a view's previous one of the page) to the lookback after the last (its next view).
WITH/* @performed_cte */
  /* @settled_views */,
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
  ordered_views AS
  (
    SELECT
      session_id, origin, path, title, created_at, view_key, counted,
      leadInFrame(toNullable(created_at)) OVER (
        PARTITION BY session_key ORDER BY view_key ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING
      ) AS next_at,
      -- The session's counted and uncounted pages through this view and before it (views before the window
      -- are not read): the view is the session's first of its page exactly when it adds one. One ordering
      -- for all three (rather than a second ordering of the session's views by page; docs/measurements.md,
      -- "Pages"), by the stored session key (migrations/001_source_tables.sql) rather than the id text, each page told by its
      -- stored key (the same migration), with `counted` only when it does not follow from the page.
      uniqExact(/* @page_identity */) OVER (
        PARTITION BY session_key ORDER BY view_key ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS pages_through,
      uniqExact(/* @page_identity */) OVER (
        PARTITION BY session_key ORDER BY view_key ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS pages_before
    FROM
    (
      SELECT
        session_id, session_key, page_key, origin, path, title, created_at,
        -- created_at, then the id text, as one number (as sessions.first_event_key): a cheap sort key.
        bitOr(
          bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
          toUInt256(toUInt128(id))
        ) AS view_key,
        /* @view_match */ AS counted
      FROM events
      WHERE project_id = {projectId:String}
        AND name = 'screen_view'
        AND created_at >= {start:DateTime64(3, 'UTC')}
        AND created_at < {readTo:DateTime64(3, 'UTC')}
        AND created_at >= order_from
        AND created_at < order_to
    )
  ),
  page_parts AS
  (
    /* @settled_pages */

    UNION ALL

    SELECT
      origin, path, toUInt32(1) AS views,
      toUInt32(pages_through > pages_before) AS first_views,
      toUInt32(next_at IS NOT NULL) AS with_next,
      if(next_at IS NULL, 0, dateDiff('millisecond', created_at, assumeNotNull(next_at))) AS gap_total_ms,
      title,
      if(title = '', toUInt256(0), view_key) AS title_key
    FROM ordered_views
    WHERE created_at < {end:DateTime64(3, 'UTC')}
      AND NOT has(view_days, toDate(created_at))
      AND counted /* @view_sessions */
  ),
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
