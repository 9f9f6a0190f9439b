-- @name admin.compact-rollup-swap
-- @returns nothing (adds one day's compaction to its month, from the staging table that holds it alone)
-- As admin/compact-swap.sql, for page_rollup.
ALTER TABLE page_rollup ATTACH PARTITION {month:UInt32} FROM page_rollup_stage
