-- @name insights.exit_items
-- @returns fragment: for each session (with its pages joined by `views_join`), one item for its exit page when it has a
--   page view, and one per page it viewed with its views of it: `item` (origin, path, 'exit' or 'viewed',
--   views). A session exits at a page it viewed, so every exit page's viewed items hold its exits.
-- Shared by insights/exit-pages.sql and insights/exit-pages-rollup.sql.
/* @views_join */
ARRAY JOIN arrayConcat(
  if(all_views > 0, [(toString(s_exit_origin), s_exit_path, 'exit', toUInt64(0))], []),
  arrayMap((origin, path, views) -> (toString(origin), path, 'viewed', toUInt64(views)), page_origins, page_paths, page_views)
) AS item
