-- @name admin.compact-rollup-swap
-- @returns nothing (moves one day's compaction in whole, atomically, from the staging table)
-- As admin/compact-swap.sql, for page_rollup.
ALTER TABLE page_rollup REPLACE PARTITION tuple({day:Date}, {compaction:UInt64}) FROM page_rollup_stage
