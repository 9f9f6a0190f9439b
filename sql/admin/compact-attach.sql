-- @name admin.compact-attach
-- @returns nothing (adds one day's compaction to its month of a combined table, from the staging table
--   that holds it alone)
-- Beside the day's older compactions: readers keep the one their record names until this one is recorded,
-- and the older ones go later (admin/compact-superseded.sql, admin/compact-drop.sql). On a cluster, the
-- shards' local tables, ON CLUSTER: run once on each shard, each attaching the rows it staged.
ALTER TABLE {table:Identifier} /* @on_cluster */ ATTACH PARTITION {month:UInt32} FROM {stage:Identifier}
