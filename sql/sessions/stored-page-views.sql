-- @name sessions.stored_page_views
-- @returns fragment: the stored page views of the settled days `view_days` in the window (of their compactions,
--   `view_compactions`), as pages.sql's page_parts: origin, path, views, first_views, with_next,
--   gap_total_ms, title, title_key
-- Read from `stored_table` (queries/sessions/page-views.ts; migrations/002_derived_tables.sql): the page rows,
-- a row per session, page and quarter hour (`stored_time`), when the window's bounds fall on quarter hours
-- and the view condition reads the page only, the row's session passing the filters (`view_sessions`); or
-- their rollup, rows per page, hour and hour of the previous view, when the bounds fall on whole hours and
-- no filter restricts the sessions. A session's first view of a page in the window is the row whose
-- previous view lies before the window's start (`first_views`: sessions/first-view-rows.sql,
-- sessions/first-view-rollup.sql).
SELECT
  origin, path, views,
  /* @first_views */ AS first_views,
  with_next, gap_total_ms, title, title_key
FROM /* @stored_table */
WHERE project_id = {projectId:String}
  AND day >= {firstDay:Date}
  AND day <= {lastDay:Date}
  AND compaction IN (SELECT arrayJoin(view_compactions))
  AND /* @stored_time */ >= {start:DateTime64(3, 'UTC')}
  AND /* @stored_time */ < {end:DateTime64(3, 'UTC')}
  AND /* @settled_view_match */ /* @view_sessions */
