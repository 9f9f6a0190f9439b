-- @name admin.compact-mutating
-- @returns how many mutations of a combined table are not done yet: pending; `tableName` as system.mutations holds it
-- A compaction's delete (admin/compact-drop.sql) waits for its own mutation, which runs after the table's
-- earlier ones, such as a month's rewrite (admin/compact-unmask.sql, seconds on a large month). Embedded, a
-- bound statement holds chDB's one chain of them while it waits, so a table with one still running is not
-- deleted from in this run.
SELECT count() AS pending
FROM system.mutations
WHERE database = currentDatabase()
  AND table = {tableName:String}
  AND NOT is_done
