-- @name admin.compact-swap
-- @returns nothing (adds one day's compaction to its month, from the staging table that holds it alone)
-- Beside the day's older compactions: readers keep the one their record names until this one is recorded,
-- and the older ones go later (admin/compact-superseded.sql, admin/compact-drop.sql).
ALTER TABLE sessions_settled ATTACH PARTITION {month:UInt32} FROM sessions_settled_stage
