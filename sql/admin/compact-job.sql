-- @name admin.compact-job
-- @returns nothing (writes the one job under way, after admin/compact-job-clear.sql emptied the table)
-- The day's builds read it (admin/compaction-job.sql) and bind nothing, so that they run beside the
-- gateway's data statements instead of holding chDB's chain of bound statements (migrations/018_compaction_job.sql).
INSERT INTO compaction_job (day, compaction, read_from, read_to)
VALUES ({day:Date}, {compaction:UInt64}, {readFrom:DateTime64(3, 'UTC')}, {readTo:DateTime64(3, 'UTC')})
