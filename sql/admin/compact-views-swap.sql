-- @name admin.compact-views-swap
-- @returns nothing (moves one day's compaction in whole, atomically, from the staging table)
-- As admin/compact-swap.sql, for page_views_settled.
ALTER TABLE page_views_settled REPLACE PARTITION tuple({day:Date}, {compaction:UInt64}) FROM page_views_settled_stage
