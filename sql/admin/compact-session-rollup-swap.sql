-- @name admin.compact-session-rollup-swap
-- @returns nothing (adds one day's compaction to its month, from the staging table that holds it alone)
-- As admin/compact-swap.sql, for session_rollup.
ALTER TABLE session_rollup ATTACH PARTITION {month:UInt32} FROM session_rollup_stage
