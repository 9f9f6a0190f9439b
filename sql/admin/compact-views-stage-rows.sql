-- @name admin.compact-views-stage-rows
-- @returns one row: rows (in the staging table)
SELECT count() AS rows
FROM page_views_settled_stage
