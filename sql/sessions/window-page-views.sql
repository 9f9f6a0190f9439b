-- @name sessions.window_page_views
-- @returns fragment: WITH items `ordered_views` and `page_parts`: the window's page views, as pages.sql's page_parts:
--   origin, path, views, first_views, with_next, gap_total_ms, title, title_key
-- A view's next view is the session's next screen_view (all of them), so views are ordered before they are
-- narrowed to the window and the view filters (`view_match`), and a session's view counts first for a page
-- at its first counted view of the page in the window. The days of `view_days` (settled, when stored page
-- views answer) come stored (`settled_pages`, sessions/stored-page-views.sql); the other days' views are
-- ordered here, read from `order_from` to `order_to`: the lookback before the first such day (a view's
-- previous one of the page) to the lookback after the last (its next view). Both keep the views whose
-- session passes the filters (`view_sessions`).
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
  )
