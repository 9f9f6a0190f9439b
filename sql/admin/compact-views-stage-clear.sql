-- @name admin.compact-views-stage-clear
-- @returns nothing (empties the staging table)
TRUNCATE TABLE page_views_settled_stage
