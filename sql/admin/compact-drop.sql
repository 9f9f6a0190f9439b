-- @name admin.compact-drop
-- @returns nothing (deletes the rows of the given compactions, each named by its number, which names its day)
-- A lightweight delete: the rows are masked at once and removed as their parts merge (a day's compaction
-- shares its month's parts with the other days once merged, so no partition holds it alone), or when
-- their month is rewritten (admin/compact-masked.sql, admin/compact-unmask.sql). One statement for all of
-- a table's: each waits for its delete to be applied. On a cluster, the shards' local tables, ON CLUSTER.
DELETE FROM {table:Identifier} /* @on_cluster */
WHERE day IN {days:Array(Date)}
  AND has(CAST({compactions:Array(String)}, 'Array(UInt64)'), compaction)
