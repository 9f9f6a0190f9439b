-- @name admin.compact-job-check
-- @returns one row: jobs, the rows of compaction_job, and own, those of the day and compaction given
-- The builds read the job row; a run goes on only while it is its own (server/admin/compact.ts).
SELECT count() AS jobs, countIf(day = {day:Date} AND compaction = {compaction:UInt64}) AS own
FROM compaction_job
