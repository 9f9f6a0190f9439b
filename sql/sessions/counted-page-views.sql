-- @name sessions.counted_page_views
-- @returns fragment: the column after a settled session's others counting its views of the pages that match the
--   page-only event filters (`counted_views`), with `page_matches`, whether each of its pages matches them: one
--   evaluation per page, which the kept sessions' counted views reuse instead of evaluating the filters a second
--   time (docs/measurements.md, "Filters")
,
    arraySum((matched, views) -> if(matched, views, 0), arrayMap((origin, path) -> /* @page_condition */, page_origins, page_paths) AS page_matches, page_views) AS counted_views
