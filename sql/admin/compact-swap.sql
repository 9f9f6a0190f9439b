-- @name admin.compact-swap
-- @returns nothing (moves one day's compaction in whole, atomically, from the staging table)
-- Beside the day's older compaction until that is dropped (admin/compact-drop.sql): meanwhile readers
-- find two compactions of the day and regroup it.
ALTER TABLE sessions_settled REPLACE PARTITION tuple({day:Date}, {compaction:UInt64}) FROM sessions_settled_stage
