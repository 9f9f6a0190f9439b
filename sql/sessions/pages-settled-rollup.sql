-- @name sessions.pages_settled_rollup
-- @returns the page rollup of the settled days `view_days` in the window (of their compactions,
--   `view_compactions`), as pages.sql's page_parts: origin, path, views, first_views, with_next,
--   gap_total_ms, title, title_key
-- Rows per page, hour and hour of the previous view (migrations/002_derived_tables.sql): the window's bounds
-- fall on whole hours, its view condition reads the page only, and no filter restricts the sessions. The
-- page rows whose previous view lies before the window's start (so before its hour) are first views.
SELECT
  origin, path, views,
  if(previous_hour < {start:DateTime64(3, 'UTC')}, page_rows, 0) AS first_views,
  with_next, gap_total_ms, title, title_key
FROM page_rollup
WHERE project_id = {projectId:String}
  AND day >= {firstDay:Date}
  AND day <= {lastDay:Date}
  AND compaction IN (SELECT arrayJoin(view_compactions))
  AND hour >= {start:DateTime64(3, 'UTC')}
  AND hour < {end:DateTime64(3, 'UTC')}
  AND /* @settled_view_match */
