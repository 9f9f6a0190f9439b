-- @name admin.compact-run-clear
-- @returns nothing (empties compaction_run before a run writes its own)
TRUNCATE TABLE compaction_run
