-- @name insights.window_sessions
-- @returns per session that starts in the window and passes the session-attribute filters (event-field
--   filters join on after, see session-events.sql): session_id, session_start,
--   duration_ms, all_views, visitor_key (see migrations/005_settled_sessions.sql), and s_<attribute> for
--   each attribute asked for
-- Settled days come combined from sessions_settled: settledDays, each read from the compaction at the same
-- place of settledCompactions (the rows of insights/settled-days.sql, run before the statement, see
-- queries/core/settled-check.ts; bound empty, every day is regrouped). Every other day (the open
-- edge, a day a late event changed, one never compacted) is combined here from its partial rows (see
-- migrations/002_sessions.sql) of regroupFrom to regroupTo (bound with the days), by their stored
-- session_key (migrations/015_session_keys.sql): earliest start, latest end, all page views, and the
-- attributes of the earliest first event (ties by the first event's id text), its profile_key the visitor.
-- A settled day is read from the compaction its record names (a compaction's number names its day, see
-- migrations/013_compactions_by_number.sql). The read names the window's days as bounds too: the
-- partition key's min/max prunes by them (not by the IN set), so a project's older history is not looked
-- at (30-day metrics on 40M events over 360 days: 133-143 -> 126-130 ms).
-- With event filters that read only the page (origin, path; no `name`), a settled session is kept when
-- one of its pages (migrations/010_session_pages.sql) matches them and counts the views of those pages
-- (`counted_views`; both read `page_matches`, the filters evaluated once per page), and a regrouped one
-- joins its events, read from the regrouped range only; with other event filters, the caller joins the
-- events (session-sql.ts, eventJoin).
-- TRICKY: only rows from the first such day's read range to the last one's are grouped. That holds every
-- row of a session starting on such a day, so a kept session is whole; a session cut at either end
-- starts, as grouped, on a settled day or outside the window, and is left out.
WITH
  {settledDays:Array(Date)} AS settled_days,
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions,
  {regroupFrom:DateTime64(3, 'UTC')} AS regroup_from,
  {regroupTo:DateTime64(3, 'UTC')} AS regroup_to
SELECT *
FROM
(
  SELECT
    session_id,
    session_start,
    duration_ms,
    all_views,
    visitor_key/* @settled_attributes *//* @settled_page_views */
  FROM sessions_settled
  WHERE project_id = {projectId:String}
    AND session_start >= {start:DateTime64(3, 'UTC')}
    AND session_start < {end:DateTime64(3, 'UTC')}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
    AND compaction IN (SELECT arrayJoin(settled_compactions))
    /* @session_filters *//* @settled_page_match */

  UNION ALL

  SELECT *
  FROM
  (
    SELECT
      any(session_id) AS session_id,
      min(started_at) AS session_start,
      dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
      sum(screen_views) AS all_views,
      argMin(profile_key, first_event_key) AS visitor_key/* @attributes */
    FROM sessions
    WHERE project_id = {projectId:String}
      AND started_at >= {readFrom:DateTime64(3, 'UTC')}
      AND started_at < {readTo:DateTime64(3, 'UTC')}
      AND started_at >= regroup_from
      AND started_at < regroup_to
    GROUP BY session_key
    HAVING session_start >= {start:DateTime64(3, 'UTC')}
      AND session_start < {end:DateTime64(3, 'UTC')}
      AND NOT has(settled_days, toDate(session_start))
      /* @session_filters */
  ) AS regrouped
  /* @regrouped_page_join */
)
