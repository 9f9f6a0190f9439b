-- @name admin.compact-swap
-- @returns nothing (moves one day's compaction in whole, atomically, from the staging table)
-- Beside the day's older compactions: readers keep the one their record names until this one is recorded,
-- and the older ones go later (admin/compact-superseded.sql).
ALTER TABLE sessions_settled REPLACE PARTITION tuple({day:Date}, {compaction:UInt64}) FROM sessions_settled_stage
