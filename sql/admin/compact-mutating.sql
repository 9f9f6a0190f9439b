-- @name admin.compact-mutating
-- @returns pending UInt64
-- how many mutations of a combined table are not done yet: pending; `tableName` as system.mutations
--   holds it (on a cluster, the shards' local table, on every replica)
-- A compaction's delete (admin/compact-drop.sql) waits for its own mutation, which runs after the table's
-- earlier ones, such as a month's rewrite (admin/compact-unmask.sql, seconds on a large month). Embedded, a
-- statement waiting holds chDB's one chain of them, so a table with one still running is not deleted from
-- in this run.
SELECT count() AS pending
FROM /* @mutations */
WHERE database = currentDatabase()
  AND table = {tableName:String}
  AND NOT is_done
