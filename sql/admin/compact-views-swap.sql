-- @name admin.compact-views-swap
-- @returns nothing (adds one day's compaction to its month, from the staging table that holds it alone)
-- As admin/compact-swap.sql, for page_views_settled.
ALTER TABLE page_views_settled ATTACH PARTITION {month:UInt32} FROM page_views_settled_stage
