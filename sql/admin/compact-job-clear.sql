-- @name admin.compact-job-clear
-- @returns nothing (empties compaction_job before the next day's job is written)
TRUNCATE TABLE compaction_job
