-- @name sessions.pages_settled_rows
-- @returns the page rows of the settled days `view_days` in the window (of their compactions,
--   `view_compactions`), as pages.sql's page_parts: origin, path, views, first_views, with_next,
--   gap_total_ms, title, title_key
-- A row per session, page and quarter hour (migrations/002_derived_tables.sql): the window's bounds
-- fall on quarter hours, its view condition reads the page only, and the row's session must pass the
-- filters. A row is its session's first of the page in the window when its previous view lies before it.
SELECT
  origin, path, views,
  toUInt32(previous_at < {start:DateTime64(3, 'UTC')}) AS first_views,
  with_next, gap_total_ms, title, title_key
FROM page_views_settled
WHERE project_id = {projectId:String}
  AND day >= {firstDay:Date}
  AND day <= {lastDay:Date}
  AND compaction IN (SELECT arrayJoin(view_compactions))
  AND bucket >= {start:DateTime64(3, 'UTC')}
  AND bucket < {end:DateTime64(3, 'UTC')}
  AND /* @settled_view_match */ /* @view_sessions */
