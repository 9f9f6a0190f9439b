-- @name admin.compact-drop
-- @returns nothing (drops one compaction of a day, in whole)
ALTER TABLE {table:Identifier} DROP PARTITION tuple({day:Date}, {compaction:UInt64})
