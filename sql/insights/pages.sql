-- @name insights.pages
-- @returns one row per (origin, path), in answer order, one page plus one row: origin, path,
--   latest_title, session_count, view_count, entered, entered_bounced, with_next, gap_total_ms
-- Page views in the window whose session passes the filters; a view's next view is the session's next
-- screen_view (all of them, read up to the lookback after the window), so the gap is computed before
-- the views are narrowed to the window and the view filters. `entered`/`entered_bounced` count the
-- window's kept sessions (start in the window) by entry page, whether or not they viewed it.
WITH
  entries AS
  (
    SELECT
      s_entry_origin AS entry_origin,
      s_entry_path AS entry_path,
      count() AS entered_all,
      countIf(all_views <= 1) AS entered_bounced_all
    FROM
    (
      /* @window_sessions */
    ) AS kept
    /* @entry_join */
    GROUP BY entry_origin, entry_path
  ),
  page_views AS
  (
    SELECT
      session_id, origin, path, title, created_at,
      -- created_at, then the id text, as one number (as sessions.first_event_key): a cheap sort key.
      bitOr(
        bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
        toUInt256(toUInt128(id))
      ) AS view_key,
      /* @view_match */ AS counted,
      leadInFrame(toNullable(created_at)) OVER (
        PARTITION BY session_id ORDER BY view_key ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING
      ) AS next_at
    FROM events
    WHERE project_id = {projectId:String}
      AND name = 'screen_view'
      AND created_at >= {start:DateTime64(3, 'UTC')}
      AND created_at < {readTo:DateTime64(3, 'UTC')}
  ),
  page_rows AS
  (
    SELECT
      origin,
      path,
      argMaxIf(title, view_key, title != '') AS latest_title,
      uniqExact(session_id) AS session_count,
      count() AS view_count,
      countIf(next_at IS NOT NULL) AS with_next,
      sumIf(dateDiff('millisecond', created_at, assumeNotNull(next_at)), next_at IS NOT NULL) AS gap_total_ms
    FROM page_views
    WHERE created_at < {end:DateTime64(3, 'UTC')} AND counted /* @view_sessions */
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
LEFT JOIN entries ON page_rows.origin = entries.entry_origin AND page_rows.path = entries.entry_path
ORDER BY session_count DESC, origin ASC, path ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
