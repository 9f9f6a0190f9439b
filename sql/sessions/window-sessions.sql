-- @name sessions.window_sessions
-- @returns fragment: per session that starts in the window and passes the session-attribute filters (event-field
--   filters join on after, see session-events.sql): session_id, session_start,
--   duration_ms, all_views, visitor_key (see migrations/002_derived_tables.sql), and s_<attribute> for
--   each attribute asked for
-- Settled days come combined (sessions/settled-sessions.sql): settledDays, each read from the compaction at
-- the same place of settledCompactions (the rows of sessions/settled-days.sql, run before the statement, see
-- queries/run/settled-check.ts; bound empty, every day is regrouped). Every other day (the open
-- edge, a day a late event changed, one never compacted) is combined from its partial rows of regroupFrom
-- to regroupTo (bound with the days; sessions/regrouped-sessions.sql).
-- With event filters that read only the page (origin, path; no `name`), a settled session is kept when
-- one of its pages (migrations/002_derived_tables.sql) matches them and counts the views of those pages
-- (`counted_views`; both read `page_matches`, the filters evaluated once per page), and a regrouped one
-- joins its events, read from the regrouped range only; with other event filters, the caller joins the
-- events (queries/sessions/window-sessions.ts, eventJoin).
-- A filter tree whose performed leaves read sets of sessions from events keeps the sessions of both
-- sources at once (`kept_sessions`), so that each set is built once (queries/sessions/window-sessions.ts).
-- TRICKY: only rows from the first such day's read range to the last one's are grouped. That holds every
-- row of a session starting on such a day, so a kept session is whole; a session cut at either end
-- starts, as grouped, on a settled day or outside the window, and is left out.
WITH
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions,
  {regroupFrom:DateTime64(3, 'UTC')} AS regroup_from,
  {regroupTo:DateTime64(3, 'UTC')} AS regroup_to
SELECT *
FROM
(
  /* @settled_sessions */

  UNION ALL

  SELECT *
  FROM
  (
    /* @regrouped_sessions */
  ) AS regrouped
  /* @regrouped_page_join */
)/* @kept_sessions */
