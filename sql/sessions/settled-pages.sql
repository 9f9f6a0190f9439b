-- @name sessions.settled_pages
-- @returns fragment: the columns after a settled session's others that hold every page it viewed with its views
--   of it: page_origins, page_paths, page_views, as sessions_settled stores them (migrations/002_derived_tables.sql)
,
    page_origins,
    page_paths,
    page_views
