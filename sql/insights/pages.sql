-- @name insights.pages
-- @returns one row per (origin, path), in answer order, one page plus one row: origin, path,
--   latest_title, session_count, view_count, entered, entered_bounced, with_next, gap_total_ms
-- Page views in the window whose session passes the filters; a view's next view is the session's next
-- screen_view (all of them, read up to the lookback after the window), so the gap is computed before
-- the views are narrowed to the window and the view filters.
WITH
  session_info AS
  (
    SELECT
      session_id,
      argMin(entry_origin, first_event_key) AS s_entry_origin,
      argMin(entry_path, first_event_key) AS s_entry_path,
      sum(screen_views) AS all_views/* @attributes */
    FROM sessions
    WHERE project_id = {projectId:String}
      AND started_at >= {readFrom:DateTime64(3, 'UTC')}
      AND started_at < {readTo:DateTime64(3, 'UTC')}
    GROUP BY session_id
    HAVING 1 /* @session_filters */
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
  )
SELECT
  origin,
  path,
  argMaxIf(title, view_key, title != '') AS latest_title,
  uniqExact(session_id) AS session_count,
  count() AS view_count,
  uniqExactIf(session_id, s_entry_origin = origin AND s_entry_path = path) AS entered,
  uniqExactIf(session_id, s_entry_origin = origin AND s_entry_path = path AND all_views <= 1) AS entered_bounced,
  countIf(next_at IS NOT NULL) AS with_next,
  sumIf(dateDiff('millisecond', created_at, assumeNotNull(next_at)), next_at IS NOT NULL) AS gap_total_ms
FROM page_views
INNER JOIN session_info USING (session_id)
WHERE created_at < {end:DateTime64(3, 'UTC')} AND counted
GROUP BY origin, path
ORDER BY session_count DESC, origin ASC, path ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
